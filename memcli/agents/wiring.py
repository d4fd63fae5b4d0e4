"""What every agent's wiring shares: the clients memcli sets up, the command their hooks run,
and the advice on writing memory that every agent reads."""

from __future__ import annotations

import json
import os
import re
import shlex
import sys
from pathlib import Path

from memcli.agents.files import Change, change_json, list_of, object_of, read_json, same_after_reorder, target

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
MARK = "memcli setup"  # in the comments that mark what setup wrote


def guide(agent: str) -> str:
    return GUIDE.format(agent=agent)


_AGENT_ARG = r"(?: --agent [a-z0-9][a-z0-9._-]*)?"
_PYTHON_ARG = r"(?P<python>'[^']*'|[^\s';&|]+)"


def hook_command(client: str, agent: str, python: str | None = None, user: bool = False) -> str:
    """What an agent's hook runs: memcli from the agent's PATH, else the Python that ran setup (an
    agent started from a desktop or by a service often has another PATH); nothing, quietly, if
    neither is there (nor when that Python no longer has memcli).  ``user``: the hook of the
    agent's user-level settings (``memcli setup --user``), which says ``--user``."""
    args = f"{client}" if agent == DEFAULT_AGENT else f"{client} --agent {agent}"
    args += " --user" if user else ""
    py = shlex.quote(python or sys.executable)
    return (
        f"if command -v memcli >/dev/null 2>&1; then {HOOK_COMMAND} {args};"
        f" elif [ -x {py} ]; then {py} -m memcli agent-hook {args} 2>/dev/null || true; fi"
    )


def _patterns(client: str, user: bool) -> tuple[re.Pattern, re.Pattern]:
    name = re.escape(client) + _AGENT_ARG + (" --user" if user else "")
    plain = re.compile(rf"{HOOK_COMMAND} {name}")  # what memcli 0.3 wrote (never with --user)
    fallback = re.compile(
        rf"if command -v memcli >/dev/null 2>&1; then {HOOK_COMMAND} (?P<args>{name});"
        rf" elif \[ -x {_PYTHON_ARG} \]; then (?P=python) -m memcli agent-hook (?P=args)"
        rf"(?: 2>/dev/null \|\| true)?; fi"
    )
    return plain, fallback


def is_ours(command: object, client: str, user: bool = False) -> bool:
    """Whether a hook command is one setup wrote (exactly its form: a command of the user's that
    merely starts the same way is the user's); ``user``: one ``setup --user`` wrote."""
    if not isinstance(command, str):
        return False
    plain, fallback = _patterns(client, user)
    return bool(fallback.fullmatch(command.strip()) or (not user and plain.fullmatch(command.strip())))


def our_commands(path: str | Path, client: str, events: set[str] | None = None) -> set[str]:
    """setup's hook commands for ``client`` in a hooks file (Claude Code's and Codex's groups, or
    Cursor's flat lists), in every event or the ``events`` named; none if it cannot be read."""
    try:
        with open(path, "rb") as handle:
            hooks = json.loads(handle.read(1 << 20).decode("utf-8").lstrip("\ufeff")).get("hooks")
    except (OSError, ValueError, AttributeError):
        return set()
    found = set()
    for event, entries in hooks.items() if isinstance(hooks, dict) else ():
        if events is not None and event not in events:
            continue
        for entry in entries if isinstance(entries, list) else ():
            inner = entry.get("hooks") if isinstance(entry, dict) and "hooks" in entry else [entry]
            for h in inner if isinstance(inner, list) else ():
                if isinstance(h, dict) and is_ours(h.get("command"), client):
                    found.add(h["command"])
    return found


def fallback_python(command: str, client: str, user: bool = False) -> str | None:
    """The Python a hook command of setup's falls back to (None for the plain form)."""
    match = _patterns(client, user)[1].fullmatch(command.strip())
    return shlex.split(match.group("python"))[0] if match else None


