"""Wiring memcli into coding agents' own extension points (``memcli setup``).

One place knows each agent's files: Claude Code's ``.claude/settings.json`` hooks, Cursor's
``.cursor/hooks.json`` and ``.cursor/rules/memcli.mdc``, Codex's ``AGENTS.md`` section and its MCP
configuration.  ``plan`` works out every file's new content first (a file it cannot read or
parse stops everything, with nothing written); ``apply`` then writes each one atomically.
Running setup twice changes nothing; ``remove=True`` takes out exactly what setup put in
(memcli's hook entries, its marked section, its own rule file) and keeps everything else.

What the hooks run, ``memcli agent-hook CLIENT --agent ID``, is ``memcli.agents.hook``.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from memcli.errors import MemcliError
from memcli.storage.paths import Layout, validate_agent

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
    """One file's new content (None: delete it); ``note`` says what changed, for the user.
    ``empty``: a removal left the file with nothing of the user's in it; it goes if setup created
    it (``.memory/.vault/setup-created.json`` says which), else ``content`` stays."""

    path: Path
    content: str | None
    note: str
    empty: bool = False


def guide(agent: str) -> str:
    return GUIDE.format(agent=agent)


def hook_command(client: str, agent: str) -> str:
    command = f"{HOOK_COMMAND} {client}"
    return command if agent == DEFAULT_AGENT else f"{command} --agent {agent}"


def _is_ours(command: object, client: str) -> bool:
    """Whether a hook command is one setup wrote (exactly its form: a command of the user's that
    merely starts the same way is the user's)."""
    if not isinstance(command, str):
        return False
    return (
        re.fullmatch(rf"{HOOK_COMMAND} {re.escape(client)}(?: --agent [a-z0-9][a-z0-9._-]*)?", command.strip())
        is not None
    )


# -- files -------------------------------------------------------------------------------------


def _target(root: Path, relative: str) -> Path:
    """The file to change: ``relative`` under ``root``, or where a symlink there leads if that is
    inside ``root`` too (``CLAUDE.md -> AGENTS.md``); never anything outside."""
    from memcli.storage.fsutil import is_inside

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
        return data.decode("utf-8")  # a BOM stays: it is written back as it was
    except UnicodeDecodeError:
        raise MemcliError(f"{path} is not UTF-8 text; nothing changed") from None


def _no_constant(name: str):
    raise ValueError(f"{name} is not JSON that every reader accepts")


def _finite(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"the number {text} is too large to write back")
    return value


def _read_json(path: Path) -> tuple[dict | None, str | None]:
    """The JSON object in ``path`` (None if there is none) and the file's text."""
    text = _read(path)
    if text is None or not text.strip():
        return None, text
    try:
        data = json.loads(text.lstrip("\ufeff"), parse_constant=_no_constant, parse_float=_finite)
    except ValueError as exc:
        raise MemcliError(f"{path} is not valid JSON ({exc}); fix it first, nothing changed") from None
    except RecursionError:
        raise MemcliError(f"{path} is nested too deeply to be a settings file; nothing changed") from None
    if not isinstance(data, dict):
        raise MemcliError(f"{path} does not hold a JSON object; nothing changed")
    try:
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise MemcliError(f"{path} holds half of a UTF-16 surrogate pair (\\ud8xx); nothing changed") from None
    return data, text


def _json_text(data: dict, like: str | None) -> str:
    """``data`` as JSON, indented as ``like`` (the file's text before) was, with its BOM and final newline."""
    indent: str | int = 2
    if like:
        found = re.search(r"\n([ \t]+)\S", like)
        if found:
            indent = found.group(1)
    text = json.dumps(data, indent=indent, ensure_ascii=False)
    if like is None or like.endswith("\n"):
        text += "\n"
    return ("\ufeff" + text) if like and like.startswith("\ufeff") else text


def _change_json(
    path: Path, before: dict | None, after: dict, label: str, like: str | None, empty: dict | None = None
) -> Change | None:
    """The change from ``before`` to ``after``; None when there is none.  ``after`` equal to
    ``empty`` (or {}) holds nothing of the user's: see ``Change.empty``."""
    if before is not None and before == after:
        return None
    if before is None and not after:
        return None
    if after == (empty or {}) and before is not None:
        return Change(path, _json_text(after, like), f"removed memcli from {label}", empty=True)
    if before is None:
        return Change(path, _json_text(after, like), f"created {label}")
    return Change(path, _json_text(after, like), f"updated {label}")


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
    before, like = _read_json(path)
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
    change = _change_json(path, before, settings, relative, like)
    return [change] if change else []


def _claude(root: Path, agent: str, remove: bool) -> list[Change]:
    return _hook_groups(root, CLAUDE_SETTINGS, "claude-code", CLAUDE_EVENTS, agent, remove)


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
MARK = "memcli setup"  # in the comments that mark what setup wrote
RULE_MARK = f"<!-- written by `{MARK} cursor`;"  # the rule file's own line: setup owns the file


def _cursor(root: Path, agent: str, remove: bool) -> list[Change]:
    changes = []
    path = _target(root, CURSOR_HOOKS)
    before, like = _read_json(path)
    config = json.loads(json.dumps(before or {}))
    hooks = _object_of(config, "hooks", path)
    command = hook_command("cursor", agent)
    for event, timeout in CURSOR_EVENTS.items():
        kept = [
            h
            for h in _list_of(hooks, event, path)
            if not (isinstance(h, dict) and _is_ours(h.get("command"), "cursor"))
        ]
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
    if before is None or not _same_after_reorder(before, config):
        change = _change_json(path, before, config, CURSOR_HOOKS, like, empty={"version": config.get("version", 1)})
        if change:
            changes.append(change)
    rule = _target(root, CURSOR_RULE)
    current = _read(rule)
    if current is not None and not any(line.startswith(RULE_MARK) for line in current.splitlines()):
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
        f"{RULE_MARK} `{MARK} cursor --remove` takes it out -->\n\n" + guide(agent)
    )


