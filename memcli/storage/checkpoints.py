"""Checkpoints: ``.memory/.vault/checkpoints/<agent>.json``, the AITEAM-X shape.

``{"agentId", "savedAt" (ms), "messages" (the last 50 {role, text}), "chatId", "modelId"}``;
valid for 7 days by default.  A corrupt checkpoint counts as none.  memcli adds ``session``: the
name of the conversation file the session writes to (``conversations/<agent>/<session>``), and
``closed`` once ``checkpoint --close`` ended it, so that the next conversation gets a file of its own.
"""

from __future__ import annotations

import time
from pathlib import Path
import json

from memcli.storage.fsutil import atomic_write
from memcli.storage.paths import Layout, validate_agent

TYPE_CHECKING = False  # names for annotations only: the fast path never imports typing
if TYPE_CHECKING:
    from typing import Any

DAY_MS = 86_400_000


def checkpoint_path(layout: Layout, agent: str) -> Path:
    return layout.checkpoints / f"{validate_agent(agent)}.json"


def save_checkpoint(
    layout: Layout,
    agent: str,
    messages: list[dict[str, Any]],
    keep: int,
    chat_id: str | None = None,
    model_id: str | None = None,
    now_ms: int | None = None,
    session: str | None = None,
    closed: bool = False,
) -> dict[str, Any]:
    data: dict[str, Any] = {
        "agentId": agent,
        "savedAt": now_ms if now_ms is not None else int(time.time() * 1000),
        "messages": [{"role": m["role"], "text": m["text"]} for m in messages[-keep:]],
    }
    if chat_id:
        data["chatId"] = chat_id
    if model_id:
        data["modelId"] = model_id
    if session:
        data["session"] = session
    if closed:
        data["closed"] = True
    path = checkpoint_path(layout, agent)
    atomic_write(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n", layout.memory)
    return data


def read_checkpoint(path: Path, within: Path) -> dict[str, Any] | None:
    """The checkpoint in ``path`` if it is well-formed (and inside ``within``), else None."""
    import math

    from memcli.errors import MemcliError
    from memcli.storage.fsutil import read_inside

    try:
        data = json.loads(read_inside(path, within) or b"")
    except (OSError, ValueError, RecursionError, MemcliError):
        return None
    if (
        not isinstance(data, dict)
        or not isinstance(data.get("savedAt"), (int, float))
        or isinstance(data.get("savedAt"), bool)
        or not math.isfinite(data["savedAt"])
        or not isinstance(data.get("messages"), list)
        or not all(isinstance(m, dict) and isinstance(m.get("text"), str) for m in data["messages"])
    ):
        return None
    return data


def checkpoint_age_ms(data: dict[str, Any], now_ms: int | None = None) -> int:
    return (now_ms if now_ms is not None else int(time.time() * 1000)) - int(data["savedAt"])


def recover(layout: Layout, agent: str, max_age_days: float, now_ms: int | None = None) -> dict[str, Any] | None:
    """The agent's checkpoint if it exists, parses and is younger than ``max_age_days``."""
    data = read_checkpoint(checkpoint_path(layout, agent), layout.memory)
    if data is None or checkpoint_age_ms(data, now_ms) >= max_age_days * DAY_MS:
        return None
    return data


def current_session(layout: Layout, agent: str, chat_id: str | None, max_age_days: float) -> str | None:
    """The conversation file of the agent's running session, if a checkpoint of it is valid, was
    not closed, is of the same chat (no chat id on either side counts as the same) and its file is
    there; else None: a new session.  A file that is gone (``git checkout`` of another branch)
    means a new file: two branches never write a file of the same name."""
    from memcli.storage.conversations import is_session_name, session_dir

    data = recover(layout, agent, max_age_days)
    if data is None or data.get("closed") or not is_session_name(data.get("session")):
        return None
    if (data.get("chatId") or None) != (chat_id or None):
        return None
    if not (session_dir(layout, agent) / data["session"]).is_file():
        return None
    return data["session"]
