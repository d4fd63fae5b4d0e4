"""Entries on disk: read, add, update and remove.

One file per memory: an entry lives in ``<agent>/<category>/<id>-<slug>.md`` (the entry format of
AITEAM-X, one entry per file), so two branches that each add, edit or remove different memories
touch different files and merge with no conflict, with or without memcli's merge driver (a
hosting service runs none).  AITEAM-X category files (``<agent>/<category>.md``, one file for a
whole category) are still read, and their entries edited and removed in place; memcli never
writes a new entry into one (``memcli migrate`` moves their entries into entry files).

Reads never take the lock.  Every write takes the memory lock, re-reads what it changes and
replaces files atomically, so concurrent processes never lose an entry.  A removal takes the
entry out of its file; a file left with no entry is deleted, or, where the current commit holds
it, left empty (a tombstone: see ``_kept_when_emptied``) so that a branch that edited it merges.
``<agent>/.removed`` files written by memcli 0.1 are still honoured, and ``compact`` applies them.
"""

from __future__ import annotations

import contextlib
import os
import re
import time
from pathlib import Path

from memcli.storage import vault
from memcli.config import Config, load_config
from memcli.errors import MemcliError, NotFound, VaultFormatError
from memcli.storage.fsutil import (
    NotAFile,
    clean_stale_temp,
    is_temp_name,
    OutsideMemory,
    is_inside,
    atomic_write,
    decode_text,
    file_lock,
    read_inside,
    read_text,
    remove,
    warn,
)
from memcli.storage.paths import Layout, may_be_agent, validate_agent, validate_category
from memcli.storage.vault import Entry

TYPE_CHECKING = False  # names for annotations only: the fast path never imports typing
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator


COMPACTED_TAG = "compacted"


ARCHIVED_TAG = "archived"  # out of inject, list and search (found with --archived); kept in git
PINNED_TAG = "pinned"  # injected first for its agent; never folded into a compaction summary


IMPORTED = "imported-"  # + a digest of the source text an entry came in from (``upkeep.imports.import_tag``)
SUPERSEDES = "supersedes-"  # + the predecessor's id: on the entry that replaces it (the old file is never touched)


def is_state_tag(tag: str) -> bool:
    """Whether a tag is one of memcli's own, which says an entry's state (archived, pinned, a
    compaction summary, imported from a text, superseding another)."""
    low = tag.lower()
    return low in (ARCHIVED_TAG, PINNED_TAG, COMPACTED_TAG) or low.startswith((IMPORTED, SUPERSEDES))


def text_tags(body: str) -> list[str]:
    """A text's #hashtags as its tags, memcli's state tags left out: a text never archives, pins or
    supersedes anything by saying so.  "Use the #pinned tag for standing rules" in a CLAUDE.md rule,
    a model's ``add``, a line extracted from a session, "… #supersedes-<id>" typed to hide a
    decision: the words stay in the text, and only ``pin``, ``archive`` and ``supersede`` change state."""
    return [t for t in vault.hashtags(body) if not is_state_tag(t)]


def predecessors(tags: list[str]) -> list[int]:
    """The ids of the entries this one replaces (its ``supersedes-OLD`` tags)."""
    out = []
    for tag in tags:
        rest = tag[len(SUPERSEDES) :] if tag.startswith(SUPERSEDES) else ""
        if vault.is_id(rest):
            out.append(int(rest))
    return out


def replaced(entries: Iterable[tuple[int, list[str]]]) -> dict[int, int]:
    """Which entries of one category a newer version replaces: each replaced id -> the id of the
    newest version.  Only the new entry says what it replaces (``supersedes-OLD``), so superseding
    adds a file and edits none: it merges anywhere, a driver or not.  The versions linked by such
    tags are one memory, shown once, as its newest version (the highest id): where two branches
    each superseded the same entry, the newer successor is shown and the other is kept, as every
    version is.  A tag that names a newer (or the same) id is ignored, so there is no cycle."""
    parent: dict[int, int] = {}

    def root(x: int) -> int:
        while parent.get(x, x) != x:
            parent[x] = parent.get(parent[x], parent[x])
            x = parent[x]
        return x

    for entry_id, tags in entries:
        for old in predecessors(tags):
            if old < entry_id:
                a, b = root(old), root(entry_id)
                parent.setdefault(a, a)
                parent.setdefault(b, b)
                if a != b:
                    parent[min(a, b)] = max(a, b)  # a root is its group's newest id
    return {x: root(x) for x in parent if root(x) != x}


def current(entries: list[Entry]) -> list[Entry]:
    """What inject, list and search show of ONE WHOLE category's entries: neither archived nor
    replaced by a newer version (``replaced`` needs every entry of the category)."""
    gone = replaced((e.id, e.tags) for e in entries)
    return [e for e in entries if ARCHIVED_TAG not in e.tags and e.id not in gone]


