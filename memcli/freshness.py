"""Whether the search index still matches the vault files: the manifest of what it indexed.

A manifest (``memcli-manifest.json``, inside the index folder) records, for every vault
file indexed, its size, modification time and SHA-1, under a header that says what made
the index (schema, tantivy version, categories).  ``changed_files`` stats every vault file
and hashes only those whose size or time differ: a no-change check at 1,000 files costs a
few milliseconds and never imports tantivy.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from memcli.errors import MemcliError
from memcli.fsutil import read_inside, warn
from memcli.paths import Layout

TYPE_CHECKING = False  # names for annotations only: the fast path never imports typing
if TYPE_CHECKING:
    from typing import Any

MANIFEST = "memcli-manifest.json"
SCHEMA_VERSION = 3  # of the index's documents (2: the context field; 3: terms stemmed before indexing)
RACY_NS = 2_000_000_000  # a file modified this recently may change again within the same mtime tick


def sha1(data: bytes) -> str:
    import hashlib  # only when a file changed: a no-change check never needs it

    return hashlib.sha1(data).hexdigest()


def changed_ns(st: os.stat_result) -> int:
    """When a file last changed, as far as a stat can tell: its modification time, or its inode
    change time if later (that one no tool can set back: a same-size edit that keeps the
    modification time, by ``touch -r``, ``cp -p`` or ``rsync -a``, still shows)."""
    return max(st.st_mtime_ns, st.st_ctime_ns)


class Freshness:
    """The vault files on disk against a manifest, for a layout and its categories."""

    def __init__(self, layout: Layout, categories: tuple[str, ...]):
        self.layout = layout
        self.categories = categories

    def scan(self) -> dict[str, tuple[int, int]]:
        """``agent/category.md`` and ``agent/.removed`` -> (size, mtime_ns) for every file on disk.

        One directory listing, then a stat per expected file name: at 1,000 vault files this
        is the bulk of the no-change freshness check (about 2 ms here).
        """
        memory = str(self.layout.memory)
        try:
            with os.scandir(memory) as entries:
                agents = [
                    e.name
                    for e in entries
                    if not e.name.startswith((".", "_")) and e.name != "conversations" and e.is_dir()
                ]
        except FileNotFoundError:
            return {}
        names = [f"{c}.md" for c in self.categories] + [".removed"]
        found: dict[str, tuple[int, int]] = {}
        stat = os.stat
        for agent in agents:
            base = f"{memory}/{agent}/"
            for name in names:
                try:
                    st = stat(base + name)
                except (FileNotFoundError, NotADirectoryError):
                    continue
                found[f"{agent}/{name}"] = (st.st_size, changed_ns(st))
        return found

    def load_manifest(self, path: Path, header: dict[str, Any]) -> dict[str, Any] | None:
        """The manifest at ``path`` if it is whole and was made as ``header`` says (every key of
        ``header`` equal), else None."""
        try:
            data = json.loads(read_inside(path, self.layout.memory) or b"")
        except (OSError, ValueError, MemcliError):
            return None
        if not isinstance(data, dict) or not isinstance(data.get("files"), dict):
            return None
        if not all(type(rec) is list and len(rec) == 3 for rec in data["files"].values()):
            return None  # a record changed by hand: rebuild once, not fail every check
        if any(data.get(key) != value for key, value in header.items()):
            return None
        return data

    @staticmethod
    def record(manifest: dict[str, Any], key: str, stat: tuple[int, int], digest: str) -> None:
        size, mtime = stat
        if 0 <= time.time_ns() - mtime < RACY_NS:
            mtime = -1  # too recent to trust: compare by content next time (a future mtime is kept)
        manifest["files"][key] = [size, mtime, digest]

    def read(self, key: str) -> tuple[bytes, tuple[int, int]] | None:
        """A vault file's bytes and (size, mtime); None if missing or if a symlink leads it outside."""
        path = self.layout.memory / key
        try:
            st = path.stat()
            data = read_inside(path, self.layout.memory)
        except (FileNotFoundError, NotADirectoryError):
            return None
        except MemcliError as exc:  # a symlink leading outside, a folder: skipped, said once
            warn(exc.message)
            return None
        return (data, (st.st_size, changed_ns(st))) if data is not None else None

    def changed_files(self, manifest: dict[str, Any]) -> tuple[list[str], dict[str, list]]:
        """Files whose content differs from the manifest, and files whose stat alone changed."""
        disk = self.scan()
        known = manifest["files"]
        changed: list[str] = []
        restat: dict[str, list] = {}
        for key, (size, mtime) in disk.items():
            rec = known.get(key)
            if rec and rec[0] == size and rec[1] == mtime:
                continue
            read = self.read(key)
            if read is None:
                changed.append(key)
                continue
            digest = sha1(read[0])
            if rec and rec[2] == digest:
                restat[key] = [size, mtime, digest]
            else:
                changed.append(key)
        changed.extend(k for k in known if k not in disk)
        return changed, restat
