"""The record ``compact`` leaves in ``.memory/.vault/compact-log.json``: when it last ran and what
it did.  Read by ``status`` and by the pre-commit hook (is compaction due?) without importing
the compaction itself."""

from __future__ import annotations

import json
import time
from datetime import datetime

from memcli.storage.fsutil import read_inside
from memcli.storage.store import Store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

LOG = "compact-log.json"


def last_run(store: Store) -> dict[str, Any] | None:
    try:
        data = json.loads(read_inside(store.layout.state / LOG, store.layout.memory) or b"")
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def is_due(store: Store, now: float | None = None) -> bool:
    data = last_run(store)
    if not data or not isinstance(data.get("timestamp"), str):
        return True
    try:
        then = datetime.fromisoformat(data["timestamp"].replace("Z", "+00:00")).timestamp()
    except ValueError:
        return True
    return (now or time.time()) - then >= store.config.compact_interval_minutes * 60
