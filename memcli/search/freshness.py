"""Whether the search index still matches the memory files: the manifest of what it indexed.

The index's unit is a category: ``agent/category`` stands for the AITEAM-X category file
``agent/category.md`` (if any) and every entry file in ``agent/category/``; ``agent/.removed`` for
memcli 0.1's removal records.  A manifest (``memcli-manifest.json``, inside the index folder)
records for each unit ``[files, quick, full, digest]``:

* ``quick``: the size and change time of the category file and the change time of the folder.
  Anything that adds, removes or renames an entry file changes the folder (git's checkout,
  merge and pull, memcli's atomic writes, editors that save by renaming): two stats a category;
* ``full``: a hash of every entry file's name, size and change time (the later of its
  modification and inode change times, so an edit in place that keeps the size and puts the
  modification time back still shows);
* ``digest``: the SHA-1 of the content, read only when ``full`` differs.

A check stats every folder (``quick``) and verifies ``full`` for every folder whose ``quick``
changed, and for the others too while the tree holds at most ``SWEEP_FILES`` entry files.  In a
larger tree the folders whose ``quick`` held are verified in turns, ``SWEEP_FILES`` files a check
(an edit in place, which changes no folder, is seen within files / SWEEP_FILES checks): a stat
costs about 2.5 us here, so stat'ing 100,000 files on every search would cost about 0.3 s.  The
check never imports tantivy.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from memcli.errors import MemcliError
from memcli.storage.fsutil import read_inside, warn
from memcli.storage.paths import Layout, may_be_agent

TYPE_CHECKING = False  # names for annotations only: the fast path never imports typing
if TYPE_CHECKING:
    from typing import Any

MANIFEST = "memcli-manifest.json"
# A manifest record, ``manifest["files"][unit]``, is the list ``[files, quick, full, digest]`` (see
# above), read through these names.  Kept a list, not a NamedTuple made on loading: at 100k entries
# (1,000 units) making the tuples cost 0.5 ms on every search.
FILES, QUICK, FULL, DIGEST = range(4)
SCHEMA_VERSION = 10  # of the index (10: recent marks; 9: marks and order; 8: entry files stamped by count, sizes and change times, no per-file hash; 2: the context field; 3: terms stemmed before indexing; 4: units are categories; 5: identifiers whole; 6: dates; 7: "timed" told from stems)
RACY_NS = 2_000_000_000  # a file modified this recently may change again within the same mtime tick


def sha1(data: bytes) -> str:
    """The SHA-1 of ``data`` in hex, from CPython's own module: hashlib (the same digest) imports
    OpenSSL's _hashlib too, 2.5-3.5 ms here against 0.3 ms, in every search that shows a hit."""
    if len(data) > 1 << 16:  # a large text: OpenSSL's is several times faster (an index build hashes every file)
        from hashlib import sha1 as new
    else:
        try:
            from _sha1 import sha1 as new  # type: ignore[import-not-found,no-redef]
        except ImportError:  # another Python than CPython
            from hashlib import sha1 as new

    return new(data).hexdigest()


def changed_ns(st: os.stat_result) -> int:
    """When a file last changed, as far as a stat can tell: its modification time, or its inode
    change time if later (that one no tool can set back: a same-size edit that keeps the
    modification time, by ``touch -r``, ``cp -p`` or ``rsync -a``, still shows)."""
    return max(st.st_mtime_ns, st.st_ctime_ns)


SWEEP_FILES = 1000  # entry files verified per check when the folder stamps held
CURSOR = "sweep-cursor"  # where the turns stand, in .vault/ (a hint: losing it costs nothing)


