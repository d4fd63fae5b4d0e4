"""Cursor: memcli's hooks in ``.cursor/hooks.json`` and its always-applied rule."""

from __future__ import annotations

import json
from pathlib import Path

from memcli.agents.files import (
    Change,
    change_json,
    list_of,
    object_of,
    read_json,
    read_text,
    same_after_reorder,
    target,
)
from memcli.agents.wiring import MARK, chosen_command, guide, is_ours, mcp_servers
from memcli.errors import MemcliError

CURSOR_HOOKS = ".cursor/hooks.json"
CURSOR_RULE = ".cursor/rules/memcli.mdc"
CURSOR_MCP = ".cursor/mcp.json"  # the project's MCP servers
# Only event names Cursor knows: one unknown name makes Cursor ignore the whole file.
# sessionStart's ``additional_context`` goes into the conversation; the rest save it from the
# transcript (``stop`` after each turn of an interactive session, which ``-p`` mode does not fire;
# ``sessionEnd`` at the end, with the handoff).
CURSOR_EVENTS = {"sessionStart": 10, "preCompact": 60, "stop": 60, "sessionEnd": 60}
RULE_MARK = f"<!-- written by `{MARK} cursor`;"  # the rule file's own line: setup owns the file


def changes(root: Path, agent: str, remove: bool) -> list[Change]:
    changes = hooks(root, CURSOR_HOOKS, CURSOR_EVENTS, agent, remove)
    rule = target(root, CURSOR_RULE, markdown=True)
    current = read_text(rule)
    if current is not None and not any(line.startswith(RULE_MARK) for line in current.splitlines()):
        raise MemcliError(f"{rule} exists and memcli did not write it; move it away first, nothing changed")
    wanted = None if remove else rule_text(agent)
    if current != wanted and not (current is None and wanted is None):
        note = "removed" if wanted is None else ("created" if current is None else "updated")
        changes.append(Change(rule, wanted, f"{note} {CURSOR_RULE}"))
    changes.extend(mcp_servers(root, CURSOR_MCP, agent, remove))
    return changes


def hooks(root: Path, relative: str, events: dict, agent: str, remove: bool, user: bool = False) -> list[Change]:
    """memcli's hook in each event of a ``hooks.json`` (or taken out), everything else kept; ``user``:
    the user-level file (``memcli setup --user``), ``root`` the folder it is in."""
    path = target(root, relative)
    before, like = read_json(path)
    config = json.loads(json.dumps(before or {}))
    found = object_of(config, "hooks", path)
    existing = [h.get("command") for hs in found.values() if isinstance(hs, list) for h in hs if isinstance(h, dict)]
    command = chosen_command(existing, "cursor", agent, user)
    for event, timeout in events.items():
        kept = [
            h
            for h in list_of(found, event, path)
            if not (isinstance(h, dict) and is_ours(h.get("command"), "cursor", user))
        ]
        if not remove:
            kept.append({"command": command, "timeout": timeout})
        if kept:
            found[event] = kept
        else:
            found.pop(event, None)
    if found:
        config = {"version": config.get("version", 1), **config, "hooks": found}
    else:
        config.pop("hooks", None)
    if before is not None and same_after_reorder(before, config):
        return []
    change = change_json(path, before, config, relative, like, empty={"version": config.get("version", 1)})
    return [change] if change else []


def rule_text(agent: str) -> str:
    return (
        "---\n"
        "description: How to read and write this project's memory with memcli\n"
        "alwaysApply: true\n"
        "---\n"
        f"{RULE_MARK} `{MARK} cursor --remove` takes it out -->\n\n" + guide(agent)
    )
