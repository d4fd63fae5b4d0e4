"""Wiring memcli into coding agents' own extension points (``memcli setup``).

One place knows each agent's files: Claude Code's ``.claude/settings.json`` hooks, Cursor's
``.cursor/hooks.json`` and ``.cursor/rules/memcli.mdc``, Codex's ``AGENTS.md`` section and its MCP
configuration.  ``plan`` works out every file's new content first (a file it cannot read or
parse stops everything, with nothing written); ``apply`` then writes each one atomically.
Running setup twice changes nothing; ``remove=True`` takes out exactly what setup put in
(memcli's hook entries, its marked section, its own rule file) and keeps everything else.

What the hooks run, ``memcli agent-hook CLIENT --agent ID``, is ``memcli.agent_hook``.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from memcli.errors import MemcliError
from memcli.paths import Layout, validate_agent

CLIENTS = ("claude-code", "cursor", "codex")
DEFAULT_AGENT = "dev"
HOOK_COMMAND = "memcli agent-hook"

# Every coding agent reads the same advice on writing memory (the Cursor rule, the AGENTS.md
# section, the line after the block a session hook prints).
GUIDE = """\
This project keeps its memory in `.memory/` with memcli (plain files in git; a block of it is
put in front of your session). Write to it when something is worth knowing in a later session:

- a decision and why: `memcli add {agent} decisions "Use SSE, not WebSockets: the proxy drops sockets #sse"`
- a lesson learned the hard way: `memcli add {agent} lessons "pytest -k skips doctests here; run make test #testing"`
- work left open: `memcli add {agent} tasks "- [ ] cover the login redirect with a test"`
- before you stop, what the next session must know: `memcli add {agent} handoffs "…"`

Look things up with `memcli search "words"` (`--json` for data) and `memcli show {agent} ID`.
One fact per entry, a line or two, #tags for topics. Never store secrets: memcli refuses them.
"""
SHORT_GUIDE = (
    "## MEMORY: When asked to save/learn/remember, or when you decide or learn something worth keeping, run"
    ' `memcli add {agent} decisions|lessons|tasks|handoffs "text #tag"` (tasks as "- [ ] …");'
    ' look things up with `memcli search "words"`.'
)


@dataclass
class Change:
    """One file's new content (None: delete it); ``note`` says what changed, for the user."""

    path: Path
    content: str | None
    note: str


def guide(agent: str) -> str:
    return GUIDE.format(agent=agent)


def hook_command(client: str, agent: str) -> str:
    command = f"{HOOK_COMMAND} {client}"
    return command if agent == DEFAULT_AGENT else f"{command} --agent {agent}"


def _is_ours(command: object, client: str) -> bool:
    if not isinstance(command, str):
        return False
    words = command.split()
    return words[:3] == [*HOOK_COMMAND.split(), client]


# -- files -------------------------------------------------------------------------------------


def _target(root: Path, relative: str) -> Path:
    """The file to change: ``relative`` under ``root``, or where a symlink there leads if that is
    inside ``root`` too (``CLAUDE.md -> AGENTS.md``); never anything outside."""
    from memcli.fsutil import is_inside

    path = root / relative
    if not is_inside(path.parent, root) or (os.path.lexists(path) and not is_inside(path, root)):
        raise MemcliError(f"refusing to touch {path}: it resolves outside {root} (through a symlink)")
    if path.is_symlink():
        path = Path(os.path.realpath(path))
    if path.exists() and not path.is_file():
        raise MemcliError(f"{path} is not a regular file; nothing changed")
    return path


def _read(path: Path) -> str | None:
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise MemcliError(f"cannot read {path}: {exc.strerror or exc}; nothing changed") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise MemcliError(f"{path} is not UTF-8 text; nothing changed") from None


def _read_json(path: Path) -> dict | None:
    text = _read(path)
    if text is None or not text.strip():
        return None
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise MemcliError(f"{path} is not valid JSON ({exc}); fix it first, nothing changed") from None
    if not isinstance(data, dict):
        raise MemcliError(f"{path} does not hold a JSON object; nothing changed")
    return data