def quick_stamp(memory: str, agent: str, category: str, present: set[str] | frozenset[str] | None = None) -> str | None:
    """The category file's size and change time and the folder's change time ("" for what is
    missing); None when there is neither.  ``present``: the names in the agent's folder, when the
    caller listed it (then only what is there is stat'ed: a failed stat costs as much as a listing)."""
    base = f"{memory}/{agent}/{category}"
    parts = []
    found = False
    for path, with_size in ((base + ".md", True), (base, False)):
        if present is not None and path[len(memory) + len(agent) + 2 :] not in present:
            parts.append("")
            continue
        try:
            st = os.stat(path)
        except (FileNotFoundError, NotADirectoryError):
            parts.append("")
            continue
        found = True
        parts.append(f"{st.st_size}:{changed_ns(st)}" if with_size else str(changed_ns(st)))
    return "|".join(parts) if found else None


def full_stamp(memory: str, agent: str, category: str, quick: str) -> tuple[int, str, bool]:
    """(entry files, a digest of ``quick`` and of their count, total size, and the sum and the
    latest of their change times, whether one of them changed too recently to trust its time).

    No per-file record is needed: a file added, removed or renamed changes the folder (``quick``),
    and an edit in place sets the file's change time to now, later than every time recorded (a
    stamp is recorded only when its newest time is RACY_NS old), which moves the latest and the sum."""
    folder = f"{memory}/{agent}/{category}/"
    try:
        names = os.listdir(folder)
    except (FileNotFoundError, NotADirectoryError):
        names = []
    stat = os.stat
    count = size = total = newest = 0
    for name in names:
        if not name.endswith(".md") or name.startswith("."):
            continue
        try:
            st = stat(folder + name)
        except OSError:
            continue
        ns = st.st_mtime_ns if st.st_mtime_ns > st.st_ctime_ns else st.st_ctime_ns
        count += 1
        size += st.st_size
        total += ns
        if ns > newest:
            newest = ns
    return _stamp(quick, count, size, total, newest)


def stamp_of(quick: str, stamps: list[tuple[str, int, int]]) -> tuple[int, str, bool]:
    """``full_stamp`` from entry files' (name, size, change time), as stat'ed or as read."""
    return _stamp(
        quick, len(stamps), sum(s[1] for s in stamps), sum(s[2] for s in stamps), max((s[2] for s in stamps), default=0)
    )


def _stamp(quick: str, count: int, size: int, total: int, newest: int) -> tuple[int, str, bool]:
    # _blake2 alone: hashlib imports OpenSSL's _hashlib too (2.7-3.5 ms here), on every search.
    try:
        from _blake2 import blake2b
    except ImportError:  # another Python than CPython
        from hashlib import blake2b

    digest = blake2b(f"{quick}\n{count}:{size}:{total}:{newest}".encode("utf-8", "surrogateescape"), digest_size=12)
    return count, digest.hexdigest(), 0 <= time.time_ns() - newest < RACY_NS


def read_cursor(layout: Layout, name: str) -> int:
    """Where a sweep's turn starts (0 if unknown)."""
    try:
        with open(layout.state / name, "rb") as handle:
            value = handle.read(20).strip()
        return int(value) if value.isdigit() else 0
    except OSError:
        return 0


def save_cursor(layout: Layout, name: str, value: int) -> None:
    """Where the next turn starts, written in place (no fsync, no lock, no temporary file: a hint; a
    torn or lost write costs a turn started elsewhere, never a missed change for good)."""
    import contextlib

    path = layout.state / name
    with contextlib.suppress(OSError):
        if os.path.islink(layout.state) or os.path.islink(path) or not layout.state.is_dir():
            return
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
        try:
            os.pwrite(fd, str(value).ljust(20).encode(), 0)
        finally:
            os.close(fd)


def sweep(keys: list[str], sizes: dict[str, int], start: int) -> tuple[set[str], int]:
    """The keys to verify this turn, from ``start`` on, SWEEP_FILES files' worth (all of them when
    they hold no more than that), and where the next turn starts."""
    if not keys or sum(sizes.get(k, 1) for k in keys) <= SWEEP_FILES:
        return set(keys), start
    keys = sorted(keys)
    start %= len(keys)
    chosen: set[str] = set()
    budget, n = SWEEP_FILES, 0
    while budget > 0 and n < len(keys):
        key = keys[(start + n) % len(keys)]
        chosen.add(key)
        budget -= max(1, sizes.get(key, 1))
        n += 1
    return chosen, (start + n) % len(keys)