def is_compaction_summary(entry: Entry) -> bool:
    """What ``compact`` wrote to stand for older entries or trimmed messages."""
    return COMPACTED_TAG in entry.tags and entry.body.startswith(("Compacted ", "Session compacted "))


def _check_storable(body: str, tags: list[str] | None) -> None:
    """The last guard of every vault write: no NUL byte (a file holding one cannot be read back),
    no tag with a space or a control character."""
    if "\x00" in body:
        raise MemcliError("the text holds NUL bytes; nothing written")
    for tag in tags or ():
        if not tag or any(ch.isspace() or ord(ch) < 32 for ch in tag):
            raise MemcliError(f"invalid tag {tag!r}: tags are single words without spaces")


def check_content(body: str, tags: list[str]) -> None:
    """The content rules (``memcli.storage.guard``) on new text: invisible characters and hijack
    patterns are refused with one line, but for the rules the entry's ``allow-RULE`` tags allow."""
    from memcli.storage import guard

    guard.check(body, guard.allowed_rules(tags))


def _size(n: int) -> str:
    return f"{n / 1_048_576:.1f} MB" if n >= 1_048_576 else f"{n / 1024:.0f} KB" if n >= 1024 else f"{n} bytes"


class Located:
    """An entry together with where it lives."""

    __slots__ = ("agent", "category", "entry")

    def __init__(self, agent: str, category: str, entry: Entry):
        self.agent, self.category, self.entry = agent, category, entry

    def __repr__(self) -> str:
        return f"Located({self.agent!r}, {self.category!r}, {self.entry!r})"


_SLUG_WORD_RE = re.compile(r"[a-z0-9]+")
SLUG_CHARS = 40


MIGRATE_HINT = (
    "{files} in the AITEAM-X layout (one file per category): `memcli migrate` moves their entries into"
    " files of their own, so that pull requests merged without memcli's merge driver never conflict"
)


def slug(body: str) -> str:
    """A few words of an entry's first line, for a file name a person can browse: lower-case
    ASCII letters and digits joined by '-', at most SLUG_CHARS characters ("" if none)."""
    import unicodedata

    line = next((raw for raw in body.splitlines() if raw.strip()), "")
    if not line.isascii():
        line = unicodedata.normalize("NFKD", line).encode("ascii", "ignore").decode()
    out = ""
    for word in _SLUG_WORD_RE.findall(line.lower()):
        candidate = f"{out}-{word}" if out else word
        if len(candidate) > SLUG_CHARS:
            break
        out = candidate
    return out or ""


def entry_file_name(entry: Entry) -> str:
    """``<id>-<slug>.md``: ids are times, so names sort by age; fixed when the file is made."""
    words = slug(entry.body)
    return f"{entry.id}-{words}.md" if words else f"{entry.id}.md"


def read_vault_file(path: Path, within: Path) -> list[Entry]:
    """The entries of a vault file ([] if there is none).  A file that a symlink leads outside
    ``within`` (the memory folder) is skipped with a warning, never read."""
    try:
        raw = read_inside(path, within)
    except OutsideMemory as exc:
        warn(exc.message)
        return []
    except NotAFile:
        raise VaultFormatError(f"{path} is a folder, not a vault file") from None
    return parse_vault_bytes(path, raw) if raw else []


def parse_vault_bytes(path: Path | str, raw: bytes) -> list[Entry]:
    return vault.parse(decode_text(raw, f"{path} (a vault file)", VaultFormatError))


def category_sources(
    memory: Path, agent: str, category: str, stamps: list[tuple[str, int, int]] | None = None
) -> list[tuple[str, bytes]]:
    """The files that hold a category's entries, as (key, bytes), the key being the path inside
    ``memory``: the AITEAM-X category file first (if any), then the entry files by name.  With
    ``stamps``, each entry file's (name, size, change time) as it was read is appended to it.

    A category folder or file that a symlink leads outside ``memory`` is skipped with a warning;
    so is an entry file that is not a regular file (a folder, a pipe).  The folder is resolved
    once; entry files are opened directly unless they are symlinks (a realpath per file would
    cost more than reading it)."""
    out: list[tuple[str, bytes]] = []
    base = f"{agent}/{category}"
    legacy = memory / agent / f"{category}.md"
    try:
        raw = read_inside(legacy, memory)
    except OutsideMemory as exc:
        warn(exc.message)
        raw = None
    except NotAFile:
        raise VaultFormatError(f"{legacy} is a folder, not a vault file") from None
    if raw is not None:
        out.append((f"{base}.md", raw))
    folder = memory / agent / category
    try:
        with os.scandir(folder) as listing:
            names = sorted(
                (e.name, e.is_symlink(), e.is_file())
                for e in listing
                if e.name.endswith(".md") and not e.name.startswith(".")
            )
    except (FileNotFoundError, NotADirectoryError):
        return out
    if not is_inside(folder, memory):
        warn(f"skipped {folder}: a symlink leads it outside {memory}")
        return out
    prefix = f"{folder}/"
    for name, link, regular in names:
        path = prefix + name
        if link and not is_inside(Path(path), memory):
            warn(f"skipped {path}: a symlink leads it outside {memory}")
            continue
        if not regular:
            warn(f"skipped {path}: not a regular file")
            continue
        try:
            out.append((f"{base}/{name}", _read_file(path, name, stamps)))
        except (FileNotFoundError, NotADirectoryError):
            continue  # removed meanwhile
        except IsADirectoryError:
            warn(f"skipped {path}: a folder, not an entry file")
    return out