def _json_text(data: dict) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _change_json(path: Path, before: dict | None, after: dict, label: str) -> Change | None:
    """The change from ``before`` to ``after``; None when there is none.  An object left empty by
    a removal is a file setup made: it goes."""
    if (before or {}) == after and (before is not None or not after):
        return None
    if not after:
        return Change(path, None, f"removed {label}")
    if before is None:
        return Change(path, _json_text(after), f"created {label}")
    return Change(path, _json_text(after), f"updated {label}")


def _list_of(container: dict, key: str, path: Path) -> list:
    value = container.get(key, [])
    if not isinstance(value, list):
        raise MemcliError(f"{path}: {key!r} is not a list; fix it first, nothing changed")
    return value


def _object_of(container: dict, key: str, path: Path) -> dict:
    value = container.get(key, {})
    if not isinstance(value, dict):
        raise MemcliError(f"{path}: {key!r} is not an object; fix it first, nothing changed")
    return value


# -- Claude Code (and Codex, whose hooks take the same shape) ---------------------------------

CLAUDE_SETTINGS = ".claude/settings.json"
# event -> matcher (None: match everything) and timeout in seconds.  SessionStart's stdout is
# added to the session's context; the others save the conversation from the transcript.
# SessionEnd must name its timeout: Claude Code gives it 1.5 s otherwise.
CLAUDE_EVENTS = {
    "SessionStart": ("startup|resume|clear|compact|fork", 10),
    "PreCompact": ("manual|auto", 30),
    "SessionEnd": (None, 30),
}
CODEX_HOOKS = ".codex/hooks.json"
# Codex has no session-end event: its Stop (after each turn) saves the conversation.
CODEX_EVENTS = {
    "SessionStart": ("startup|resume|clear|compact", 10),
    "PreCompact": ("manual|auto", 30),
    "Stop": (None, 30),
}


def _hook_groups(root: Path, relative: str, client: str, events: dict, agent: str, remove: bool) -> list[Change]:
    """``{"hooks": {Event: [{"matcher", "hooks": [{"type": "command", "command", "timeout"}]}]}}``
    with memcli's group in each event (or taken out), everything else kept as it was."""
    path = _target(root, relative)
    before = _read_json(path)
    settings = json.loads(json.dumps(before or {}))  # a deep copy to change
    hooks = _object_of(settings, "hooks", path)
    command = hook_command(client, agent)
    for event, (matcher, timeout) in events.items():
        kept = []
        for group in _list_of(hooks, event, path):
            if isinstance(group, dict) and isinstance(group.get("hooks"), list):
                others = [h for h in group["hooks"] if not (isinstance(h, dict) and _is_ours(h.get("command"), client))]
                if len(others) != len(group["hooks"]):
                    if not others:
                        continue  # a group setup added: it goes whole
                    group = {**group, "hooks": others}
            kept.append(group)
        if not remove:
            ours: dict = {"matcher": matcher} if matcher else {}
            ours["hooks"] = [{"type": "command", "command": command, "timeout": timeout}]
            kept.append(ours)
        if kept:
            hooks[event] = kept
        else:
            hooks.pop(event, None)
    if hooks:
        settings["hooks"] = hooks
    else:
        settings.pop("hooks", None)
    if before is not None and _same_after_reorder(before, settings):
        return []  # ours were there already, the same: nothing to do (even their place is kept)
    change = _change_json(path, before, settings, relative)
    return [change] if change else []


def _claude(root: Path, agent: str, remove: bool) -> list[Change]:
    return _hook_groups(root, CLAUDE_SETTINGS, "claude-code", CLAUDE_EVENTS, agent, remove)


def _inside(path: Path, root: Path) -> bool:
    try:
        path.relative_to(root)
        return True
    except ValueError:
        return False


def _same_after_reorder(before: dict, after: dict) -> bool:
    """Whether ``after`` only moved memcli's own entries to the end of their lists."""
    return _canonical(before) == _canonical(after)


