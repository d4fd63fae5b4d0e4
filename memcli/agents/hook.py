"""``memcli agent-hook CLIENT [--agent ID]``: what a coding agent's own session hooks run.

The agent sends a JSON object on stdin that names the event (``hook_event_name``):

- a session starts (Claude Code's and Codex's ``SessionStart``, Cursor's ``sessionStart``): print
  the memory block for the agent, with a line on how to write memory — as plain text for Claude
  Code and Codex (they add a SessionStart hook's stdout to the context), as
  ``{"additional_context": …}`` for Cursor;
- before a compaction, after a turn (Cursor's and Codex's ``stop``) and at the end of a session:
  save the conversation from the transcript whose path the JSON gives (``transcript_path``), as
  ``memcli checkpoint`` does; at the end (``SessionEnd``, ``sessionEnd``) with ``--close``.

A hook must never fail or slow the agent: whatever goes wrong — no ``.memory/``, bad JSON, a
missing or unreadable transcript, another memcli holding the lock — it exits 0 and prints
nothing (``MEMCLI_DEBUG=1`` shows why on stderr).  Nothing is printed until all is done, so an
error never leaves half a block.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_INPUT = 1 << 20  # a hook's JSON is small; never read without end
READ_WAIT = 2.0  # seconds to wait for it, at most (an agent that never closes stdin)
# Claude Code keeps 10,000 characters of a hook's output and puts the rest in a file: the block
# must fit in that, whatever budget the project configured.
MAX_BLOCK_TOKENS = 2_300
MAX_BLOCK_UNITS = 9_500  # and at most this many UTF-16 units
START_EVENTS = {"SessionStart", "sessionStart"}
CLOSE_EVENTS = {"SessionEnd", "sessionEnd"}
SAVE_EVENTS = {"PreCompact", "preCompact", "Stop", "stop"} | CLOSE_EVENTS
# Where each agent says which project a hook runs for, when the JSON does not.
PROJECT_ENV = {"claude-code": "CLAUDE_PROJECT_DIR", "cursor": "CURSOR_PROJECT_DIR", "codex": None}
TRANSCRIPT_ENV = {"cursor": "CURSOR_TRANSCRIPT_PATH"}
LOCK_WAIT = 3.0  # seconds a save waits for another memcli's lock before it gives up (it saves again later)


def run(client: str, agent: str | None, dir_option: str | None, user: bool = False) -> int:
    """``memcli agent-hook CLIENT [--agent ID] [--user]`` (``memcli.main`` reads the arguments).
    ``--user``: the hook of the agent's user-level settings (``memcli setup --user``), which only
    prints the block at session start, and only where the project does not wire memcli's hook for
    this agent itself (its own hook prints the block there: once is enough)."""
    out = ""
    try:
        agent = _check(client, agent)
        payload = _payload()
        event = payload.get("hook_event_name")
        if user and (event not in START_EVENTS or _project_wires(client, payload)):
            raise _Skip("the user-level hook: nothing to do here")
        if event in START_EVENTS:
            out = _session_start(client, agent, payload, dir_option)
        elif event in SAVE_EVENTS:
            _save(client, agent, payload, dir_option, close=event in CLOSE_EVENTS)
    except BaseException as exc:  # never fail the agent: not even for a bug, nor a signal
        if os.environ.get("MEMCLI_DEBUG"):
            import traceback

            traceback.print_exception(type(exc), exc, exc.__traceback__)
        return 0
    if out:
        try:
            sys.stdout.write(out)
            sys.stdout.flush()
        except Exception:  # the agent stopped reading, or gave no stdout at all
            pass
    return 0


class _Skip(Exception):
    """Nothing to do (and nothing to say)."""


def _check(client: str, agent: str | None) -> str:
    """The agent id the session's memory is for (``dev`` unless named), once it is known valid."""
    from memcli.agents.wiring import CLIENTS, DEFAULT_AGENT
    from memcli.errors import MemcliError
    from memcli.storage.paths import validate_agent

    if client not in CLIENTS:
        raise _Skip("unknown client")
    agent = agent or DEFAULT_AGENT
    try:
        validate_agent(agent)  # it is printed into the agent's context: only a valid id
    except MemcliError:
        raise _Skip("invalid agent id") from None
    return agent


def _payload() -> dict[str, Any]:
    """The hook's JSON object from stdin: read until end of input, or until what came parses (an
    agent that keeps stdin open), for at most ``READ_WAIT`` seconds."""
    import json
    import select
    import time

    if sys.stdin is None or sys.stdin.isatty():
        raise _Skip("no hook JSON on stdin")
    fd = sys.stdin.fileno()
    deadline = time.monotonic() + READ_WAIT
    data = b""
    while True:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            break  # nothing more within the wait: take what came
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        data += chunk
        if len(data) > MAX_INPUT:
            raise _Skip("hook JSON too large")
        if data.rstrip().endswith(b"}"):
            try:
                payload = json.loads(data.decode("utf-8"))
                break
            except ValueError:
                continue  # not all of it yet
    payload = json.loads(data.decode("utf-8"))
    if not isinstance(payload, dict):
        raise _Skip("hook JSON is not an object")
    return payload


# The project files in which ``memcli setup CLIENT`` wires the hooks (Claude Code also reads a
# developer's own ``settings.local.json`` there).
PROJECT_HOOK_FILES = {
    "claude-code": (".claude/settings.json", ".claude/settings.local.json"),
    "cursor": (".cursor/hooks.json",),
    "codex": (".codex/hooks.json",),
}


