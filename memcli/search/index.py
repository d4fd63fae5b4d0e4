"""The tantivy BM25 index over every vault entry: a cache in ``.memory/.vault/index/``.

It is never stale.  A manifest inside the index folder records, for every vault file
it indexed, the file's size, modification time and SHA-1.  Before every search the
files on disk are stat'ed and compared with it; files whose size or time differ are
hashed, and only those whose content really changed are re-indexed (all entries of
one file are replaced at once, keyed by ``agent/category``).  A missing, corrupt or
incompatible index is rebuilt into a temporary folder that then replaces the old one.

Index writes happen under memcli's memory lock, taken before tantivy's writer is
opened.  Searches never wait for it: when another process holds it, a search answers
from the index for the files that did not change and from an in-memory index of the
files that did (and says so only when asked: ``notice``).  The index heals itself: any
failure to open, update or read it (a crash left files behind, a file was corrupted)
leads to a rebuild into a fresh folder, or, while the lock is busy, to an in-memory
index -- never to a failed search.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import tantivy as tv

from memcli.errors import LockTimeout, MemcliError
from memcli.storage.fsutil import OutsideMemory, atomic_write, guard, make_dirs, remove, remove_tree, rename, warn
from memcli.storage.store import ARCHIVED_TAG, Store
from memcli.search.freshness import (
    DIGEST,
    MANIFEST,
    SCHEMA_VERSION,
    Freshness,
    changed_ns,
    join_sources,
    quick_stamp,
    sha1,
    stamp_of,
)
from memcli.search.ranking import (
    CONTEXT_SPAN,
    ENTRY_SEPARATOR,
    HANDOFF_MARK,
    HANDOFF_MARKS,
    OPEN_MARK,
    PINNED_MARK,
    RECENT_MARK,
    RECENT_MARKS,
    Hit,
    build_query,
    marked_query,
    read_marked,
    file_query,
    tag_query,
    neighbour_terms,
    read_hits,
    make_schema,
)
from memcli.search.words import TIMED, entry_date_terms, identifiers, says_when, stemmed_texts

TYPE_CHECKING = False  # names for annotations only: the fast path never imports typing
if TYPE_CHECKING:
    from typing import Any

PROGRESS_ENTRIES = 5_000  # a (re)build of at least this many entries shows a bar on a terminal
SEARCH_LOCK_TIMEOUT = 0.0  # readers never wait for the lock


class Stale:
    """What a freshness check left the index without: the units (``agent/category``) whose changes
    it does not hold (another process held the lock; they are answered from their files), or all
    of it (``everything``: no usable index), or all of it while a complete new index waits in
    ``SearchIndex._pending`` (``pending``: built, but the lock was busy to swap it in)."""

    __slots__ = ("units", "everything", "pending")

    def __init__(self, units: list[str] | None = None, everything: bool = False, pending: bool = False):
        self.units = units or []
        self.everything, self.pending = everything or pending, pending

    def __bool__(self) -> bool:
        return bool(self.units) or self.everything

    def __repr__(self) -> str:
        return f"Stale({self.units!r}, everything={self.everything}, pending={self.pending})"


FRESH = Stale()


class SearchIndex:
    def __init__(self, store: Store):
        self.store = store
        self.layout = store.layout
        self.schema = make_schema()
        self._index: tv.Index | None = None
        self.stale = False  # set by search(): the index could not be brought up to date
        self.problem: str | None = None  # set by search(): why, when it was not the lock
        self._stale = FRESH
        # Whose files a freshness check has looked at in this object's life (None: every agent's):
        # a reader that searches several times checks once, whichever search comes first.
        self.checked: set[str | None] = set()
        self._pending: Path | None = None  # a built index that could not be swapped in yet
        self._versions: dict[tuple[str, str], dict[int, int]] | None = None  # see newest_version
        self.explain = False  # set by search --explain: hits carry what each clause of the query added
        self.freshness = Freshness(self.layout, store.categories)
        self._recent = False  # set by marked()
        self.reindexed: list[tuple[str, str]] = []  # (agent, category) taken in again by ensure_fresh

    # ------------------------------------------------------------ disk state
    @property
    def path(self) -> Path:
        return self.layout.index_dir

    def exists(self) -> bool:
        """An index is there, in a real folder inside .memory (never read through a symlink)."""
        if not self.path.is_dir() or self.path.is_symlink() or self.layout.state.is_symlink():
            return False
        try:
            guard(self.path, self.layout.memory)
        except OutsideMemory:
            return False
        return tv.Index.exists(str(self.path))

    def header(self) -> dict[str, Any]:
        """What made this index: a manifest with another header belongs to an index to rebuild."""
        return {
            "schema": SCHEMA_VERSION,
            "tantivy": getattr(tv, "__version__", ""),
            "categories": list(self.store.categories),
        }

    def load_manifest(self) -> dict[str, Any] | None:
        """The index's manifest; None (rebuild) also when a segment file is not as the manifest
        recorded it: tantivy never rewrites one, so it was changed by something else."""
        folder = self.path
        manifest = self.freshness.load_manifest(folder / MANIFEST, self.header())
        if manifest is None:
            return None
        recorded = manifest.get("segments")
        if not isinstance(recorded, dict):
            return None
        base = f"{folder}/"
        for name, stamp in recorded.items():
            if "/" in name or name.startswith(".") or "\x00" in name:
                return None  # not a name this index writes
            try:
                st = os.stat(base + name)
            except (FileNotFoundError, NotADirectoryError):
                continue  # merged away by a later commit of another process
            except (OSError, ValueError):
                return None
            if [st.st_size, changed_ns(st)] != stamp:
                return None
        return manifest

    def _segment_files(self, folder: Path) -> dict[str, list[int]]:
        """Size and change time (freshness.changed_ns: a restored mtime still shows) of the index's
        segment files, not meta.json, locks or ours."""
        stamps = {}
        with os.scandir(folder) as entries:
            for e in entries:
                if e.name.startswith(".") or e.name in ("meta.json", MANIFEST) or not e.is_file(follow_symlinks=False):
                    continue
                st = e.stat(follow_symlinks=False)
                stamps[e.name] = [st.st_size, changed_ns(st)]
        return stamps

    def changed_files(self, manifest: dict[str, Any], agent: str | None = None) -> tuple[list[str], dict[str, list]]:
        return self.freshness.changed_files(manifest, agent)

    def _new_manifest(self) -> dict[str, Any]:
        return {**self.header(), "files": {}}

    # ------------------------------------------------------------ documents
    def _documents(self, agent: str, category: str, sources: list[tuple[str, bytes]], removed, add) -> None:
        """Pass the documents of one category (its files' bytes) to ``add``; an unreadable file is
        left out with a warning."""
        from memcli.storage.store import parse_sources

        visible = self.store.visible(category, parse_sources(sources, self.layout.memory), removed)
        terms = stemmed_texts([e.body for e in visible])
        contexts = neighbour_terms(terms, CONTEXT_SPAN)
        marks = entry_marks(category, visible)
        schema, make, sep = self.schema, tv.Document.from_dict, ENTRY_SEPARATOR
        for i, e in enumerate(visible):
            tags, date = " ".join(e.tags), e.date or e.header_date
            fields = {
                "agent": agent,
                "category": category,
                "tags": tags,
                "body": terms[i],
                "context": contexts[i],
                "entry": f"{e.id}{sep}{date}{sep}{tags}{sep}{e.body}".encode(),
                "order": i,
            }
            if i in marks:
                fields["marks"] = marks[i]
            when = entry_date_terms(date)
            if says_when(terms[i]):
                when = f"{when} {TIMED}"
            if when:
                fields["when"] = when
            idents = identifiers(f"{e.body} {tags}")
            if idents:
                fields["idents"] = " ".join(idents)
            add(make(fields, schema))

    def _units(self, keys: list[str]) -> dict[tuple[str, str], None]:
        """The (agent, category) units that changed keys name, in order (``agent/.removed``: every
        category of that agent)."""
        units: dict[tuple[str, str], None] = {}
        for key in keys:
            agent, name = key.split("/", 1)
            for category in self.store.categories if name == ".removed" else (name,):
                units[(agent, category)] = None
        return units

    def _reindex(
        self, writer: tv.IndexWriter, manifest: dict[str, Any], keys: list[str], progress: bool = False
    ) -> None:
        """Replace the documents of the given units (``agent/category``; ``agent/.removed`` means
        all of that agent's categories)."""
        from memcli.storage.store import category_sources

        for key in keys:
            if key.endswith("/.removed"):
                stamps = self.freshness.stamps(key)
                data = self.freshness.read(key) if stamps else None
                if stamps and data is not None:
                    self.freshness.record(manifest, key, stamps, sha1(data))
                else:
                    manifest["files"].pop(key, None)
        units = self._units(keys)
        removed_cache: dict[str, set] = {}
        memory = self.layout.memory

        def read(unit: tuple[str, str]):
            agent, category = unit
            quick = quick_stamp(str(memory), agent, category)  # before reading: a later change shows next time
            if quick is None:
                return None
            seen: list[tuple[str, int, int]] = []  # each entry file's stamp as it was read (fstat: no second stat)
            try:
                sources = category_sources(memory, agent, category, seen)
            except MemcliError as exc:
                warn(f"{exc.message}; left out of the search index")
                return self.freshness.stamps(f"{agent}/{category}", quick), []
            return self.freshness.trusted(quick, stamp_of(quick, seen)), sources

        reads = {unit: read(unit) for unit in units}
        todo = list(units)
        if progress:  # a bar only on a terminal, for large vaults: driven by entries, however many files hold them
            from memcli.output import progress as with_progress

            todo = with_progress(
                todo,
                "indexing memory",
                threshold=PROGRESS_ENTRIES,
                weight=lambda u: sum(raw.count(b"<!-- id:") for _, raw in reads[u][1]) if reads[u] else 0,
            )
        for agent, category in todo:
            key = f"{agent}/{category}"
            writer.delete_documents_by_query(file_query(self.schema, agent, category))
            read_now = reads.pop((agent, category))
            if read_now is None:
                manifest["files"].pop(key, None)
                continue
            stamps, sources = read_now
            try:
                if agent not in removed_cache:
                    removed_cache[agent] = self.store.removed_ids(agent)  # refuses a folder name no agent has
                self._documents(agent, category, sources, removed_cache[agent], writer.add_document)
            except MemcliError as exc:  # one unreadable file never disables search: it is left out, said
                warn(f"{exc.message}; left out of the search index")
            self.freshness.record(manifest, key, stamps, sha1(join_sources(sources)))

    def _open(self) -> tv.Index:
        if self._index is None:
            self._index = _on_disk(self.schema, self.path, reuse=True)
        return self._index

    def _ram_index(self, keys: list[str] | None = None) -> tv.Index:
        """An in-memory index of the vault (or of the given files), for a search that could not
        use the real one."""
        index = tv.Index(self.schema)
        writer = index.writer(heap_size=64_000_000, num_threads=1)
        self._reindex(writer, self._new_manifest(), sorted(self.freshness.scan()) if keys is None else keys)
        writer.commit()
        writer.wait_merging_threads()
        index.reload()
        return index

    def _write_manifest(self, manifest: dict[str, Any], folder: Path | None = None) -> None:
        manifest["segments"] = self._segment_files(folder or self.path)
        atomic_write((folder or self.path) / MANIFEST, json.dumps(manifest, separators=(",", ":")), self.layout.memory)

    # ------------------------------------------------------------ sync
    def _sweep(self) -> None:
        """Remove the temporary folders of rebuilds that died (a live process's build is left alone)."""
        try:
            names = os.listdir(self.layout.state)
        except OSError:
            return
        for name in names:
            if name.startswith(("index.new-", "index.old-")):
                pid = name.rsplit("-", 1)[-1]
                if pid.isascii() and pid.isdigit() and int(pid) != os.getpid() and _alive(int(pid)):
                    continue
                path = self.layout.state / name
                if path.is_symlink():
                    remove(path, self.layout.memory)
                else:
                    remove_tree(path, self.layout.memory)

    def _rebuild(self, progress: bool = True) -> None:
        """Build a new index and put it in place (call under the lock)."""
        self._swap_in(self._build(progress))

    def _build(self, progress: bool = True) -> Path:
        """A complete new index in ``index.new-PID``: needs no lock (readers and writers go on)."""
        memory = self.layout.memory
        state = self.layout.state
        make_dirs(state, memory)
        self._sweep()
        tmp = state / f"index.new-{os.getpid()}"
        remove_tree(tmp, memory)
        make_dirs(tmp, memory)
        manifest = self._new_manifest()
        index = _on_disk(self.schema, tmp, reuse=False)
        # A large budget: fewer segments to merge (at 100k entries, 2.7 s instead of 3.1 s).
        writer = index.writer(heap_size=256_000_000, num_threads=min(2, os.cpu_count() or 1))
        try:
            self._reindex(writer, manifest, sorted(self.freshness.scan()), progress)
            writer.commit()
            writer.wait_merging_threads()
        except BaseException:
            del writer
            remove_tree(tmp, memory)
            raise
        del writer, index
        self._write_manifest(manifest, tmp)
        return tmp

    def _swap_in(self, tmp: Path) -> None:
        """Put a built index in place of the old one (call under the lock); the manifest it carries
        says what it holds, so files changed while it was built are re-indexed by the next check."""
        memory, state = self.layout.memory, self.layout.state
        self._index = None
        old = state / f"index.old-{os.getpid()}"
        if self.path.is_symlink() or (self.path.exists() and not self.path.is_dir()):
            remove(self.path, memory)  # the link, never what it points to
        elif self.path.exists():
            rename(self.path, old, memory)
        rename(tmp, self.path, memory)
        remove_tree(old, memory)
        self._index = None

    def ensure_fresh(
        self, lock_timeout: float = SEARCH_LOCK_TIMEOUT, progress: bool = True, agent: str | None = None
    ) -> Stale:
        """Bring the index up to date with the files on disk (those of one agent, if given: a search
        of that agent's memory needs no more); cheap when nothing changed.

        Returns what the index does not hold (``FRESH``, false, when it holds everything): another
        process held the memory lock.  A broken index is rebuilt.
        """
        manifest = self.load_manifest() if self.exists() else None
        changed: list[str] = []
        if manifest is not None:
            changed, restat = self.changed_files(manifest, agent)
            if not changed and not restat:
                return FRESH
        from memcli.storage.fsutil import file_lock

        rebuild = False
        try:
            with file_lock(self.layout.lock_path, lock_timeout):
                self._sweep()  # what killed builds left behind
                # Look again under the lock: another process may have done the work.
                manifest = self.load_manifest() if self.exists() else None
                if manifest is None or not self._compatible():
                    rebuild = True  # built below, without the lock: a big vault takes seconds
                else:
                    now_changed, restat = self.changed_files(manifest, agent)
                    manifest["files"].update(restat)  # new stamps, same content
                    try:
                        if now_changed:
                            self._apply(manifest, now_changed)
                            self.reindexed.extend(self._units(now_changed))
                        if now_changed or restat:
                            self._write_manifest(manifest)
                    except BaseException as exc:  # a crash left the index broken (tantivy errors too): rebuild
                        _reraise_interrupts(exc)
                        rebuild = True
        except LockTimeout:
            if manifest is None:
                return Stale(everything=True)
            return Stale(
                [key for key in changed if not key.endswith("/.removed")]
                + [
                    f"{key.split('/')[0]}/{c}"
                    for key in changed
                    if key.endswith("/.removed")
                    for c in self.store.categories
                ]
            )
        if rebuild:
            tmp = self._build(progress)
            try:
                with file_lock(self.layout.lock_path, lock_timeout):
                    self._swap_in(tmp)
            except LockTimeout:  # a writer took the lock meanwhile: answer from the new index this time
                import atexit

                self._pending = tmp
                atexit.register(_discard_build, tmp, self.layout.memory)  # a copy no other process will use
                return Stale(pending=True)
        return FRESH

    def _compatible(self) -> bool:
        try:
            return bool(tv.Index.is_compatible(str(self.path))) and self._open() is not None
        except BaseException as exc:  # a corrupt index raises various errors, panics too: rebuild it
            _reraise_interrupts(exc)
            self._index = None
            return False

    def _apply(self, manifest: dict[str, Any], keys: list[str]) -> None:
        writer = self._open().writer(heap_size=15_000_000, num_threads=1)
        try:
            self._reindex(writer, manifest, keys)
            writer.commit()
        finally:
            writer.wait_merging_threads()
            del writer

    def update_after_write(self, agent: str, category: str) -> None:
        """Store listener: re-index one file memcli just wrote (the lock is held).  Needs an index."""
        if not self.exists():
            return
        manifest = self.load_manifest()
        if manifest is None:
            return  # the next search rebuilds it
        keys = [f"{agent}/{category}"]
        removed = self.freshness.read(f"{agent}/.removed")
        rec = manifest["files"].get(f"{agent}/.removed")
        if removed and (rec is None or rec[DIGEST] != sha1(removed)):
            keys.append(f"{agent}/.removed")
        try:
            self._apply(manifest, keys)
        except BaseException as exc:  # a broken index: rebuild it now (the lock is held), or the next search will
            _reraise_interrupts(exc)
            try:
                self._rebuild(progress=False)
            except BaseException as again:
                _reraise_interrupts(again)
                remove(self.path / MANIFEST, self.layout.memory)
            return
        self._write_manifest(manifest)

    # ------------------------------------------------------------ search
    def search(
        self,
        text: str,
        agent: str | None = None,
        category: str | None = None,
        limit: int = 10,
        fresh: bool = True,
        neighbours: bool = True,
        archived: bool = False,
        tag: str | None = None,
    ) -> list[Hit]:
        """The best entries for ``text`` (archived ones only with ``archived``); with ``tag``, the
        entries that carry that tag exactly, whatever ``text`` says.  Never fails for the index's
        sake (see the module's notes)."""
        if limit < 1:
            raise MemcliError("--limit must be at least 1")
        if archived and not tag:
            return self._search(text, agent, category, limit, fresh, neighbours)
        asked = limit
        while True:  # archived entries are few: ask for more until enough are left, or all were seen
            hits = self._search(tag or text, agent, category, asked, fresh, neighbours, bool(tag))
            kept = [h for h in hits if (archived or self.is_current(h)) and (tag is None or tag in h.tags)]
            if len(kept) >= limit or len(hits) < asked:
                return kept[:limit]
            asked, fresh = asked * 4, False

    def marked(self, agent: str, recent: bool = False, fresh: bool = True) -> list[Hit]:
        """The agent's marked entries (ranking.MARKS: pinned ones, those with open tasks, the newest
        real handoffs; with ``recent`` the newest of each category too), as current as a search's;
        each hit's ``order`` is its place in its category."""
        self._recent = recent
        return self._search("", agent, None, 0, fresh, False, marked=True)

    def up_to_date(self, agent: str | None) -> bool:
        """Whether a freshness check covering ``agent``'s files already ran (``checked``): a next
        search may pass ``fresh=False``."""
        return None in self.checked or agent in self.checked

    def is_current(self, hit: Hit) -> bool:
        """Neither archived nor replaced by a newer version: what search and inject show."""
        return ARCHIVED_TAG not in hit.tags and self.newest_version(hit) is None

    def newest_version(self, hit: Hit) -> int | None:
        """The id of the newest version of a replaced entry (None if it is current).  Told from the
        entries that say what they replace (``supersedes-OLD``): few, found by one tag query."""
        if self._versions is None:
            from memcli.storage.store import SUPERSEDES, replaced

            asked = 256
            while True:
                found = self._search(SUPERSEDES, None, None, asked, False, False, tag_only=True)
                if len(found) < asked:
                    break
                asked *= 8
            groups: dict[tuple[str, str], list[tuple[int, list[str]]]] = {}
            for h in found:
                groups.setdefault((h.agent, h.category), []).append((h.id, h.tags))
            self._versions = {key: replaced(links) for key, links in groups.items()}
        return self._versions.get((hit.agent, hit.category), {}).get(hit.id)

    def _search(
        self,
        text: str,
        agent: str | None,
        category: str | None,
        limit: int,
        fresh: bool,
        neighbours: bool,
        tag_only: bool = False,
        marked: bool = False,
    ) -> list[Hit]:
        stale = self._stale  # what the last freshness check left (a second search skips the check)
        if fresh:
            self._versions = None
            try:
                stale = self.ensure_fresh(agent=agent)
            except BaseException as exc:  # could not rebuild (a read-only disk, a full one): answer from memory
                _reraise_interrupts(exc)
                self.problem = f"the index could not be updated ({_reason(exc)})"
                stale = Stale(everything=True)
            self._stale = stale
            self.checked.add(agent)
        self.stale = bool(stale)
        try:
            return self._search_with(stale, text, agent, category, limit, neighbours, tag_only, marked)
        except MemcliError:
            raise
        except BaseException as exc:
            if not _is_failure(exc):
                raise
        # The index failed while it was read: rebuild it if the lock is free, else answer from memory.
        self._index = None
        try:
            from memcli.storage.fsutil import file_lock

            with file_lock(self.layout.lock_path, SEARCH_LOCK_TIMEOUT):
                self._rebuild(progress=False)
            return self._search_with(FRESH, text, agent, category, limit, neighbours, tag_only, marked)
        except BaseException as exc:
            if not _is_failure(exc):
                raise
            self.stale = True
            self._stale = Stale(everything=True)
            return self._search_with(self._stale, text, agent, category, limit, neighbours, tag_only, marked)

    def notice(self) -> str | None:
        """What a search should say on stderr about the cache, if anything.

        A cache that could not be updated because of an error (a full or read-only disk, an index
        that cannot be rebuilt) is said every time: it stays so until a person acts.  A cache that
        was merely busy (another memcli process held the memory lock: a compaction, an add, a
        hook) is not: the changed files were answered from themselves, so the answer is what a
        fresh index would give, and ``inject`` runs on every prompt, where an agent's hook shows
        stderr to the user.  ``search --explain`` and ``MEMCLI_DEBUG=1`` say that too."""
        if self.problem:
            return f"{self.problem}; answered from the files"
        if self.stale and (self.explain or os.environ.get("MEMCLI_DEBUG")):
            return "the search cache was not updated (another memcli process holds the memory lock); answered from the files"
        return None

    def _search_with(
        self,
        stale: Stale,
        text: str,
        agent: str | None,
        category: str | None,
        limit: int,
        neighbours: bool = True,
        tag_only: bool = False,
        marked: bool = False,
    ) -> list[Hit]:
        """Search the disk index, with the stale units answered from an in-memory index of them
        (``marked``: every marked entry of ``agent``, ``limit`` unused)."""
        args = (text, agent, category, limit)
        if stale.pending and self._pending is not None:
            built = _on_disk(self.schema, self._pending)
            built.reload()
            return self._search_index(built, *args, [], neighbours, tag_only, marked)
        if stale.everything or not self.exists():
            return self._search_index(self._ram_index(), *args, [], neighbours, tag_only, marked)
        index = self._open()
        index.reload()
        hits = self._search_index(index, *args, stale.units, neighbours, tag_only, marked)
        if stale:
            hits += self._search_index(self._ram_index(stale.units), *args, [], neighbours, tag_only, marked)
            hits.sort(key=lambda h: h.score, reverse=True)
        return hits if marked else hits[:limit]

    def _search_index(
        self,
        index: tv.Index,
        text: str,
        agent: str | None,
        category: str | None,
        limit: int,
        exclude: list[str],
        neighbours: bool = True,
        tag_only: bool = False,
        marked: bool = False,
    ) -> list[Hit]:
        searcher = index.searcher()
        parts: list | None = [] if self.explain and not tag_only else None
        query: tv.Query | None
        if marked:
            query = marked_query(self.schema, agent or "", self._recent)
        elif tag_only:
            query = tag_query(self.schema, text, agent, category)
        else:
            query = build_query(self.schema, self.store.config, text, agent, category, searcher, neighbours, parts)
        if query is None:
            return []
        if exclude:
            clauses = [(tv.Occur.Must, query)] + [
                (tv.Occur.MustNot, file_query(self.schema, *key.split("/", 1))) for key in exclude
            ]
            query = tv.Query.boolean_query(clauses)
        if marked:
            return read_marked(searcher, query)
        return read_hits(searcher, query, text, limit, self.store.config.search_fuzzy, parts)


def entry_marks(category: str, visible: list) -> dict[int, str]:
    """The marks (ranking.MARKS) of a whole category's visible entries, newest first, by place."""
    from memcli.storage.store import PINNED_TAG, current, is_compaction_summary
    from memcli.storage.vault import open_tasks

    shown = {id(e) for e in current(visible)}  # neither archived nor replaced
    marks: dict[int, str] = {}
    handoffs = recent = 0
    for i, e in enumerate(visible):
        if id(e) not in shown:
            continue
        found = [PINNED_MARK] if PINNED_TAG in e.tags else []
        if category == "tasks" and open_tasks(e.body):
            found.append(OPEN_MARK)
        if category == "handoffs" and handoffs < HANDOFF_MARKS and not is_compaction_summary(e):
            found.append(HANDOFF_MARK)
            handoffs += 1
        if recent < RECENT_MARKS:
            found.append(RECENT_MARK)
            recent += 1
        if found:
            marks[i] = " ".join(found)
    return marks


def _is_failure(exc: BaseException) -> bool:
    """An error of the index (tantivy raises ValueError, OSError and pyo3's PanicException,
    a BaseException), as opposed to an interrupt."""
    return isinstance(exc, Exception) or type(exc).__name__ == "PanicException"


def _discard_build(folder: Path, within: Path) -> None:
    """Remove a build this process answered from, at exit. tantivy's file watcher (a thread of each
    open index) can still write ``.tantivy-meta.lock`` into it for a moment after the index is
    dropped, which makes one removal leave the folder behind: try again, briefly, until it is gone
    (a folder left anyway is swept by the next process, whose ``_sweep`` sees this pid dead)."""
    import gc
    import time

    gc.collect()  # drop the last reference to the index, and with it the watcher
    for _ in range(20):
        remove_tree(folder, within)
        if not os.path.lexists(folder):
            return
        time.sleep(0.05)


def _on_disk(schema: tv.Schema, path: Path, reuse: bool = True) -> tv.Index:
    """The index in ``path``, reloaded only when memcli says so (``reload()`` after its own
    commits and before each search).  tantivy's default reader watches ``meta.json`` from a thread
    and, on a change, takes a lock file inside the folder: in a long-lived process (the MCP server,
    the page) or a test that removes ``.vault/`` just after a commit, that file appeared while the
    folder was being removed ("Directory not empty")."""
    index = tv.Index(schema, path=str(path), reuse=reuse)
    index.config_reader(reload_policy="Manual")
    return index


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def _reraise_interrupts(exc: BaseException) -> None:
    if not _is_failure(exc):
        raise exc


def _reason(exc: BaseException) -> str:
    return getattr(exc, "message", None) or getattr(exc, "strerror", None) or f"{type(exc).__name__}: {exc}"