# -- Codex --------------------------------------------------------------------------------------

AGENTS_MD = "AGENTS.md"
SECTION_START = f"<!-- {MARK}: start -->"
SECTION_END = f"<!-- {MARK}: end -->"


def _sections(text: str, marks: tuple[str, str], name: str) -> list[tuple[int, int]]:
    """Where memcli's marked sections lie in ``text``: from a line that is the start marker to the
    next line that is the end marker, with its line end.  A marker line without its pair is an error."""
    fences, opened = [], None  # fenced code blocks: markers quoted in them are examples, not a section
    for m in re.finditer(r"(?m)^[ \t]*(```|~~~).*$", text):
        if opened is None:
            opened = m.start()
        else:
            fences.append((opened, m.end()))
            opened = None
    # (a fence left open quotes nothing: memcli's own section may follow it)
    quoted = lambda pos: any(a <= pos < b for a, b in fences)  # noqa: E731
    pattern = re.compile(rf"(?m)^{re.escape(marks[0])}[ \t]*\r?$.*?^{re.escape(marks[1])}[ \t]*(?:\r?\n|\Z)", re.S)
    spans = [m.span() for m in pattern.finditer(text) if not quoted(m.start())]
    lone = re.compile(rf"(?m)^(?:{re.escape(marks[0])}|{re.escape(marks[1])})[ \t]*\r?$")
    inside = lambda pos: any(a <= pos < b for a, b in spans)  # noqa: E731
    if any(not inside(m.start()) and not quoted(m.start()) for m in lone.finditer(text)):
        raise MemcliError(f"{name} holds half of memcli's section markers; mend it first, nothing changed")
    return spans