_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)  # a pipe put in a file's place never blocks a read


def _read_file(path: str, name: str, stamps: list | None) -> bytes:
    """A file's bytes with four system calls (``open()`` and its buffered reader cost twice as much
    per file: 12 us against 6.5 us here, at 100,000 entry files a second of a first search)."""
    fd = os.open(path, _READ_FLAGS)
    try:
        st = os.fstat(fd)
        if stamps is not None:
            ns = st.st_mtime_ns if st.st_mtime_ns > st.st_ctime_ns else st.st_ctime_ns
            stamps.append((name, st.st_size, ns))
        data = os.read(fd, st.st_size + 1)
        if len(data) != st.st_size:  # it changed while read: read on to its end
            chunks = [data]
            while True:
                more = os.read(fd, 1 << 20)
                if not more:
                    break
                chunks.append(more)
            data = b"".join(chunks)
        return data
    except BlockingIOError:
        return b""  # not a regular file after all (a pipe with no writer)
    finally:
        os.close(fd)


def _parse_together(own: list[tuple[str, bytes]]) -> list[Entry] | None:
    """The entries of several entry files read as one text, when each holds one entry exactly as
    memcli writes it (one regular expression pass instead of one parse per file: a first search of
    100,000 entry files spends most of its parsing in per-file overhead); None otherwise."""
    try:
        text = b"\n".join(raw for _, raw in own).decode("utf-8")
    except UnicodeDecodeError:
        return None
    if "\x00" in text or "\r" in text:
        return None
    found = vault.parse_canonical(text)  # entry files joined by "\n" read as one canonical file
    if found is None or len(found) != len(own):
        return None  # a file that is not canonical, or holds more than one entry: each on its own
    for e, (key, _) in zip(found, own):
        e.source = key
    return found


def parse_sources(
    sources: list[tuple[str, bytes]], memory: Path | None = None, skip_unreadable: bool = True, problems=None
) -> list[Entry]:
    """The entries of a category's files, each with its ``source`` (the key).

    A file that is not memory (not UTF-8, NUL bytes) is skipped with a warning naming its path
    (inside ``memory``), and added to ``problems`` if given; with ``skip_unreadable=False`` it
    raises VaultFormatError."""
    own = [(key, raw) for key, raw in sources if raw and key.count("/") == 2]
    together = _parse_together(own) if len(own) > 1 else None
    entries: list[Entry] = together or []
    for key, raw in sources:
        if not raw or (together is not None and key.count("/") == 2):
            continue
        try:
            found = parse_vault_bytes(f"{memory}/{key}" if memory is not None else key, raw)
        except VaultFormatError as exc:
            if not skip_unreadable:
                raise
            warn(f"{exc.message}; skipped")
            if problems is not None:
                problems.append(exc.message)
            continue
        for e in found:
            e.source = key
        entries.extend(found)
    if len(sources) > 1 and sources[0][0].count("/") == 1:
        # A category file beside entry files: an entry in both (a migration cut short, or merged
        # from a branch that migrated) is one memory, read from its own file.
        in_own_files = {(e.id, e.content()) for e in entries if (e.source or "").count("/") == 2}
        if in_own_files:
            entries = [
                e for e in entries if (e.source or "").count("/") == 2 or (e.id, e.content()) not in in_own_files
            ]
    return entries