def _canonical(value):
    if isinstance(value, dict):
        return {k: _canonical(v) for k, v in value.items()}
    if isinstance(value, list):
        items = [_canonical(v) for v in value]
        return sorted(items, key=lambda v: json.dumps(v, sort_keys=True))
    return value


# -- Cursor ------------------------------------------------------------------------------------

CURSOR_HOOKS = ".cursor/hooks.json"
CURSOR_RULE = ".cursor/rules/memcli.mdc"
# Only event names Cursor knows: one unknown name makes Cursor ignore the whole file.
# sessionStart's ``additional_context`` goes into the conversation; the rest save it from the
# transcript (``stop`` after each turn of an interactive session, which ``-p`` mode does not fire;
# ``sessionEnd`` at the end, with the handoff).
CURSOR_EVENTS = {"sessionStart": 10, "preCompact": 60, "stop": 60, "sessionEnd": 60}
MARK = "memcli setup"  # in the comment that marks what setup wrote


def _cursor(root: Path, agent: str, remove: bool) -> list[Change]:
    changes = []
    path = _target(root, CURSOR_HOOKS)
    before = _read_json(path)
    config = json.loads(json.dumps(before or {}))
    hooks = _object_of(config, "hooks", path)
    command = hook_command("cursor", agent)
    for event, timeout in CURSOR_EVENTS.items():
        kept = [h for h in _list_of(hooks, event, path) if not (isinstance(h, dict) and _is_ours(h.get("command"), "cursor"))]
        if not remove:
            kept.append({"command": command, "timeout": timeout})
        if kept:
            hooks[event] = kept
        else:
            hooks.pop(event, None)
    if hooks:
        config = {"version": config.get("version", 1), **config, "hooks": hooks}
    else:
        config.pop("hooks", None)
        if set(config) == {"version"}:
            config = {}
    if before is None or not _same_after_reorder(before, config):
        change = _change_json(path, before, config, CURSOR_HOOKS)
        if change:
            changes.append(change)
    rule = _target(root, CURSOR_RULE)
    current = _read(rule)
    if current is not None and MARK not in current:
        raise MemcliError(f"{rule} exists and memcli did not write it; move it away first, nothing changed")
    wanted = None if remove else _cursor_rule(agent)
    if current != wanted and not (current is None and wanted is None):
        note = "removed" if wanted is None else ("created" if current is None else "updated")
        changes.append(Change(rule, wanted, f"{note} {CURSOR_RULE}"))
    return changes


def _cursor_rule(agent: str) -> str:
    return (
        "---\n"
        "description: How to read and write this project's memory with memcli\n"
        "alwaysApply: true\n"
        "---\n"
        f"<!-- written by `{MARK} cursor`; `{MARK} cursor --remove` takes it out -->\n\n"
        + guide(agent)
    )


# -- Codex --------------------------------------------------------------------------------------

AGENTS_MD = "AGENTS.md"
SECTION_START = f"<!-- {MARK}: start -->"
SECTION_END = f"<!-- {MARK}: end -->"


def _section(text: str, marks: tuple[str, str]) -> tuple[int, int] | None:
    """Where memcli's marked section lies in ``text`` (with its markers and one newline after)."""
    start = text.find(marks[0])
    if start < 0:
        return None
    end = text.find(marks[1], start)
    if end < 0:
        return None
    end += len(marks[1])
    if text.startswith("\n", end):
        end += 1
    return start, end


def _with_section(text: str | None, section: str | None, marks: tuple[str, str], name: str) -> str | None:
    """``text`` with memcli's section put in (at the end, or where it was) or taken out."""
    text = text or ""
    where = _section(text, marks)
    if where:
        head, tail = text[: where[0]], text[where[1] :]
    else:
        if marks[0] in text or marks[1] in text:
            raise MemcliError(f"{name} holds half of memcli's section markers; mend it first, nothing changed")
        head, tail = text, ""
    if section is None:
        if not where:
            return text or None
        result = (head.rstrip("\n") + "\n" + tail.lstrip("\n")) if head.strip() and tail.strip() else head + tail
        result = result.strip("\n")
        return result + "\n" if result else None
    body = f"{marks[0]}\n{section.rstrip()}\n{marks[1]}\n"
    if where:
        return head + body + tail
    return (head.rstrip("\n") + "\n\n" if head.strip() else "") + body


