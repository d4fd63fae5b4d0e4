"""How recently each entry was used (injected into a block, or shown): ``.memory/.vault/usage.json``.

Local to the clone, never tracked, so nothing here can conflict; compaction keeps recently used
entries before the newest ones.  ``{"agent": {"id": last use in ms}}``.  Written without the lock
(a use recorded by two processes at once may keep only one of the two times: a heuristic loses
nothing that matters), atomically but without fsync (``fsutil.write_hint``), never an error.
"""

from __future__ import annotations

import json
import time

from memcli.storage.paths import Layout

FILE = "usage.json"


def read(layout: Layout) -> dict[str, dict[str, int]]:
    from memcli.storage.fsutil import read_inside

    try:
        data = json.loads(read_inside(layout.state / FILE, layout.memory) or b"{}")
    except Exception:
        return {}
    return data if isinstance(data, dict) else {}


def record(layout: Layout, agent: str, ids: list[int]) -> None:
    """Note that these entries of ``agent`` were used now."""
    if not ids or not layout.state.is_dir():
        return
    try:
        from memcli.storage.fsutil import write_hint

        data = read(layout)
        now = time.time_ns() // 1_000_000
        used = data.get(agent)
        if not isinstance(used, dict):
            used = data[agent] = {}
        for entry_id in ids:
            used[str(entry_id)] = now
        write_hint(layout.state / FILE, json.dumps(data, separators=(",", ":")), layout.memory)
    except Exception:
        pass  # only a hint for compaction


def last_used(layout: Layout, agent: str) -> dict[int, int]:
    """Entry id -> when it was last used (ms), for one agent."""
    used = read(layout).get(agent)
    if not isinstance(used, dict):
        return {}
    return {int(k): v for k, v in used.items() if k.isdigit() and isinstance(v, int)}