class Store:
    def __init__(self, layout: Layout, config: Config | None = None):
        self.layout = layout
        self.config = config or load_config(layout.memory)
        # Called as listener(store, agent, category) after memcli writes a vault file, under the lock.
        self.listeners: list[Callable[[Store, str, str], None]] = []
        # Called once, as first(store), before the first write: what a face that writes sets up
        # first (``api.open_store``: memcli's merge driver in a clone that lacks it).
        self.before_first_write: list[Callable[[Store], None]] = []
        self.problems: list[str] = []  # files that reads skipped (not memory: not UTF-8, NUL bytes)
        self.written: list[Entry] | None = None  # entries written, kept when a listener wants them (a list)

    # ---------------------------------------------------------------- names
    @property
    def categories(self) -> tuple[str, ...]:
        return self.config.vault_categories

    def check(self, agent: str | None, category: str | None = None) -> None:
        """Refuse an invalid agent id or an unknown category (either may be None)."""
        if agent is not None:
            validate_agent(agent)
        if category is not None:
            validate_category(category, self.categories)

    def agents(self, with_sessions: bool = False) -> list[str]:
        """Agents that have a folder in the memory tree, sorted; ``with_sessions``: also those that
        have only a conversation or a checkpoint."""
        try:
            names = os.listdir(self.layout.memory)
        except FileNotFoundError:
            return []
        found = []
        if with_sessions:
            from memcli.storage.conversations import conversation_agents

            found.extend(conversation_agents(self.layout))
            try:
                for name in os.listdir(self.layout.checkpoints):
                    if name.endswith(".json"):
                        with contextlib.suppress(MemcliError):
                            found.append(validate_agent(name[: -len(".json")]))
            except OSError:
                pass
        for name in names:
            if not may_be_agent(name):
                continue
            folder = self.layout.memory / name
            if folder.is_symlink() and not is_inside(folder, self.layout.memory):
                warn(f"skipped {folder}: a symlink leads it outside {self.layout.memory}")
                continue
            if folder.is_dir():
                try:
                    found.append(validate_agent(name))
                except MemcliError:
                    continue
        return sorted(set(found))

    # ---------------------------------------------------------------- reading
    def removed_ids(self, agent: str) -> set[tuple[str, int]]:
        """Ids recorded in a legacy ``.removed`` file (memcli 0.1), as (category, id)."""
        try:
            text = read_text(self.layout.removed_file(agent), self.layout.memory) or ""
        except (OutsideMemory, UnicodeDecodeError):
            return set()
        removed = set()
        for line in text.splitlines():
            parts = line.split()
            if len(parts) == 2 and vault.is_id(parts[1]):
                removed.add((parts[0], int(parts[1])))
        return removed

    def category_files(self) -> list[str]:
        """The AITEAM-X category files in the tree (``agent/category.md``): what ``migrate`` moves
        into entry files.  An empty one (a tombstone: its entries were removed) holds nothing to move."""
        memory = self.layout.memory
        found = []
        for a in self.agents():
            for c in self.categories:
                path = memory / a / f"{c}.md"
                with contextlib.suppress(OSError):
                    if os.path.isfile(path) and os.path.getsize(path):
                        found.append(f"{a}/{c}.md")
        return found

    def sources(self, agent: str, category: str) -> list[tuple[str, bytes]]:
        """The category's files as (key, bytes): see ``category_sources``."""
        self.check(agent, category)
        return category_sources(self.layout.memory, agent, category)

    def _read_raw(self, agent: str, category: str) -> list[Entry]:
        return parse_sources(self.sources(agent, category), self.layout.memory, problems=self.problems)

    def visible(self, category: str, entries: list[Entry], removed: set[tuple[str, int]]) -> list[Entry]:
        """Entries not recorded as removed, newest first (ids must be assigned)."""
        out = [e for e in entries if (category, e.id) not in removed] if removed else list(entries)
        out.sort(key=vault.newest_first, reverse=True)
        return out

    def read(self, agent: str, category: str, removed: set[tuple[str, int]] | None = None) -> list[Entry]:
        """The visible entries of one category (its category file and its entry files), newest first."""
        self.check(agent, category)
        if removed is None:
            removed = self.removed_ids(agent)
        return self.visible(category, self._read_raw(agent, category), removed)

    def iter_entries(self, agent: str | None = None, category: str | None = None) -> Iterator[Located]:
        agents = [agent] if agent else self.agents()
        categories = [category] if category else list(self.categories)
        for a in agents:
            removed = self.removed_ids(a)
            for c in categories:
                try:
                    entries = self.read(a, c, removed)
                except VaultFormatError as exc:  # one unreadable file hides itself, never the others
                    warn(f"{exc.message}; skipped")
                    continue
                for e in entries:
                    yield Located(a, c, e)

    def find(self, agent: str, entry_id: int) -> Located:
        self.check(agent)
        for located in self.iter_entries(agent):
            if located.entry.id == entry_id:
                return located
        raise NotFound(f"no entry {entry_id} for agent {agent!r}")

    # ---------------------------------------------------------------- writing
    def lock(self):
        """The memory lock, taken by every write; the first one runs ``before_first_write``."""
        while self.before_first_write:
            self.before_first_write.pop(0)(self)
        return file_lock(self.layout.lock_path, self.config.vault_lock_timeout)

    @contextlib.contextmanager
    def batch(self):
        """Many writes under one lock, the listeners (the index upkeep) told once per category at
        the end: an import of a thousand entries updated and committed the index a thousand times
        (88 ms an entry), and two imports at once each found the other's entries missing."""
        with self.lock():
            listeners = self.listeners
            touched: dict[tuple[str, str], None] = {}
            self.listeners = [lambda store, agent, category: touched.setdefault((agent, category), None)]
            try:
                yield
            finally:
                self.listeners = listeners
                for agent, category in touched:
                    for listener in listeners:
                        listener(self, agent, category)

    def _new_id(self, used: set[int]) -> int:
        """A millisecond id greater than every id ``used`` and every id memcli issued here."""
        last_path = self.layout.state / "last-id"
        try:
            last = read_text(last_path, self.layout.memory)
        except (OutsideMemory, UnicodeDecodeError):
            last = None
        last_id = (
            int(last) if last and last.strip().isascii() and last.strip().isdigit() and len(last.strip()) < 20 else 0
        )
        sane = [i for i in used if i < vault.MAX_ID]  # an absurd id typed by hand is kept, never followed
        new = max(time.time_ns() // 1_000_000, min(last_id, vault.MAX_ID - 1) + 1, max(sane, default=0) + 1)
        atomic_write(last_path, str(new), self.layout.memory)
        return new

    def _ids_in_use(self, agent: str, category: str) -> set[int]:
        """Ids of the category, cheaply: those its entry files are named by, and those of its
        category file (read only if there is one)."""
        return self._id_census(agent, category)[0]

    def _id_census(self, agent: str, category: str) -> tuple[set[int], set[int], list[str]]:
        """``_ids_in_use``; the ids among them that may be held twice: one that two entry files'
        names start with, or that the category file holds twice or beside an entry file's name
        (found from the same listing: an entry file never has to be read for it); and the names of
        temporary files in the category's folder (``clean_stale_temp``)."""
        from collections import Counter

        counts: Counter[int] = Counter()
        used: set[int] = set()
        temps: list[str] = []
        with contextlib.suppress(OSError):
            for name in os.listdir(self.layout.category_dir(agent, category)):
                if is_temp_name(name):
                    temps.append(name)
                    continue
                head = name.split("-", 1)[0].split(".", 1)[0]
                if vault.is_id(head):
                    used.add(int(head))
                    if name.endswith(".md"):
                        counts[int(head)] += 1
        legacy = self.layout.category_file(agent, category)
        if os.path.lexists(legacy):
            with contextlib.suppress(MemcliError):
                ids = [e.id for e in read_vault_file(legacy, self.layout.memory) if e.id is not None]
                used.update(ids)
                counts.update(ids)
        return used, {i for i, n in counts.items() if n > 1}, temps

    def _renumber_twins(self, agent: str, category: str, candidates: set[int] | None = None) -> None:
        """Give every entry of a category that shares its id with another one an id of its own (and
        drop exact copies), as ``compact`` does: what ``show`` promises of the next write.  The first
        of them (the one ``show`` and ``edit`` find) keeps the id; only the files that hold a twin are
        rewritten.  Call under the lock, after a write to the category."""
        if candidates is None:
            candidates = self._id_census(agent, category)[1]
        if not candidates:
            return
        sources = self.sources(agent, category)
        try:
            everything = parse_sources(sources, self.layout.memory, skip_unreadable=False)
        except MemcliError:
            return  # a file that cannot be read: compact reports it; this write stays as it is
        removed = self.removed_ids(agent)
        entries = [e for e in everything if (category, e.id) not in removed]
        held = {i for i in candidates if sum(e.id == i for e in entries) > 1}
        touched = {e.source for e in entries if e.id in held and e.source}
        if not touched:
            return
        copies = [Entry(e.id, e.date, list(e.tags), e.body, e.marked) for e in entries]
        for copy, e in zip(copies, entries):
            copy.source = e.source
        final, _dropped, _renumbered = self._clean(copies, taken=lambda: self._ids_elsewhere(agent, category))
        plan: dict[str, list[Entry]] = {key: [] for key in touched if key}
        for e in final:
            if e.source in plan:
                plan[e.source].append(e)
        held_bytes = dict(sources)
        plan = {k: v for k, v in plan.items() if vault.serialize(v).encode() != held_bytes.get(k)}
        if plan:
            self._write_files(agent, category, plan)

    def _clean(self, entries: list[Entry], renumber: bool = True, taken=None) -> tuple[list[Entry], int, int]:
        """Drop exact copies and give every duplicated id but the first a new id.

        Returns the entries and how many copies were dropped and ids renumbered.  With
        ``renumber=False`` (a dry run) ids are counted, not changed.
        """
        seen: dict[int, list[Entry]] = {}
        final: list[Entry] = []
        dropped = 0
        for e in entries:
            assert e.id is not None
            twins = seen.setdefault(e.id, [])
            if any(t.body == e.body and t.tags == e.tags and t.header_date == e.header_date for t in twins):
                dropped += 1  # an exact copy, as a merge or a copy-paste leaves
                continue
            twins.append(e)
            final.append(e)
        renumbered = 0
        used = {e.id for e in final if e.id is not None}
        if renumber and taken is not None and any(len(t) > 1 for t in seen.values()):
            used |= taken()  # a twin's new id must be free in the agent's other categories and removals too
        for twins in seen.values():
            for twin in twins[1:]:
                renumbered += 1
                if renumber:
                    # The next free id after its own: it keeps its place in time (a "now" id would make an
                    # old entry the newest), and two clones that renumber the same twin agree.
                    twin.date = twin.header_date or None
                    new_id = twin.id + 1
                    while new_id in used:
                        new_id += 1
                    twin.id = new_id
                    twin.marked = True  # a new id must be written down
                    used.add(twin.id)
        return final, dropped, renumbered

    def _ids_elsewhere(self, agent: str, category: str) -> set[int]:
        """Ids the agent uses outside this category and ids recorded as removed."""
        ids = {i for _, i in self.removed_ids(agent)}
        for other in self.categories:
            if other != category:
                with contextlib.suppress(MemcliError):
                    ids |= {e.id for e in self._read_raw(agent, other) if e.id is not None}
        return ids

    def entry_key(self, agent: str, category: str, entry: Entry) -> str:
        """Where a new entry's file goes (inside ``.memory/``)."""
        return f"{agent}/{category}/{entry_file_name(entry)}"

    def free_key(self, agent: str, category: str, entry: Entry, taken: set[str] | frozenset = frozenset()) -> str:
        """``entry_key``, or, if a file of that name holds something else (two entries with one id
        and one first line) or is ``taken``, the name with ``-2``, ``-3``... before ``.md``."""
        key = self.entry_key(agent, category, entry)
        stem = key[: -len(".md")]
        wanted = vault.serialize([entry]).encode()
        n = 1
        while True:
            if key not in taken:
                try:
                    held = read_inside(self.layout.memory / key, self.layout.memory)
                except MemcliError:
                    held = b"\x00"  # a folder or a link out: not a name to use
                if held is None or held == wanted:
                    return key
            n += 1
            key = f"{stem}-{n}.md"

    def _write_files(
        self, agent: str, category: str, plan: dict[str, list[Entry]], listed: dict[Path, list[str]] | None = None
    ) -> None:
        """Write each file of ``plan`` (key -> its entries; no entries: the file is deleted, or emptied
        where the current commit holds it: ``_kept_when_emptied``), then tell the listeners.  Call under the lock.  Not atomic as a whole: the order makes a crash
        part-way leave copies, never losses (a summary before the files it folds are deleted)."""
        memory = self.layout.memory
        # New files first, files that lose entries after, deletions last: a crash between two writes
        # (kill -9 during a compaction) can leave an entry twice (its file and a summary), never none.
        order = sorted(plan, key=lambda k: (not plan[k], os.path.lexists(memory / k)))
        emptied = [k for k in order if not plan[k] and os.path.lexists(memory / k)]
        kept = self._kept_when_emptied(agent, category, emptied) if emptied else set()
        for key in order:
            entries = plan[key]
            path = memory / key
            if entries:
                atomic_write(path, vault.serialize(entries), memory)
                if self.written is not None:
                    self.written.extend(entries)
            elif key in kept:
                if os.path.getsize(path):
                    atomic_write(path, b"", memory)  # a tombstone: see _kept_when_emptied
            else:
                remove(path, memory)
        # What writes cut short left beside these files (``listed``: temporary names the caller found
        # in a folder already, so that it is not listed twice).
        clean_stale_temp([(memory / k).parent for k in order], memory, listed=listed)
        for listener in self.listeners:
            listener(self, agent, category)

    def _kept_when_emptied(self, agent: str, category: str, keys: list[str]) -> set[str]:
        """Which of the files a write empties stay as empty files (tombstones) instead of being
        deleted: those the current commit holds.

        git calls no merge driver for a file deleted on one side and changed on the other (a
        modify/delete conflict stops the merge), so a removal that deleted a committed entry file
        would stop the merge of a branch that edited that entry.  An emptied file is a change of
        content like any other: with memcli's driver the edit wins over the removal (an empty
        file holds no entry), a removal beside an unchanged file is a clean removal, and with no
        driver (a hosting service) it is the one same-entry conflict that ``memcli resolve``
        settles.  Readers see no entry in an empty file; ``compact`` deletes a tombstone once its
        removal is committed and older than ``[compact] tombstone_days``.  A file that the current
        commit does not hold (an entry added and removed before a commit, memory outside git) has
        no version that a branch could have changed, and is deleted at once.  A symlink is always
        deleted (the link only)."""
        from memcli.git.repo import committed

        memory = self.layout.memory
        keys = [k for k in keys if not os.path.islink(memory / k)]
        if not keys:
            return set()
        known = committed(memory, f"{agent}/{category}", f"{agent}/{category}.md")
        return {k for k in keys if known and k in known}

    def _snapshot(self, agent: str, category: str) -> list[tuple[str, bytes]]:
        return category_sources(self.layout.memory, agent, category)

    def normalise(self, agent: str, category: str, dry_run: bool = False) -> dict[str, int]:
        """Tidy a category: exact copies dropped, duplicate ids renumbered, legacy removals applied,
        an entry file holding several entries (a conflict resolved by hand) split into one file per
        entry, a category file's entries ordered newest first.

        Files are written only if that changes them, prepared without the lock (``transform``).
        Every write is a function of the files alone, so two clones that tidy the same files write
        the same bytes.  Returns counts of what was (or, dry, would be) changed.
        """
        counts = {"changed": 0, "duplicates": 0, "renumbered": 0, "removed": 0}

        def change(visible: list[Entry], sources: dict[str, bytes], total: int) -> dict[str, list[Entry]] | None:
            copies = [vault.Entry(e.id, e.date, list(e.tags), e.body, e.marked) for e in visible]
            for copy, e in zip(copies, visible):
                copy.source = e.source
            # Entry files before the category file: of two copies, the one in its own file stays.
            copies.sort(key=lambda e: (e.source or "").endswith(f"{category}.md"))
            final, dropped, renumbered = self._clean(
                copies, renumber=not dry_run, taken=lambda: self._ids_elsewhere(agent, category)
            )
            plan: dict[str, list[Entry]] = {key: [] for key in sources}
            for e in final:
                key = e.source or ""
                if not key or (plan.get(key) and key != f"{agent}/{category}.md"):
                    key = self.free_key(agent, category, e, set(plan))  # a second entry of an entry file: its own
                plan.setdefault(key, []).append(e)
            for entries in plan.values():
                entries.sort(key=vault.newest_first, reverse=True)
            plan = {k: v for k, v in plan.items() if vault.serialize(v).encode() != sources.get(k, b"")}
            counts.update(changed=len(plan), duplicates=dropped, renumbered=renumbered, removed=total - len(visible))
            if not plan or dry_run:
                return None
            return plan

        self.transform(agent, category, change)
        return counts

    def transform(
        self,
        agent: str,
        category: str,
        change: Callable[[list[Entry], dict[str, bytes], int], dict[str, list[Entry]] | None],
    ) -> bool:
        """Apply ``change`` to a category, preparing it without the lock.

        ``change`` gets the category's entries (legacy removals applied, each with its ``source``),
        its files' bytes by key and how many entries they hold in all, and returns the files to
        write (key -> entries; none: delete the file), or None for no change.  Under the lock the
        files are read again: if they changed meanwhile (another process, a hand edit), ``change``
        runs again on what is there now, so nothing newer is ever overwritten.  Raises
        VaultFormatError for a file that cannot be read.
        """
        self.check(agent, category)

        def prepare(snapshot: list[tuple[str, bytes]]) -> dict[str, list[Entry]] | None:
            removed = self.removed_ids(agent)
            everything = parse_sources(snapshot, self.layout.memory, skip_unreadable=False)
            entries = [e for e in everything if (category, e.id) not in removed]
            return change(entries, dict(snapshot), len(everything))

        before = self._snapshot(agent, category)
        result = prepare(before)
        if result is None:
            return False
        with self.lock():
            now = self._snapshot(agent, category)
            if now != before:
                result = prepare(now)  # changed meanwhile: again, on the files as they are now
                if result is None:
                    return False
            self._write_files(agent, category, result)
        return True

    def _file_entries(self, key: str) -> list[Entry]:
        entries = read_vault_file(self.layout.memory / key, self.layout.memory)
        for e in entries:
            e.source = key
        return entries

    def add(self, agent: str, category: str, body: str, tags: list[str] | None = None) -> Entry:
        """A new entry in a file of its own; returns it with its new id."""
        self.check(agent, category)
        _check_storable(body, tags)
        self.check_size(body)
        tags = vault.merge_tags(tags or [], text_tags(body))
        check_content(body, tags)
        self.layout.require()
        with self.lock():
            used, twins, temps = self._id_census(agent, category)
            entry = Entry(id=self._new_id(used), date=None, tags=tags, body=body)
            self.write_new(agent, category, entry, {self.layout.category_dir(agent, category): temps})
            if twins:
                self._renumber_twins(agent, category, twins)
        return entry

    def check_size(self, body: str) -> None:
        """An entry is a memory, not a log: text above ``[vault] max_entry_bytes`` is refused."""
        limit = self.config.vault_max_entry_bytes
        size = len(body.encode("utf-8", "surrogatepass"))
        if size > limit:
            raise MemcliError(
                f"the text is {_size(size)}; an entry holds at most {_size(limit)}"
                " ([vault] max_entry_bytes in .memory/config.toml); nothing written"
            )

    def write_new(self, agent: str, category: str, entry: Entry, listed: dict[Path, list[str]] | None = None) -> str:
        """Write an entry that has its id into a new file of its own (under the lock); its key.
        ``listed``: see ``_write_files``."""
        _check_storable(entry.body, entry.tags)
        key = self.free_key(agent, category, entry)
        entry.source = key
        self._write_files(agent, category, {key: [entry]}, listed)
        return key

    def update(
        self,
        agent: str,
        entry_id: int,
        body: str | None = None,
        tags: list[str] | None = None,
        extra_tags: list[str] | None = None,
    ) -> Located:
        """Replace an entry's body and/or tags, in the file that holds it.  New text brings its own
        tags: its #hashtags, and ``tags`` if given, else the old tags that were not #hashtags of the
        old text (--tag, system tags such as ``compacted``); ``tags`` alone replace the tags and
        keep the text."""
        self.check(agent)
        _check_storable(body or "", tags)
        self.check_size(body or "")
        with self.lock():
            located = self.find(agent, entry_id)
            old = located.entry
            new_body = old.body if body is None else body
            if body is None:
                new_tags = old.tags if tags is None else tags
            elif tags is not None:
                new_tags = vault.merge_tags(text_tags(body), tags)
            else:  # the text's #hashtags, and the tags given apart from the text before (--tag, system tags)
                written = {t.lower() for t in text_tags(old.body)}
                kept = [t for t in old.tags if t.lower() not in written and not t.startswith("allow-")]
                new_tags = vault.merge_tags(text_tags(body), kept)  # an allowance is for the text it came with
            if extra_tags:
                new_tags = vault.merge_tags(new_tags, extra_tags)
            marks = [t for t in old.tags if t.startswith(IMPORTED)]  # memcli's state: `--tag` replaces the user's
            if marks:
                new_tags = vault.merge_tags(new_tags, marks)
            if body is not None:
                check_content(new_body, new_tags)
            looped = [n for n in predecessors(new_tags) if n >= old.id and n not in predecessors(old.tags)]
            if looped:  # a version replaces older ones only: a cycle would hide every version of it
                raise MemcliError(
                    f"entry {old.id} cannot supersede {looped[0]}, which is not older (a cycle of supersedes);"
                    f" to bring its text back: memcli supersede {looped[0]} TEXT"
                )
            date = old.date
            if not old.marked and not date:  # undated hand-written text: dated when first edited
                date = vault.date_for_id(time.time_ns() // 1_000_000)
            updated = Entry(id=old.id, date=date, tags=new_tags, body=new_body)
            key = old.source
            assert key is not None
            updated.source = key
            entries = self._file_entries(key)
            # The entry find() chose; where twins share the id, the one with its content.
            same = [n for n, e in enumerate(entries) if e.id == entry_id]
            exact = [n for n in same if entries[n].content() == old.content()]
            target = (exact or same or [-1])[0]
            self._write_files(
                agent, located.category, {key: [updated if n == target else e for n, e in enumerate(entries)]}
            )
            self._renumber_twins(agent, located.category)
        return Located(agent, located.category, updated)

    def remove(self, agent: str, entry_ids: list[int]) -> list[tuple[Located, int]]:
        """Remove entries by id: all of them, or none if any id is unknown.  An entry file left
        with no entry is deleted (emptied where the current commit holds it: ``_kept_when_emptied``).

        Returns each removed entry with the number of entries that still hold its id: where
        several share one (a copy, an old merge), the first of them is removed and the others stay.
        """
        self.check(agent)
        with self.lock():
            wanted = list(dict.fromkeys(entry_ids))
            everything = list(self.iter_entries(agent))
            targets: list[Located] = []
            for entry_id in wanted:
                found = next((t for t in everything if t.entry.id == entry_id), None)
                if found is None:
                    raise NotFound(f"no entry {entry_id} for agent {agent!r}")
                targets.append(found)
            plans: dict[str, dict[str, list[Entry]]] = {}
            for t in targets:
                key = t.entry.source
                assert key is not None
                plan = plans.setdefault(t.category, {})
                entries = plan.get(key)
                if entries is None:
                    entries = self._file_entries(key)
                drop = next(
                    (n for n, e in enumerate(entries) if e.id == t.entry.id and e.content() == t.entry.content()), None
                )
                if drop is None:
                    drop = next(n for n, e in enumerate(entries) if e.id == t.entry.id)
                plan[key] = entries[:drop] + entries[drop + 1 :]
            for category, plan in plans.items():
                self._write_files(agent, category, plan)
        return [(t, sum(1 for o in everything if o.entry.id == t.entry.id) - 1) for t in targets]

    def last_handoff(self, agent: str) -> Entry | None:
        """The newest real handoff: a compaction summary never counts as the last session."""
        if "handoffs" not in self.categories:
            return None
        real = [e for e in current(self.read(agent, "handoffs")) if not is_compaction_summary(e)]
        return real[0] if real else None

    # ---------------------------------------------------------------- project
    def read_project(self) -> str:
        return read_text(self.layout.project_file, self.layout.memory) or ""

    def write_project(self, text: str) -> None:
        check_content(text, [])
        self.layout.require()
        with self.lock():
            atomic_write(self.layout.project_file, text, self.layout.memory)