CODEX_CONFIG = ".codex/config.toml"
TOML_MARKS = (f"# {MARK}: start", f"# {MARK}: end")


def _codex(root: Path, agent: str, remove: bool) -> list[Change]:
    """AGENTS.md's section, the MCP server in the project's ``.codex/config.toml`` and the session
    hooks in ``.codex/hooks.json`` (Codex honours both in a trusted project)."""
    changes = []
    path = _target(root, AGENTS_MD)
    current = _read(path)
    section = None if remove else "## Project memory (memcli)\n\n" + guide(agent)
    wanted = _with_section(current, section, (SECTION_START, SECTION_END), AGENTS_MD)
    if wanted != current:
        note = "removed memcli's section from" if section is None else ("created" if current is None else "updated")
        changes.append(Change(path, wanted, f"{note} {AGENTS_MD}" if wanted is not None else f"removed {AGENTS_MD}"))
    changes.extend(_codex_mcp(root, agent, remove))
    changes.extend(_hook_groups(root, CODEX_HOOKS, "codex", CODEX_EVENTS, agent, remove))
    return changes


def mcp_toml() -> str:
    """The MCP server's table for Codex's config.toml (the tools take the agent id as an argument)."""
    return '[mcp_servers.memcli]\ncommand = "memcli"\nargs = ["mcp"]\n'


def _codex_mcp(root: Path, agent: str, remove: bool) -> list[Change]:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib

    path = _target(root, CODEX_CONFIG)
    current = _read(path)
    try:
        parsed = tomllib.loads(current or "")
    except tomllib.TOMLDecodeError as exc:
        raise MemcliError(f"{path} is not valid TOML ({exc}); fix it first, nothing changed") from None
    servers = parsed.get("mcp_servers")
    if isinstance(servers, dict) and "memcli" in servers and _section(current or "", TOML_MARKS) is None:
        if remove:
            return []  # the user's own server entry: not setup's to take out
        raise MemcliError(f"{path} already configures an MCP server named memcli; nothing changed")
    wanted = _with_section(current, None if remove else mcp_toml(), TOML_MARKS, CODEX_CONFIG)
    if wanted == current:
        return []
    try:
        tomllib.loads(wanted or "")
    except tomllib.TOMLDecodeError:
        raise MemcliError(f"{path}: memcli's MCP table does not fit in it (an inline mcp_servers table?);"
                          f" add it by hand: codex mcp add memcli -- memcli mcp") from None
    note = "removed memcli's MCP server from" if remove else ("created" if current is None else "updated")
    return [Change(path, wanted, f"{note} {CODEX_CONFIG}" if wanted is not None else f"removed {CODEX_CONFIG}")]


# -- the plan ----------------------------------------------------------------------------------

SETUPS = {"claude-code": _claude, "cursor": _cursor, "codex": _codex}


def plan(layout: Layout, client: str, agent: str = DEFAULT_AGENT, remove: bool = False) -> list[Change]:
    if client not in SETUPS:
        raise MemcliError(f"unknown agent {client!r}; memcli sets up: {', '.join(CLIENTS)}")
    validate_agent(agent)
    layout.require()
    return SETUPS[client](layout.root, agent, remove)


def apply(layout: Layout, changes: list[Change]) -> None:
    from memcli.fsutil import atomic_write, remove

    for change in changes:
        if change.content is None:
            remove(change.path, layout.root)
            _remove_empty_dirs(change.path.parent, layout.root)
        else:
            atomic_write(change.path, change.content, layout.root)


def _remove_empty_dirs(folder: Path, root: Path) -> None:
    """Folders setup made and a removal left empty (``.claude/``, ``.cursor/rules/``) go too."""
    while folder != root and _inside(folder, root) and folder.name and not folder.is_symlink():
        try:
            folder.rmdir()
        except OSError:
            return
        folder = folder.parent