def _with_section(text: str | None, section: str | None, marks: tuple[str, str], name: str) -> str | None:
    """``text`` with memcli's section put in (where the first one was, else at the end; any other
    copy, as a merge can leave, taken out) or, for ``section`` None, every copy taken out.  None:
    nothing is left."""
    text = text or ""
    spans = _sections(text, marks, name)
    newline = "\r\n" if "\r\n" in text else "\n"
    body = None if section is None else newline.join([marks[0], *section.rstrip().split("\n"), marks[1]]) + newline
    if not spans:
        if body is None:
            return text or None
        if not text.strip():
            return body
        head = text if text.endswith("\n") else text + newline
        return head + newline + body  # a blank line before the section
    out, pos = [], 0
    for n, (start, end) in enumerate(spans):
        out.append(text[pos:start])
        if n == 0 and body is not None:
            out.append(body)
        pos = end
    out.append(text[pos:])
    result = "".join(out)
    if body is None and not text[spans[-1][1] :].strip() and result.endswith(newline * 2):
        result = result[: -len(newline)]  # the blank line setup put before a section at the end
    return result if result.strip() else None


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
        changes.append(_text_change(path, current, wanted, AGENTS_MD, "memcli's section"))
    changes.extend(_codex_mcp(root, agent, remove))
    changes.extend(_hook_groups(root, CODEX_HOOKS, "codex", CODEX_EVENTS, agent, remove))
    return changes


def _text_change(path: Path, current: str | None, wanted: str | None, label: str, what: str) -> Change:
    if wanted is None:  # nothing but memcli's part was in it
        return Change(
            path,
            current if current is not None and not current.strip() else "",
            f"removed {what} from {label}",
            empty=True,
        )
    if current is None:
        return Change(path, wanted, f"created {label}")
    return Change(path, wanted, f"{'removed' if len(wanted) < len(current) else 'updated'} {what} in {label}")


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
    if isinstance(servers, dict) and "memcli" in servers and not _sections(current or "", TOML_MARKS, CODEX_CONFIG):
        if remove:
            return []  # the user's own server entry: not setup's to take out
        raise MemcliError(f"{path} already configures an MCP server named memcli; nothing changed")
    wanted = _with_section(current, None if remove else mcp_toml(), TOML_MARKS, CODEX_CONFIG)
    if wanted == current:
        return []
    try:
        result = tomllib.loads(wanted or "")
        ok = remove or result["mcp_servers"]["memcli"] == tomllib.loads(mcp_toml())["mcp_servers"]["memcli"]
    except (tomllib.TOMLDecodeError, KeyError, TypeError):
        ok = False
    if not ok:  # an inline table, an array of tables: the lines would not mean what they say
        raise MemcliError(
            f"{path}: memcli's MCP table does not fit in it (mcp_servers is an inline table or an array);"
            f" add it by hand: codex mcp add memcli -- memcli mcp"
        )
    return [_text_change(path, current, wanted, CODEX_CONFIG, "memcli's MCP server")]


# -- the plan ----------------------------------------------------------------------------------

SETUPS = {"claude-code": _claude, "cursor": _cursor, "codex": _codex}


def plan(layout: Layout, client: str, agent: str = DEFAULT_AGENT, remove: bool = False) -> list[Change]:
    if client not in SETUPS:
        raise MemcliError(f"unknown agent {client!r}; memcli sets up: {', '.join(CLIENTS)}")
    validate_agent(agent)
    layout.require()
    try:
        return SETUPS[client](layout.root, agent, remove)
    except RecursionError:
        raise MemcliError("a settings file is nested too deeply to be changed safely; nothing changed") from None


BACKUPS = "setup-backup"  # in .memory/.vault: each file as it was before setup first changed it


def setup(
    layout: Layout, client: str, agent: str = DEFAULT_AGENT, remove: bool = False, lock_timeout: float = 10.0
) -> list[Change]:
    """Plan and apply under memcli's lock (two setups at once take turns); the changes made."""
    from memcli.storage.fsutil import file_lock

    layout.require()
    with file_lock(layout.lock_path, lock_timeout, layout.memory):
        changes = plan(layout, client, agent, remove)
        apply(layout, changes, remove)
    return changes