def chosen_command(existing: list[object], client: str, agent: str, user: bool = False) -> str:
    """The hook command to write: the one already there if it is setup's, for the same agent, and
    its fallback works on this machine (no churn when a teammate runs setup again), else a new one."""
    wanted = hook_command(client, agent, user=user)
    for command in existing:
        if isinstance(command, str) and is_ours(command, client, user):
            python = fallback_python(command, client, user)
            same_agent = hook_command(client, agent, python or "x", user) == command.strip()
            if python and same_agent and os.access(python, os.X_OK):
                return command.strip()
    return wanted


def reachable(command: str, client: str, user: bool = False) -> bool:
    """Whether a hook command of setup's finds memcli here (on PATH, or its fallback Python)."""
    import shutil

    if shutil.which("memcli"):
        return True
    python = fallback_python(command, client, user)
    return bool(python and os.access(python, os.X_OK))


MCP_SERVER = "memcli"


def mcp_entry(agent: str) -> dict:
    """memcli's MCP server as Claude Code's .mcp.json and Cursor's .cursor/mcp.json name it."""
    return {"command": "memcli", "args": ["mcp", "--agent", agent]}


def is_our_server(value: object) -> bool:
    """Whether an MCP server entry is one setup wrote (memcli's command running ``mcp``)."""
    return (
        isinstance(value, dict)
        and value.get("command") == "memcli"
        and isinstance(value.get("args"), list)
        and value["args"][:1] == ["mcp"]
    )


def mcp_servers(root: Path, relative: str, agent: str, remove: bool) -> list[Change]:
    """``{"mcpServers": {"memcli": {"command", "args"}}}`` in a project's MCP file, everything else
    kept; a server named memcli that setup did not write is the user's (refused, or left alone)."""
    from memcli.errors import MemcliError

    path = target(root, relative)
    before, like = read_json(path)
    config = json.loads(json.dumps(before or {}))
    servers = object_of(config, "mcpServers", path)
    current = servers.get(MCP_SERVER)
    if current is not None and not is_our_server(current):
        if remove:
            return []
        raise MemcliError(f"{path} already configures an MCP server named memcli; nothing changed")
    if remove:
        servers.pop(MCP_SERVER, None)
    else:
        servers[MCP_SERVER] = mcp_entry(agent)
    if servers:
        config["mcpServers"] = servers
    else:
        config.pop("mcpServers", None)
    change = change_json(path, before, config, relative, like)
    return [change] if change else []


def hook_groups(
    root: Path, relative: str, client: str, events: dict, agent: str, remove: bool, user: bool = False
) -> list[Change]:
    """``{"hooks": {Event: [{"matcher", "hooks": [{"type": "command", "command", "timeout"}]}]}}``
    with memcli's group in each event (or taken out), everything else kept as it was; ``user``:
    the user-level settings' hooks (``memcli setup --user``), ``root`` the agent's own folder."""
    path = target(root, relative)
    before, like = read_json(path)
    settings = json.loads(json.dumps(before or {}))  # a deep copy to change
    hooks = object_of(settings, "hooks", path)
    existing = [
        h.get("command")
        for groups in hooks.values()
        if isinstance(groups, list)
        for g in groups
        if isinstance(g, dict) and isinstance(g.get("hooks"), list)
        for h in g["hooks"]
        if isinstance(h, dict)
    ]
    command = chosen_command(existing, client, agent, user)
    for event, (matcher, timeout) in events.items():
        kept = []
        for group in list_of(hooks, event, path):
            if isinstance(group, dict) and isinstance(group.get("hooks"), list):
                others = [
                    h for h in group["hooks"] if not (isinstance(h, dict) and is_ours(h.get("command"), client, user))
                ]
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
    if before is not None and same_after_reorder(before, settings):
        return []  # ours were there already, the same: nothing to do (even their place is kept)
    change = change_json(path, before, settings, relative, like)
    return [change] if change else []
