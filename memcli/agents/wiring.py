"""What every agent's wiring shares: the clients memcli sets up, the command their hooks run,
and the advice on writing memory that every agent reads."""

from __future__ import annotations

import json
import re
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


def hook_command(client: str, agent: str) -> str:
    command = f"{HOOK_COMMAND} {client}"
    return command if agent == DEFAULT_AGENT else f"{command} --agent {agent}"


def is_ours(command: object, client: str) -> bool:
    """Whether a hook command is one setup wrote (exactly its form: a command of the user's that
    merely starts the same way is the user's)."""
    if not isinstance(command, str):
        return False
    return (
        re.fullmatch(rf"{HOOK_COMMAND} {re.escape(client)}(?: --agent [a-z0-9][a-z0-9._-]*)?", command.strip())
        is not None
    )


def hook_groups(root: Path, relative: str, client: str, events: dict, agent: str, remove: bool) -> list[Change]:
    """``{"hooks": {Event: [{"matcher", "hooks": [{"type": "command", "command", "timeout"}]}]}}``
    with memcli's group in each event (or taken out), everything else kept as it was."""
    path = target(root, relative)
    before, like = read_json(path)
    settings = json.loads(json.dumps(before or {}))  # a deep copy to change
    hooks = object_of(settings, "hooks", path)
    command = hook_command(client, agent)
    for event, (matcher, timeout) in events.items():
        kept = []
        for group in list_of(hooks, event, path):
            if isinstance(group, dict) and isinstance(group.get("hooks"), list):
                others = [h for h in group["hooks"] if not (isinstance(h, dict) and is_ours(h.get("command"), client))]
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