def _starts(client: str, payload: dict[str, Any]) -> list[str]:
    """Where the agent says the session's project is, first first (its environment variable, the
    JSON's ``cwd``, its first workspace root), then the current folder: absolute paths only."""
    env = PROJECT_ENV.get(client)
    roots = payload.get("workspace_roots")
    given = (
        os.environ.get(env) if env else None,
        payload.get("cwd"),
        roots[0] if isinstance(roots, list) and roots else None,
        os.getcwd(),
    )
    return [s for s in given if isinstance(s, str) and os.path.isabs(s)]


def _project_wires(client: str, payload: dict[str, Any]) -> bool:
    """Whether the session's project wires memcli's own session-start hook for this agent
    (``memcli setup``), in its folder (for Codex, which reads every ``.codex/`` from the top of the
    git work tree down, in one above it too)."""
    from memcli.agents.wiring import our_commands

    folder = _starts(client, payload)[0]
    while True:
        for relative in PROJECT_HOOK_FILES[client]:
            if our_commands(os.path.join(folder, relative), client, START_EVENTS):
                return True
        parent = os.path.dirname(folder)
        if client != "codex" or parent == folder or os.path.lexists(os.path.join(folder, ".git")):
            return False
        folder = parent


def _layout(client: str, payload: dict[str, Any], dir_option: str | None):
    """The memory of the project the session runs in: --dir or MEMCLI_DIR, else the nearest
    ``.memory/`` above the project the agent names (its environment variable, the JSON's ``cwd`` or
    first workspace root), else above the current folder."""
    from pathlib import Path

    from memcli.errors import NotInitialized
    from memcli.storage.paths import find_layout

    if dir_option or os.environ.get("MEMCLI_DIR"):
        return find_layout(dir_option)
    for start in _starts(client, payload):
        try:
            return find_layout(start=Path(start))
        except NotInitialized:
            continue
    raise _Skip("no .memory/ for this session")


def _personal_warning(message: str) -> None:
    """The one warning a session hook says (on stderr, once): that the personal memory was left out
    (a misconfigured folder the developer must hear of); the block's other warnings stay quiet."""
    from memcli.storage.paths import PERSONAL_LEFT_OUT
    from memcli.storage.fsutil import warn

    if message.startswith(PERSONAL_LEFT_OUT):
        warn(message)


def _session_start(client: str, agent: str, payload: dict[str, Any], dir_option: str | None) -> str:
    from memcli.recall import block
    from memcli.config import Config, load_config
    from memcli.agents.wiring import SHORT_GUIDE

    try:
        layout = _layout(client, payload, dir_option)
    except _Skip:  # no memcli in this project: the developer's personal memory alone, if there is one
        from memcli.storage.paths import Layout, personal_layout

        if not personal_layout().exists():
            raise
        layout = Layout(os.getcwd())
    from memcli.recall.trust import provenance

    config = None
    if layout.exists():
        config = load_config(layout.memory) if not provenance(layout).config_held else None
    budget = min((config or Config()).inject_budget, MAX_BLOCK_TOKENS)  # a branch's config is not used
    # how to write memory, where there is a project memory to write to
    guide = SHORT_GUIDE.format(agent=agent) if layout.exists() else False
    while True:
        sel, _ = block.build(layout, agent, "", budget, guide, _personal_warning)
        text = sel.render()
        # Claude Code counts characters as JavaScript does (UTF-16 units): an emoji counts two.
        if len(text.encode("utf-16-le")) // 2 <= MAX_BLOCK_UNITS or budget <= 100:
            break
        budget = budget * 9 // 10
    if not text:
        return ""
    if client == "cursor":
        import json

        return json.dumps({"additional_context": text}, ensure_ascii=False) + "\n"
    return text


def _save(client: str, agent: str, payload: dict[str, Any], dir_option: str | None, close: bool) -> None:
    from memcli.capture import session
    from memcli.storage import conversations
    from memcli.storage.fsutil import decode_text
    from memcli.storage.store import Store

    path = payload.get("transcript_path")
    if not isinstance(path, str) or not path:
        path = os.environ.get(TRANSCRIPT_ENV.get(client) or "", "")
    if not path or not os.path.isfile(path):
        raise _Skip("no transcript")
    layout = _layout(client, payload, dir_option)
    with open(path, "rb") as handle:
        text = decode_text(handle.read(), path)
    messages, meta = conversations.parse_conversation(text, path)
    if not messages:
        raise _Skip("the transcript holds no messages")
    given = payload.get("session_id") or payload.get("conversation_id")
    chat_id = conversations._clean(given)[:200] if isinstance(given, str) and given else meta.get("chatId")
    from memcli.config import load_config

    config = load_config(layout.memory)
    config.vault_lock_timeout = min(config.vault_lock_timeout, LOCK_WAIT)
    store = Store(layout, config)
    from memcli.api import register_merge_driver

    store.before_first_write.append(register_merge_driver)
    store.written = []  # what the checkpoint stores, judged after it (judge_checkpoint)
    # Codex has no session-end event: its Stop, after every turn, also writes the handoff and the
    # insights (one handoff per session, replaced each time) but leaves the session open.
    summarise = close or (client == "codex" and payload.get("hook_event_name") == "Stop")
    session.save(
        store,
        agent,
        messages,
        chat_id,
        meta.get("modelId"),
        close,
        lambda message: None,
        activity=meta.get("activity"),
        summarise=summarise,
    )
    from memcli.api import judge_checkpoint

    judge_checkpoint(store, messages)
