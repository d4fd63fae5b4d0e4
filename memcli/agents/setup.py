"""``memcli setup``: wiring memcli into coding agents' own extension points.

One module knows each agent's files: ``claude_code`` (``.claude/settings.json`` hooks),
``cursor`` (``.cursor/hooks.json`` and ``.cursor/rules/memcli.mdc``) and ``codex`` (an
``AGENTS.md`` section, its MCP configuration and hooks).  ``plan`` works out every file's new
content first (a file it cannot read or parse stops everything, with nothing written);
``files.apply`` then writes them all or none.  Running setup twice changes nothing;
``remove=True`` takes out exactly what setup put in (memcli's hook entries, its marked
section, its own rule file) and keeps everything else.

What the hooks run, ``memcli agent-hook CLIENT --agent ID``, is ``memcli.agents.hook``.
"""

from __future__ import annotations

from memcli.agents import claude_code, codex, cursor
from memcli.agents.files import Change, apply
from memcli.agents.wiring import CLIENTS, DEFAULT_AGENT
from memcli.errors import MemcliError
from memcli.storage.paths import Layout, validate_agent

SETUPS = {"claude-code": claude_code.changes, "cursor": cursor.changes, "codex": codex.changes}


def plan(layout: Layout, client: str, agent: str = DEFAULT_AGENT, remove: bool = False) -> list[Change]:
    if client not in SETUPS:
        raise MemcliError(f"unknown agent {client!r}; memcli sets up: {', '.join(CLIENTS)}")
    validate_agent(agent)
    layout.require()
    try:
        return SETUPS[client](layout.root, agent, remove)
    except RecursionError:
        raise MemcliError("a settings file is nested too deeply to be changed safely; nothing changed") from None


HOOK_FILES = {"claude-code": ".claude/settings.json", "cursor": ".cursor/hooks.json", "codex": ".codex/hooks.json"}


def check(layout: Layout, client: str, agent: str = DEFAULT_AGENT) -> list[str]:
    """What is missing or broken in a client's wiring (nothing: intact): every file setup would
    change, and hooks that cannot find memcli on this machine."""
    import json
    import os

    from memcli.agents.wiring import is_ours, reachable

    problems = [
        f"{os.path.relpath(c.path, layout.root)}: not as `memcli setup {client}` leaves it (it would have {c.note})"
        for c in plan(layout, client, agent)
    ]
    hooks_file = layout.root / HOOK_FILES[client]
    try:
        hooks = json.loads(hooks_file.read_text(encoding="utf-8").lstrip("\ufeff")).get("hooks", {})
    except (OSError, ValueError, AttributeError):
        hooks = {}
    commands = set()
    for entries in hooks.values() if isinstance(hooks, dict) else ():
        for entry in entries if isinstance(entries, list) else ():
            inner = entry.get("hooks") if isinstance(entry, dict) and "hooks" in entry else [entry]
            for h in inner if isinstance(inner, list) else ():
                if isinstance(h, dict) and is_ours(h.get("command"), client):
                    commands.add(h["command"])
    for command in sorted(commands):
        if not reachable(command, client):
            problems.append(
                f"{HOOK_FILES[client]}: the hooks find no memcli here (not on PATH, and the Python they fall back to"
                f" is not this machine's): run `memcli setup {client}` here"
            )
            break
    return problems


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