def join_sources(sources: list[tuple[str, bytes]]) -> bytes:
    """A unit's files as one text to hash: each name, then its bytes."""
    return b"".join(k.encode("utf-8", "surrogateescape") + b"\x00" + raw + b"\x00" for k, raw in sources)


class Freshness:
    """The memory files on disk against a manifest, for a layout and its categories."""

    def __init__(self, layout: Layout, categories: tuple[str, ...]):
        self.layout = layout
        self.categories = categories
        self._start: int | None = None  # this process's turn: a check again under the lock verifies the same

    def _agents(self) -> list[str]:
        memory = str(self.layout.memory)
        try:
            with os.scandir(memory) as entries:
                return [e.name for e in entries if may_be_agent(e.name) and e.is_dir()]
        except FileNotFoundError:
            return []

    def scan(self, agent: str | None = None) -> dict[str, str]:
        """``agent/category`` -> its quick stamp, and ``agent/.removed`` -> the file's size and
        change time, for everything on disk (of one agent, if given): a listing of the agent's
        folder, then a stat of what is there (at 1,000 categories 3 ms instead of 8 ms for a stat
        of every name that could be there)."""
        memory = str(self.layout.memory)
        found: dict[str, str] = {}
        stat, listdir = os.stat, os.listdir
        for agent in [agent] if agent else self._agents():
            base = f"{memory}/{agent}/"
            try:
                present = set(listdir(base))
            except (FileNotFoundError, NotADirectoryError):
                continue
            # quick_stamp, written out: at 1,000 categories its calls cost more than the stats
            for category in self.categories:
                md, folder = category + ".md", category in present
                if not folder and md not in present:
                    continue
                try:
                    st = stat(base + md) if md in present else None
                    head = (
                        f"{st.st_size}:{st.st_mtime_ns if st.st_mtime_ns > st.st_ctime_ns else st.st_ctime_ns}"
                        if st
                        else ""
                    )
                except (FileNotFoundError, NotADirectoryError):
                    head = ""
                try:
                    st = stat(base + category) if folder else None
                    tail = str(st.st_mtime_ns if st.st_mtime_ns > st.st_ctime_ns else st.st_ctime_ns) if st else ""
                except (FileNotFoundError, NotADirectoryError):
                    tail = ""
                if head or tail:
                    found[f"{agent}/{category}"] = f"{head}|{tail}"
            if ".removed" not in present:
                continue
            try:
                st = stat(base + ".removed")
            except (FileNotFoundError, NotADirectoryError):
                continue
            found[f"{agent}/.removed"] = f"{st.st_size}:{changed_ns(st)}"
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
        for rec in data["files"].values():  # a plain loop: nested generators cost 0.5 ms at 1,000 records
            if type(rec) is not list or len(rec) != 4 or type(rec[QUICK]) is not str:
                return None  # a record changed by hand: rebuild once, not fail every check
            if type(rec[FULL]) is not str or type(rec[DIGEST]) is not str:
                return None
        if any(data.get(key) != value for key, value in header.items()):
            return None
        return data

    def stamps(self, key: str, quick: str | None = None) -> tuple[int, str, str] | None:
        """(files, quick, full) of a unit now (None if it is gone); a stamp too recent to trust is
        recorded as "" so that the next check compares by content."""
        agent, name = key.split("/", 1)
        memory = str(self.layout.memory)
        if name == ".removed":
            try:
                st = os.stat(f"{memory}/{key}")
            except (FileNotFoundError, NotADirectoryError):
                return None
            stamp = f"{st.st_size}:{changed_ns(st)}"
            racy = 0 <= time.time_ns() - changed_ns(st) < RACY_NS
            return 1, "" if racy else stamp, "" if racy else stamp
        quick = quick if quick is not None else quick_stamp(memory, agent, name)
        if quick is None:
            return None
        return self.trusted(quick, full_stamp(memory, agent, name, quick))

    @staticmethod
    def trusted(quick: str, full: tuple[int, str, bool]) -> tuple[int, str, str]:
        """(files, quick, full) as recorded: a stamp too recent to trust is recorded as ""."""
        files, digest, racy = full
        racy = racy or any(
            part and 0 <= time.time_ns() - int(part.rsplit(":", 1)[-1]) < RACY_NS for part in quick.split("|")
        )
        return files, "" if racy else quick, "" if racy else digest

    def read(self, key: str) -> bytes | None:
        """A unit's bytes as one (the category file, then each entry file with its name), None if it
        is gone.  A file that a symlink leads outside is left out, with a warning."""
        agent, name = key.split("/", 1)
        if name == ".removed":
            try:
                return read_inside(self.layout.memory / key, self.layout.memory)
            except (FileNotFoundError, NotADirectoryError):
                return None
            except MemcliError as exc:
                warn(exc.message)
                return None
        from memcli.storage.store import category_sources

        try:
            sources = category_sources(self.layout.memory, agent, name)
        except MemcliError as exc:
            warn(exc.message)
            return None
        return join_sources(sources)

    @staticmethod
    def record(manifest: dict[str, Any], key: str, stamps: tuple[int, str, str], digest: str) -> None:
        manifest["files"][key] = [*stamps, digest]

    def _cursor(self) -> int:
        return read_cursor(self.layout, CURSOR)

    def _save_cursor(self, value: int) -> None:
        save_cursor(self.layout, CURSOR, value)

    def changed_files(
        self,
        manifest: dict[str, Any],
        agent: str | None = None,
        disk: dict[str, str] | None = None,
        verified: dict[str, tuple[int, str, bool]] | None = None,
    ) -> tuple[list[str], dict[str, list]]:
        """Units whose content differs from the manifest, and units whose stamps alone changed
        (key -> the new record); of one agent only, if given (what ``inject`` searches).  ``disk``:
        ``scan(agent)`` taken just now; ``verified``: ``full_stamp`` of units taken just now, which
        then stand for this check's turn (``status``: the summaries' turn serves the index's too)."""
        disk = self.scan(agent) if disk is None else disk
        known = manifest["files"]
        if agent:
            known = {k: v for k, v in known.items() if k.startswith(f"{agent}/")}
        changed: list[str] = []
        restat: dict[str, list] = {}
        held = [key for key, quick in disk.items() if (rec := known.get(key)) and rec[QUICK] == quick and quick]
        if verified is not None:
            turn = set(verified) & set(held)
        elif self._start is None:  # once per process: a check again under the lock verifies the same turn
            self._start = self._cursor()
            turn, after = sweep(held, {k: known[k][FILES] for k in held}, self._start)
            if after != self._start:
                self._save_cursor(after)
        else:
            turn, _ = sweep(held, {k: known[k][FILES] for k in held}, self._start)
        # A unit with no entry files (an AITEAM-X category file alone) is all in its quick stamp.
        verify = (set(disk) - set(held)) | {key for key in turn if known[key][FILES]}
        for key in verify:
            rec = known.get(key)
            if verified is not None and key in verified:
                stamps: tuple[int, str, str] | None = self.trusted(disk[key], verified[key])
            else:
                stamps = self.stamps(key, disk[key])
            if stamps is None:
                changed.append(key)
                continue
            if rec and rec[FULL] == stamps[FULL] and stamps[FULL]:
                if rec[QUICK] != stamps[QUICK]:
                    restat[key] = [*stamps, rec[DIGEST]]
                continue
            data = self.read(key)
            if data is None:
                changed.append(key)
                continue
            digest = sha1(data)
            if rec and rec[DIGEST] == digest:
                if list(stamps) != rec[:DIGEST]:
                    restat[key] = [*stamps, digest]
            else:
                changed.append(key)
        changed.extend(k for k in known if k not in disk)
        return changed, restat