def _same(path: Path, a: str, b: str) -> bool:
    """Whether two versions of a file say the same (JSON: the same data; text: the same lines)."""
    if path.suffix == ".json":
        try:
            return json.loads(a.lstrip("\ufeff") or "{}") == json.loads(b.lstrip("\ufeff") or "{}")
        except ValueError:
            return False
    return a.replace("\r\n", "\n").strip() == b.replace("\r\n", "\n").strip()


def apply(layout: Layout, changes: list[Change], removing: bool = False) -> None:
    """Write every change, or none: each new content goes to a temporary file beside its target
    first; only when all of them are written are they renamed into place.

    The first change setup makes to a file of the user's keeps the file as it was in
    ``.memory/.vault/setup-backup/``.  A removal that leaves the file saying what it said then puts
    those very bytes back (formatting, escapes, line ends and all); one that leaves nothing in a
    file without a backup deletes it (setup created it, here or in another clone).
    """
    import contextlib

    from memcli.storage.fsutil import atomic_write, read_inside, remove, stage_write, sync_dir

    root = layout.root
    backups = layout.state / BACKUPS
    made: list[Path] = []  # folders made for this run: taken out again if it fails
    staged: list[tuple[str, Path]] = []
    deletions: list[Path] = []
    keep: dict[Path, bytes] = {}  # backups to write (first change to a file of the user's)
    restored: list[Path] = []  # backups used up
    try:
        for change in changes:
            relative = change.path.relative_to(root) if change.path.is_relative_to(root) else None
            backup = backups / relative if relative is not None else None
            saved = read_inside(backup, layout.memory) if backup is not None else None
            content = change.content
            if (
                removing
                and saved is not None
                and content is not None
                and _same(change.path, content, saved.decode("utf-8", "replace"))
            ):
                content = saved.decode("utf-8")  # what the user had, byte for byte
                restored.append(backup)
            elif content is None or (change.empty and saved is None):
                deletions.append(change.path)  # setup's own file, or one setup created
                continue
            elif not removing and saved is None and change.path.exists() and backup is not None:
                keep[backup] = change.path.read_bytes()
            parents = [change.path.parent, *change.path.parent.parents]  # the deepest first
            made.extend(d for d in parents if d.is_relative_to(root) and d != root and not d.exists())
            staged.append((stage_write(change.path, content, root), change.path))
    except (OSError, MemcliError, UnicodeError) as exc:
        for tmp, _ in staged:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        for folder in made:
            with contextlib.suppress(OSError):
                folder.rmdir()
        if isinstance(exc, MemcliError):
            raise MemcliError(f"{exc.message}; nothing changed") from None
        where = getattr(exc, "filename", None) or "the files"
        raise MemcliError(f"cannot write {where}: {getattr(exc, 'strerror', None) or exc}; nothing changed") from None
    for backup, data in keep.items():
        with contextlib.suppress(OSError, MemcliError):
            atomic_write(backup, data, layout.memory)
    for tmp, target in staged:
        os.replace(tmp, target)
        sync_dir(target.parent)
    for path in deletions:
        remove(path, root)
        _remove_empty_dirs(path.parent, root)
    for backup in restored + [backups / p.relative_to(root) for p in deletions if p.is_relative_to(root)]:
        with contextlib.suppress(OSError, MemcliError):
            remove(backup, layout.memory)


def _remove_empty_dirs(folder: Path, root: Path) -> None:
    """Folders a removal left empty (``.claude/``, ``.cursor/rules/``) go too."""
    while folder != root and folder.is_relative_to(root) and folder.name and not folder.is_symlink():
        try:
            folder.rmdir()
        except OSError:
            return
        folder = folder.parent
