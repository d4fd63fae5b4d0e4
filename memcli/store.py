"""Entries on disk: read, add, update and remove, one vault file per agent and category.

Reads never take the lock.  Every write takes the memory lock, re-reads the file,
changes it and replaces it atomically, so concurrent processes never lose an entry.
A removal is just the entry gone from its file: memcli's git merge driver
(``memcli.merge``) carries it through merges.  ``<agent>/.removed`` files written by
memcli 0.1 are still honoured, and ``compact`` folds them into the vault files.
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path

from memcli import vault
from memcli.config import Config, load_config
from memcli.errors import MemcliError, NotFound, VaultFormatError
from memcli.fsutil import (
    NotAFile,
    OutsideMemory,
    is_inside,
    atomic_write,
    decode_text,
    file_lock,
    read_inside,
    read_text,
    warn,
)
from memcli.paths import CONVERSATIONS_DIR, Layout, validate_agent, validate_category
from memcli.vault import Entry

TYPE_CHECKING = False  # names for annotations only: the fast path never imports typing
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator


COMPACTED_TAG = "compacted"


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


class Located:
    """An entry together with where it lives."""

    __slots__ = ("agent", "category", "entry")

    def __init__(self, agent: str, category: str, entry: Entry):
        self.agent, self.category, self.entry = agent, category, entry

    def __repr__(self) -> str:
        return f"Located({self.agent!r}, {self.category!r}, {self.entry!r})"


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


def parse_vault_bytes(path: Path, raw: bytes) -> list[Entry]:
    return vault.parse(decode_text(raw, f"{path} (a vault file)", VaultFormatError))


class Store:
    def __init__(self, layout: Layout, config: Config | None = None):
        self.layout = layout
        self.config = config or load_config(layout.memory)
        # Called as listener(store, agent, category) after memcli writes a vault file, under the lock.
        self.listeners: list[Callable[[Store, str, str], None]] = []
        self._git_checked = False

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
            for folder, suffix in ((self.layout.conversations, ".jsonl"), (self.layout.checkpoints, ".json")):
                try:
                    for name in os.listdir(folder):
                        if name.endswith(suffix):
                            with contextlib.suppress(MemcliError):
                                found.append(validate_agent(name[: -len(suffix)]))
                except OSError:
                    pass
        for name in names:
            if name.startswith((".", "_")) or name == CONVERSATIONS_DIR:
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
            if len(parts) == 2 and parts[1].isascii() and parts[1].isdigit() and len(parts[1]) <= vault.MAX_ID_DIGITS:
                removed.add((parts[0], int(parts[1])))
        return removed

    def _read_raw(self, agent: str, category: str) -> list[Entry]:
        return read_vault_file(self.layout.category_file(agent, category), self.layout.memory)

    def visible(self, category: str, entries: list[Entry], removed: set[tuple[str, int]]) -> list[Entry]:
        """Entries not recorded as removed, newest first (ids must be assigned)."""
        out = [e for e in entries if (category, e.id) not in removed]
        out.sort(key=vault.newest_first, reverse=True)
        return out

    def read(self, agent: str, category: str, removed: set[tuple[str, int]] | None = None) -> list[Entry]:
        """The visible entries of one vault file, newest first."""
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
        """The memory lock, taken by every write.  The first write in a git clone that lacks
        memcli's merge driver registers it (git reads drivers only from config)."""
        if not self._git_checked:
            self._git_checked = True
            from memcli.gitutil import ensure_merge_driver

            ensure_merge_driver(self.layout.root)
        return file_lock(self.layout.lock_path, self.config.vault_lock_timeout)

    def _new_id(self, used: set[int]) -> int:
        """A millisecond id greater than every id in the file and every id memcli issued here."""
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
            used |= taken()  # a twin's new id must be free in the agent's other files and removals too
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

    def _write(self, agent: str, category: str, entries: list[Entry], renumber: bool = True) -> None:
        """Write a vault file: drop exact copies and (unless told not to) renumber duplicate ids."""
        path = self.layout.category_file(agent, category)
        final, _, _ = self._clean(entries, renumber, lambda: self._ids_elsewhere(agent, category))
        atomic_write(path, vault.serialize(final), self.layout.memory)
        for listener in self.listeners:
            listener(self, agent, category)

    def _ids_elsewhere(self, agent: str, category: str) -> set[int]:
        """Ids the agent uses outside this file (its other categories) and ids recorded as removed."""
        ids = {i for _, i in self.removed_ids(agent)}
        for other in self.categories:
            if other != category:
                with contextlib.suppress(MemcliError):
                    ids |= {e.id for e in self._read_raw(agent, other) if e.id is not None}
        return ids

    def normalise(self, agent: str, category: str, dry_run: bool = False) -> dict[str, int]:
        """Tidy a vault file: copies, duplicate ids, legacy removals, order (newest first).

        Every entry ends up with an id marker (text written by hand keeps its own form).  The
        file is written only if that changes it, prepared without the lock (``transform``).
        Returns counts of what was (or, dry, would be) changed.
        """
        counts = {"changed": 0, "duplicates": 0, "renumbered": 0, "removed": 0}

        def change(visible: list[Entry], current: str, total: int) -> list[Entry] | None:
            final, dropped, renumbered = self._clean(
                [vault.Entry(e.id, e.date, list(e.tags), e.body, e.marked) for e in visible], renumber=False
            )
            final.sort(key=vault.newest_first, reverse=True)
            counts.update(
                changed=int(vault.serialize(final) != current or renumbered > 0),
                duplicates=dropped,
                renumbered=renumbered,
                removed=total - len(visible),
            )
            if not counts["changed"] or dry_run:
                return None
            return final

        self.transform(agent, category, change)
        return counts

    def transform(
        self, agent: str, category: str, change: Callable[[list[Entry], str, int], list[Entry] | None]
    ) -> bool:
        """Apply ``change`` to a vault file, preparing it without the lock.

        ``change`` gets the file's entries (legacy removals applied), its text and how many
        entries it holds in all, and returns the new list, or None for no change.  Under the lock the file is read again: if it changed meanwhile
        (another process, a hand edit), ``change`` runs again on what is there now, so nothing
        newer is ever overwritten.  Raises VaultFormatError for a file that cannot be read.
        """
        path = self.layout.category_file(agent, category)

        def prepare(raw: bytes | None) -> list[Entry] | None:
            removed = self.removed_ids(agent)
            everything = parse_vault_bytes(path, raw) if raw else []
            entries = [e for e in everything if (category, e.id) not in removed]
            return change(entries, (raw or b"").decode("utf-8"), len(everything))

        before = read_inside(path, self.layout.memory)
        result = prepare(before)
        if result is None:
            return False
        with self.lock():
            now = read_inside(path, self.layout.memory)
            if now != before:
                result = prepare(now)  # changed meanwhile: again, on the file as it is now
                if result is None:
                    return False
            self._write(agent, category, result)
        return True

    def _rewrite(self, agent: str, category: str, change: Callable[[list[Entry]], list[Entry]]) -> None:
        removed = self.removed_ids(agent)
        entries = [e for e in self._read_raw(agent, category) if (category, e.id) not in removed]
        self._write(agent, category, change(entries))

    def add(self, agent: str, category: str, body: str, tags: list[str] | None = None) -> Entry:
        """Append an entry (newest first in the file) and return it with its new id."""
        self.check(agent, category)
        _check_storable(body, tags)
        tags = vault.merge_tags(tags or [], vault.hashtags(body))
        self.layout.require()
        with self.lock():
            raw = self._read_raw(agent, category)
            removed = self.removed_ids(agent)
            entry = Entry(id=self._new_id({e.id for e in raw if e.id is not None}), date=None, tags=tags, body=body)
            self._write(agent, category, [entry, *(e for e in raw if (category, e.id) not in removed)])
        return entry

    def update(self, agent: str, entry_id: int, body: str | None = None, tags: list[str] | None = None) -> Located:
        """Replace an entry's body and/or tags.  New text brings its own tags: its #hashtags, and
        ``tags`` if given, else the old tags that were not #hashtags of the old text (--tag, system
        tags such as ``compacted``); ``tags`` alone replace the tags and keep the text."""
        self.check(agent)
        _check_storable(body or "", tags)
        with self.lock():
            located = self.find(agent, entry_id)
            old = located.entry
            new_body = old.body if body is None else body
            if body is None:
                new_tags = old.tags if tags is None else tags
            elif tags is not None:
                new_tags = vault.merge_tags(vault.hashtags(body), tags)
            else:  # the text's #hashtags, and the tags given apart from the text before (--tag, system tags)
                written = {t.lower() for t in vault.hashtags(old.body)}
                new_tags = vault.merge_tags(vault.hashtags(body), [t for t in old.tags if t.lower() not in written])
            date = old.date
            if not old.marked and not date:  # undated hand-written text: dated when first edited
                date = vault.date_for_id(time.time_ns() // 1_000_000)
            updated = Entry(id=old.id, date=date, tags=new_tags, body=new_body)

            def change(entries: list[Entry]) -> list[Entry]:
                # The entry find() chose; where twins share the id, the one with its content.
                same = [n for n, e in enumerate(entries) if e.id == entry_id]
                exact = [n for n in same if entries[n].content() == old.content()]
                target = (exact or same or [None])[0]
                return [updated if n == target else e for n, e in enumerate(entries)]

            self._rewrite(agent, located.category, change)
        return Located(agent, located.category, updated)

    def remove(self, agent: str, entry_ids: list[int]) -> list[Located]:
        """Remove entries by id: all of them, or none if any id is unknown.

        Where several entries share an id (a copy, an old merge), the first of them is
        removed and the others stay; ``twins_left`` on the result says how many.
        """
        self.check(agent)
        with self.lock():
            wanted = list(dict.fromkeys(entry_ids))
            for entry_id in wanted:
                self.find(agent, entry_id)  # every id must exist before anything is written
            removed = self.removed_ids(agent)
            plan: dict[str, list[Entry]] = {}
            targets: list[Located] = []
            for category in self.categories:
                entries = [e for e in self._read_raw(agent, category) if (category, e.id) not in removed]
                keep = []
                for e in entries:
                    if e.id in wanted and not any(t.entry.id == e.id for t in targets):
                        targets.append(Located(agent, category, e))
                    else:
                        keep.append(e)
                if len(keep) != len(entries):
                    plan[category] = keep
            self.twins_left = {
                t.entry.id: sum(1 for c in self.categories for e in self._read_raw(agent, c) if e.id == t.entry.id) - 1
                for t in targets
            }
            for category, keep in plan.items():
                self._write(agent, category, keep, renumber=False)
        return sorted(targets, key=lambda t: wanted.index(t.entry.id))

    def last_handoff(self, agent: str) -> Entry | None:
        """The newest real handoff: a compaction summary never counts as the last session."""
        if "handoffs" not in self.categories:
            return None
        real = [e for e in self.read(agent, "handoffs") if not is_compaction_summary(e)]
        return real[0] if real else None

    # ---------------------------------------------------------------- project
    def read_project(self) -> str:
        return read_text(self.layout.project_file, self.layout.memory) or ""

    def write_project(self, text: str) -> None:
        self.layout.require()
        with self.lock():
            atomic_write(self.layout.project_file, text, self.layout.memory)
