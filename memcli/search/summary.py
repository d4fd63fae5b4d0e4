"""What `list -n` and `status` need of each category, cached in ``.memory/.vault/summary.json``.

For every category: how many entries it holds, its open tasks, its newest date, its last real
handoff, and the ids of its newest entries (``HEAD``) with their sort keys.  An entry of the
cache is used only while the category's files (its category file, its folder and each entry
file: names, sizes and change times, the later of the modification and inode change times; and
the agent's legacy ``.removed`` file) are what they were when it was made (``freshness``'s
stamps); a category changed since, or changed too recently to trust its times, is read again.
Entry files of folders that did not change are verified in turns, as search verifies them
(``freshness.sweep``): all of them on every run while there are at most 1,000.  So a listing of
the newest entries or a status report stats the files and reads only those it must.  Deleting
the cache loses nothing.
"""

from __future__ import annotations

import json
import os
import time

from memcli.storage import vault
from memcli.search.freshness import RACY_NS, changed_ns, full_stamp, quick_stamp
from memcli.storage.citations import cited_paths
from memcli.storage.store import Store, current, is_compaction_summary

SUMMARY = "summary.json"
VERSION = 10  # 10: "head" kept as JSON text; 9: freshness stamps without a per-file hash; 8: "hidden" counts archived and replaced; 7: superseded by the successor's tag alone; 6: superseded left out; 5: the paths entries cite; 2: a category is its category file and its folder of entry files; 3: swept in turns; 4: archived left out
CURSOR = "summary-cursor"
HEAD = 20  # newest entries remembered per file: `list -n N` up to this is served from the cache


class Summaries:
    """``heads``: whether ``get`` gives each category's ``head`` (``list -n``); the cache keeps it
    as JSON text, read only when asked for (at 100k entries the heads are most of the cache's
    800 KB, and parsing them cost ``status`` 15-25 ms)."""

    def __init__(self, store: Store, heads: bool = True):
        self.store = store
        self.heads = heads
        self.path = store.layout.state / SUMMARY
        self.base = str(store.layout.memory)
        self.files: dict[str, list] = {}
        self.changed = False
        try:
            from memcli.storage.fsutil import read_inside

            data = json.loads(read_inside(self.path, store.layout.memory) or b"{}")
            if data.get("version") == VERSION and isinstance(data.get("files"), dict):
                self.files = data["files"]
        except Exception:  # a cache that cannot be read is rebuilt
            self.files = {}
        self._verify: set[str] | None = None
        self.verified: dict[str, tuple[int, str, bool]] = {}  # full_stamp of the categories looked at file by file

    def _due(self, key: str) -> bool:
        """Whether this run verifies ``key``'s entry files one by one (``freshness.sweep``: every
        category while the cache holds at most SWEEP_FILES entry files, else a turn of them), as
        search does: a category whose folder did not change can only have been edited in place."""
        if self._verify is None:
            from memcli.search.freshness import read_cursor, save_cursor, sweep

            sizes = {k: rec[3] for k, rec in self.files.items() if len(rec) > 3}
            start = read_cursor(self.store.layout, CURSOR)
            self._verify, after = sweep(list(sizes), sizes, start)
            if after != start:
                save_cursor(self.store.layout, CURSOR, after)
        return key in self._verify

    @staticmethod
    def _stat(path: str) -> list[int] | None:
        try:
            st = os.stat(path)
        except OSError:
            return None
        return [st.st_size, changed_ns(st)]

    def get(self, agent: str, category: str, disk: dict[str, str] | None = None) -> dict:
        """``{"entries", "open_tasks", "newest", "handoff": [id, date] | None, "head": [[key, id], ...]}``;
        ``disk``: the stamps ``Freshness.scan`` took of every unit just now (then nothing is stat'ed twice)."""
        key = f"{agent}/{category}"
        base = self.base  # plain strings: Path objects cost more than the stat at 1,000 files
        if disk is None:
            quick = quick_stamp(base, agent, category) or ""
            removed_stamp = self._stat(f"{base}/{agent}/.removed")
        else:
            quick = disk.get(key) or ""
            removed = disk.get(f"{agent}/.removed")
            removed_stamp = [int(n) for n in removed.split(":")] if removed else None
        cached = self.files.get(key)
        if cached and len(cached) > 3 and cached[2] == quick and cached[0][1] == removed_stamp and not self._due(key):
            return self._shown(cached[1])  # the folder did not change, and its files are not this run's turn
        files, full, racy = full_stamp(base, agent, category, quick)
        self.verified[key] = (files, full, racy)
        stamp: list = [full, removed_stamp]
        if cached and cached[0] == stamp and not racy:
            if len(cached) < 4 or cached[2] != quick:
                self.files[key] = [stamp, cached[1], quick, files]
                self.changed = True
            return self._shown(cached[1])
        every = self.store.read(agent, category)
        entries = current(every)  # what list, inject and open tasks see
        real = [e for e in entries if not is_compaction_summary(e)] if category == "handoffs" else []
        info = {
            "entries": len(every),
            "hidden": len(every) - len(entries),  # archived, or replaced by a newer version
            "open_tasks": sum(len(vault.open_tasks(e.body)) for e in entries),
            "newest": entries[0].header_date if entries else None,
            "handoff": [real[0].id, real[0].header_date] if real else None,
            "head": [[vault.newest_first(e), e.id] for e in entries[:HEAD]],
            "cites": [[e.id, paths] for e in entries if (paths := cited_paths(e.body))],
        }
        now = time.time_ns()
        quick_times = [int(p.rsplit(":", 1)[-1]) for p in quick.split("|") if p]
        if (
            not racy
            and (removed_stamp is None or now - removed_stamp[1] >= RACY_NS)
            and all(now - t >= RACY_NS for t in quick_times)
        ):
            kept = {**info, "head": json.dumps(info["head"], separators=(",", ":"))}
            self.files[key] = [stamp, kept, quick, files]
            self.changed = True
        return info

    def _shown(self, kept: dict) -> dict:
        """A cached summary as ``get`` gives it (the head read from its text only when wanted)."""
        if not self.heads:
            return kept
        head = kept.get("head")
        return {**kept, "head": json.loads(head) if isinstance(head, str) else head or []}

    def save(self) -> None:
        """Write the cache back if it learnt something (never an error: it is only a cache)."""
        if not self.changed or not self.store.layout.exists():
            return
        from memcli.storage.fsutil import atomic_write

        known = {f"{a}/{c}" for a in self.store.agents() for c in self.store.categories}
        files = {k: v for k, v in self.files.items() if k in known}
        try:
            atomic_write(
                self.path,
                json.dumps({"version": VERSION, "files": files}, separators=(",", ":")),
                self.store.layout.memory,
            )
        except Exception:
            pass
