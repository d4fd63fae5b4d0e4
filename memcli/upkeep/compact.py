"""`memcli compact`: the five steps of AITEAM-X, plus tidying what git merges leave.

A. stale and corrupt checkpoints are deleted;
B. a conversation file (one per session) over 20 messages keeps its last 20, once its session
   ended (closed, or idle for longer than a checkpoint is valid); decisions and lessons are first extracted from the removed part (once per
   message id) and a "Session compacted" handoff is written;
C. a category with more than 30 entries (open tasks and pinned entries always kept, archived
   ones not counted) keeps the newest 20; the rest become one
   summary entry (summaries are never summarised again, entries with open tasks are kept);

Every file that compaction writes is a function of the files it read (ids and dates come from
what an entry stands for, never from the clock), so two clones that compact the same memory
write the same files, and git merges them with no conflict and one copy of each.
D. the search index is brought up to date;
E. legacy files left by `migrate` (``*.md.bak``, ``<agent>/*.md.bak``, ``conversations/*.json.bak``)
   are removed;
F. the emptied files that removals leave where the current commit holds them (tombstones: ``Store._kept_when_emptied``)
   are deleted once the removal is settled (``settled_tombstones``: that one depends on git's
   history and the clock, so two clones may delete one at different times -- a deletion of an
   empty file merges cleanly);
plus clean-up in every vault file: exact copies dropped, duplicate ids renumbered,
entries sorted newest first, the removals recorded in memcli 0.1's ``.removed`` files
applied (and those files deleted); duplicated conversation lines dropped.  Running it twice in a row changes nothing the second time.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from collections.abc import Callable
from typing import Any

import json

from memcli.storage import conversations

from memcli.capture import extract

from memcli.storage import checkpoints

from memcli.storage import vault
from memcli.errors import MemcliError
from memcli.storage.paths import CONVERSATIONS_DIR
from memcli.storage.fsutil import atomic_write, read_inside, remove
from memcli.output import progress
from memcli.storage.store import COMPACTED_TAG as COMPACTED
from memcli.storage import usage
from memcli.storage.store import IMPORTED, PINNED_TAG, SUPERSEDES, Store, predecessors
from memcli.storage.store import current as shown_entries
from memcli.storage.vault import Entry

from memcli.upkeep.compact_log import LOG, is_due, last_run  # noqa: F401  (the log's home)


@dataclass
class CompactReport:
    timestamp: str = ""
    checkpoints_cleaned: int = 0
    conversations_trimmed: int = 0
    vault_entries_merged: int = 0
    index_rebuilt: bool = False
    legacy_files_cleaned: int = 0
    tombstones_cleaned: int = 0
    temp_files_cleaned: int = 0
    duplicates_dropped: int = 0
    ids_renumbered: int = 0
    removed_entries_dropped: int = 0
    files_normalised: int = 0
    insights_extracted: int = 0
    dry_run: bool = False
    skipped: bool = False
    actions: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # what was left as it is, and why

    def to_json(self) -> dict[str, Any]:
        """As ``compact --json`` prints it and ``compact-log.json`` keeps it: the keys in camelCase,
        as the original's log has them (``checkpointsCleaned``, ...)."""
        return {_camel(k): v for k, v in asdict(self).items()}


def _camel(name: str) -> str:
    first, *rest = name.split("_")
    return first + "".join(word.capitalize() for word in rest)


def _processed_ids(store: Store) -> set[str]:
    try:
        data = json.loads(read_inside(store.layout.state / "processed-messages.json", store.layout.memory) or b"[]")
        return set(data) if isinstance(data, list) else set()
    except (OSError, ValueError):
        return set()


def _step_conversations(store: Store, report: CompactReport, dry: bool) -> None:
    layout = store.layout
    if not layout.conversations.is_dir():
        return
    processed = _processed_ids(store)
    processed_before = len(processed)
    for agent in sorted(conversations.conversation_agents(layout)):
        for path in conversations.conversation_files(layout, agent):
            name = path.relative_to(layout.conversations).as_posix()
            done = len(report.actions)
            try:
                with store.lock():  # one file at a time: other writers get their turn in between
                    _compact_conversation(store, agent, path, name, processed, report, dry)
            except MemcliError as exc:
                del report.actions[done:]  # nothing of it happened: say so instead
                report.problems.append(f"conversations/{name}: {exc.message}; left as it is")
    if len(processed) != processed_before and not dry:
        atomic_write(layout.state / "processed-messages.json", json.dumps(sorted(processed)), layout.memory)


def derived_entry(store: Store, agent: str, category: str, body: str, tags: list[str], base_id: int) -> Entry:
    """An entry that compaction makes from other data: its id (the time of the newest thing it
    stands for, moved past ids in use), date, text and file name are functions of that data
    alone, so two clones that compact the same files write the same file, and their merge holds
    it once."""
    used = store._ids_in_use(agent, category)
    entry_id = max(1, base_id)
    while entry_id in used:
        entry_id += 1
    return Entry(entry_id, vault.date_for_id(entry_id) or None, tags, body)


def _compact_conversation(
    store: Store, agent: str, path, name: str, processed: set[str], report: CompactReport, dry: bool
) -> None:
    """Trim one conversation file to its last messages.  What is kept, extracted and written is a
    function of the file alone: two branches that trim the same session write the same bytes."""
    layout, config = store.layout, store.config
    raw = read_inside(path, layout.memory) or b""
    stored = conversations.parse_jsonl(raw)
    unique: dict[str, dict] = {}
    for m in stored.messages:
        if m["id"] not in stored.trimmed:
            unique.setdefault(m["id"], m)
    jsonl_only = sorted(unique.values(), key=lambda m: (m.get("ts") or 0, m.get("seq") or 0))
    if stored.other:
        report.problems.append(
            f"conversations/{name}: kept {len(stored.other)} line"
            f"{'s' if len(stored.other) > 1 else ''} that {'are' if len(stored.other) > 1 else 'is'}"
            " not a message, as it was"
        )
    keep = config.compact_keep_messages
    if len(jsonl_only) > keep and _ended(path, stored, jsonl_only, config):
        old, recent = jsonl_only[:-keep], jsonl_only[-keep:]
        report.conversations_trimmed += 1
        report.actions.append(f"trim conversations/{name}: {len(old)} older messages removed")
        base = max((m.get("ts") or 0 for m in old), default=0)
        base = base if isinstance(base, int) and 0 < base < vault.MAX_ID else 1
        fresh = [m for m in old if m["id"] not in processed]
        insights = extract.extract(fresh, config.extract_max_items, config.extract_chars)
        for category, items in (("decisions", insights.decisions), ("lessons", insights.lessons)):
            known = extract.known_keys(e.body for e in store.read(agent, category))
            new = [i for i in items if extract.dedupe_key(i) not in known]
            if new:
                report.insights_extracted += len(new)
                report.actions.append(f"extract {len(new)} {category} for {agent}")
                if not dry:
                    body = "\n".join(f"- {i}" for i in new)
                    store.write_new(
                        agent, category, derived_entry(store, agent, category, body, [COMPACTED, "auto-extract"], base)
                    )
        agent_msgs = [m for m in old if m.get("role") == "agent"][-3:]
        if agent_msgs and not dry:
            preview = "\n- ".join(" ".join(m["text"].split())[:150] for m in agent_msgs)
            body = f"Session compacted ({len(old)} msgs removed):\n- {preview}"
            store.write_new(
                agent, "handoffs", derived_entry(store, agent, "handoffs", body, [COMPACTED, "auto-handoff"], base)
            )
        processed.update(m["id"] for m in old)
        if not dry:
            conversations.write_conversation(
                layout, path, recent, stored.trimmed | {m["id"] for m in old}, stored.other, stored.closed
            )
    elif conversations.serialize(jsonl_only, stored.trimmed, stored.other, stored.closed) != raw:
        report.files_normalised += 1
        report.actions.append(f"tidy conversations/{name} (duplicate or unordered lines)")
        if not dry:
            conversations.write_conversation(layout, path, jsonl_only, stored.trimmed, stored.other, stored.closed)


def _ended(path, stored, messages: list[dict], config) -> bool:
    """Whether a conversation file can be trimmed: no clone will append to it again.  That is so
    once its session closed (``checkpoint --close`` wrote the closing line), once its newest message
    is older than a checkpoint stays valid (the clone that ran it starts a new file), and for
    memcli 0.2's one-file conversation, to which nothing is appended any more.  A file that one
    clone trims while another appends to it would conflict in a merge that has no driver."""
    if stored.closed or path.parent.name == CONVERSATIONS_DIR:
        return True
    newest = max((m.get("ts") or 0 for m in messages), default=0)
    return (
        isinstance(newest, (int, float)) and time.time() * 1000 - newest > config.checkpoint_max_age_days * 86_400_000
    )


def _each_category(
    store: Store, report: CompactReport, unreadable: set[tuple[str, str]], failed: str, step: Callable[[str, str], None]
) -> None:
    """Run ``step`` on every readable category; one that cannot be rewritten is reported (``failed``
    says what was not done) and the others go on."""
    for agent in store.agents():
        for category in store.categories:
            if (agent, category) in unreadable:
                continue
            try:
                step(agent, category)
            except MemcliError as exc:
                report.problems.append(f"{agent}/{category}: {exc.message}; {failed}")


def _rewrite(entries: list[Entry], replace: dict[int, Entry | None]) -> dict[str, list[Entry]]:
    """The files that hold the entries in ``replace`` (keyed by ``id()``: the entry to write in its
    place, or None to drop it), as they are to be written; an entry file left empty is deleted
    (emptied where the current commit holds it)."""
    touched = {e.source for e in entries if id(e) in replace and e.source}
    plan: dict[str, list[Entry]] = {key: [] for key in touched}
    for e in entries:
        if e.source in touched:
            new = replace.get(id(e), e)
            if new is not None:
                plan[e.source].append(new)
    return plan


def _retagged(e: Entry, tags: list[str]) -> Entry:
    return Entry(e.id, e.date, tags, e.body, e.marked)


def _step_copies(store: Store, report: CompactReport, dry: bool, unreadable: set[tuple[str, str]]) -> None:
    """Entries of a category that say the same (``extract.same_text_key``: case, whitespace,
    punctuation and #hashtags aside) become one: the oldest id, its text, every tag of them all.
    Near copies are left alone (``add`` refuses them; two old entries may differ on purpose)."""
    from memcli.capture.extract import same_text_key

    def step(agent: str, category: str) -> None:
        dropped: list[int] = []

        def change(entries: list[Entry], _sources: dict, _total: int) -> dict[str, list[Entry]] | None:
            groups: dict[str, list[Entry]] = {}
            for e in entries:
                if not _is_summary(e) and same_text_key(e.body):
                    groups.setdefault(same_text_key(e.body), []).append(e)
            replace: dict[int, Entry | None] = {}
            for copies in groups.values():
                if len(copies) > 1:
                    oldest, *others = sorted(copies, key=lambda e: e.id)
                    tags: list[str] = []
                    for e in copies:
                        tags = vault.merge_tags(tags, e.tags)
                    replace[id(oldest)] = _retagged(oldest, tags)
                    replace.update((id(e), None) for e in others)
            dropped[:] = [i for i, new in replace.items() if new is None]
            return _rewrite(entries, replace) if dropped and not dry else None

        store.transform(agent, category, change)
        if dropped:
            report.duplicates_dropped += len(dropped)
            report.actions.append(
                f"merge copies {agent}/{category}: {len(dropped)} entries said what an older one says"
            )

    _each_category(store, report, unreadable, "copies not merged", step)


def _step_cap(store: Store, report: CompactReport, dry: bool, unreadable: set[tuple[str, str]]) -> None:
    from memcli.git.provenance import provenance

    config = store.config
    prov = provenance(store.layout)  # unreviewed entries are never folded into a summary of ours

    def step(agent: str, category: str) -> None:
        folded: list[int] = []
        used = usage.last_used(store.layout, agent)
        since = time.time_ns() // 1_000_000 - int(config.compact_used_days * 86_400_000)

        def change(entries: list[Entry], _sources: dict, _total: int) -> dict[str, list[Entry]] | None:
            # Never folded: open tasks, pinned entries; archived and superseded ones are out of the count.
            current = [e for e in shown_entries(entries) if not _is_summary(e)]
            pinned = [e for e in current if vault.open_tasks(e.body) or PINNED_TAG in e.tags]
            candidates = [
                e
                for e in current
                if not vault.open_tasks(e.body) and PINNED_TAG not in e.tags and not prov.held(agent, category, e.id)
            ]
            # kept first: those used (injected, shown) recently, then the newest
            candidates.sort(key=lambda e: (used.get(e.id, 0) >= since, vault.newest_first(e)), reverse=True)
            folded.clear()
            if len(candidates) + len(pinned) <= config.compact_category_cap:
                return None
            old = candidates[max(0, config.compact_category_keep - len(pinned)) :]
            folded.extend(e.id for e in old)
            return cap_plan(store, agent, category, entries, old) if old and not dry else None

        store.transform(agent, category, change)
        if folded:
            report.vault_entries_merged += len(folded)
            which = f" ({', '.join(map(str, folded))})" if dry else ""  # --dry-run says what would go
            report.actions.append(f"cap {agent}/{category}: {len(folded)} older entries summarised into one{which}")

    _each_category(store, report, unreadable, "not capped", step)


def cap_plan(store: Store, agent: str, category: str, entries: list[Entry], old: list[Entry]) -> dict[str, list[Entry]]:
    """The files to write to fold ``old`` into one summary: their files lose them (an entry file
    left empty is deleted, or emptied where the current commit holds it) and the summary gets a file of its own.  The summary's id is the
    newest folded entry's plus one (free in the category), its date that entry's, its text a
    function of the folded entries: two clones that cap the same entries write the same file."""
    old = sorted(old, key=vault.newest_first, reverse=True)
    lines = [f"- [{e.header_date}] {' '.join(e.body.split())[:200]}" for e in old]
    newest = old[0]
    summary_id = _free_id_after(newest.id, {e.id for e in entries} | store._ids_in_use(agent, category))
    text = f"Compacted {len(old)} older entries:\n" + "\n".join(lines)
    # The old versions that folded entries replace stay replaced: by the summary, which holds their text.
    replaced = sorted({p for e in old for p in predecessors(e.tags) if p < e.id})
    # An imported entry's mark stays (``store.IMPORTED``): the next import does not bring it back.
    marks = sorted({t for e in old for t in e.tags if t.startswith(IMPORTED)})
    summary = Entry(
        summary_id, newest.header_date or None, [COMPACTED, *(f"{SUPERSEDES}{p}" for p in replaced), *marks], text
    )
    folded = {id(e) for e in old}
    plan: dict[str, list[Entry]] = {}
    for e in entries:
        if e.source and e.source not in plan:
            plan[e.source] = []
    for e in entries:
        if id(e) not in folded and e.source:
            plan[e.source].append(e)
    unchanged = {key for key in plan if len(plan[key]) == sum(1 for e in entries if e.source == key)}
    plan = {k: v for k, v in plan.items() if k not in unchanged}
    plan[store.free_key(agent, category, summary)] = [summary]
    return plan


def _free_id_after(start: int, used: set[int]) -> int:
    """An id just above the newest summarised entry's, free in the category: the summary sorts where its entries were."""
    candidate = start + 1
    while candidate in used:
        candidate += 1
    return candidate


def _is_summary(e: Entry) -> bool:
    return COMPACTED in e.tags and e.body.startswith("Compacted ")  # a cap summary (not "Session compacted")


def _step_checkpoints(store: Store, report: CompactReport, dry: bool) -> None:
    folder = store.layout.checkpoints
    if not folder.is_dir():
        return
    now = int(time.time() * 1000)
    max_age = store.config.checkpoint_max_age_days * checkpoints.DAY_MS
    for path in sorted(folder.glob("*.json")):
        data = checkpoints.read_checkpoint(path, store.layout.memory)
        if data is not None and checkpoints.checkpoint_age_ms(data, now) <= max_age:
            continue
        report.checkpoints_cleaned += 1
        report.actions.append(f"delete {'corrupt' if data is None else 'stale'} checkpoint {path.name}")
        if not dry:
            with store.lock():  # a checkpoint saved meanwhile is fresh: keep it
                data = checkpoints.read_checkpoint(path, store.layout.memory)
                if data is None or checkpoints.checkpoint_age_ms(data, now) > max_age:
                    remove(path, store.layout.memory)


def _step_legacy(store: Store, report: CompactReport, dry: bool) -> None:
    memory = store.layout.memory
    candidates = [p for p in memory.glob("*.md.bak") if (memory / p.name[: -len(".md.bak")]).is_dir()]
    # Category files that `migrate` moved into entry files (their folder holds them now).
    candidates += [p for p in memory.glob("*/*.md.bak") if p.with_name(p.name[: -len(".md.bak")]).is_dir()]
    if store.layout.conversations.is_dir():
        candidates += list(store.layout.conversations.glob("*.json.bak"))
    for path in sorted(candidates):
        report.legacy_files_cleaned += 1
        report.actions.append(f"delete migrated legacy file {path.relative_to(memory)}")
        if not dry:
            path.unlink(missing_ok=True)


def tombstones(store: Store) -> list[str]:
    """The empty vault files (keys inside ``.memory/``): what a removal leaves of a committed file
    (``Store._kept_when_emptied``)."""
    import os

    memory = store.layout.memory
    found: list[str] = []
    for agent in store.agents():
        for category in store.categories:
            legacy = f"{agent}/{category}.md"
            candidates = [legacy] if os.path.isfile(memory / legacy) else []
            try:
                with os.scandir(memory / agent / category) as listing:
                    candidates += sorted(
                        f"{agent}/{category}/{e.name}"
                        for e in listing
                        if e.name.endswith(".md") and not e.name.startswith(".") and e.is_file(follow_symlinks=False)
                    )
            except OSError:
                pass
            found += [key for key in candidates if _empty(memory / key)]
    return found


def _empty(path) -> bool:
    import os

    try:
        return not os.path.islink(path) and os.path.getsize(path) == 0
    except OSError:
        return False


def settled_tombstones(store: Store, keys: list[str]) -> list[str]:
    """The tombstones that can go: those whose removal no branch can still meet as a change.

    Outside git, every one.  In git: one that the current commit does not hold, and one whose
    removal is committed (HEAD holds it empty too) and that no commit of the last
    ``[compact] tombstone_days`` touched.
    A branch forked before the removal and merged after its tombstone went meets a modify/delete
    conflict there, which ``memcli resolve`` settles (the edit wins).  When git cannot answer,
    none (they wait for a later run)."""
    from memcli.git import repo

    if not keys:
        return []
    memory = store.layout.memory
    if repo.toplevel(memory) is None:
        return list(keys)
    known = repo.committed(memory, ".")
    dirty = repo.uncommitted(memory, ".")
    recent = repo.changed_since(memory, store.config.compact_tombstone_days * 86_400, ".")
    if known is None:
        return []
    if dirty is None or recent is None:
        return [k for k in keys if k not in known]
    return [k for k in keys if k not in known or (k not in dirty and k not in recent)]


def _step_tombstones(store: Store, report: CompactReport, dry: bool) -> None:
    memory = store.layout.memory
    for key in settled_tombstones(store, tombstones(store)):
        report.tombstones_cleaned += 1
        report.actions.append(f"delete {key} (an emptied file: its removal is settled)")
        if not dry:
            with store.lock():  # still empty: nothing was written into it meanwhile
                if _empty(memory / key):
                    remove(memory / key, memory)


def _step_temp_files(store: Store, report: CompactReport, dry: bool) -> None:
    """Temporary files that writes cut short (kill -9) left anywhere in the memory tree."""
    import os
    from pathlib import Path

    from memcli.storage.fsutil import TEMP_SUFFIX, clean_stale_temp

    memory = store.layout.memory
    folders = []
    for folder, dirs, files in os.walk(memory):
        if os.path.relpath(folder, memory) == os.path.join(".vault", "index"):
            dirs[:] = []  # tantivy's own files
            continue
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(folder, d))]
        if any(f.startswith(".") and f.endswith(TEMP_SUFFIX) for f in files):
            folders.append(Path(folder))
    if not folders:
        return
    with store.lock():
        cleaned = clean_stale_temp(folders, memory, dry_run=dry)
    if cleaned:
        report.temp_files_cleaned += cleaned
        report.actions.append(f"delete {cleaned} temporary file{'s' if cleaned > 1 else ''} left by writes cut short")


def compact(store: Store, dry_run: bool = False, if_due: bool = False) -> CompactReport:
    """Compact the memory.  No lock is held for the whole run: each file is prepared without it
    and written under it only if nothing changed meanwhile, so writers and readers never wait
    long.  A file that cannot be read is left as it is and reported in ``problems``."""
    report = CompactReport(dry_run=dry_run)
    store.layout.require()
    if if_due and not is_due(store):
        report.skipped = True
        return report
    _step_checkpoints(store, report, dry_run)
    _step_conversations(store, report, dry_run)
    files = [(a, c) for a in store.agents() for c in store.categories]
    unreadable: set[tuple[str, str]] = set()
    for agent, category in progress(files, "tidying vault files"):  # before capping: counts stay right
        try:
            counts = store.normalise(agent, category, dry_run)
        except MemcliError as exc:
            unreadable.add((agent, category))
            report.problems.append(f"{agent}/{category}: {exc.message}; left as it is")
            continue
        report.duplicates_dropped += counts["duplicates"]
        report.ids_renumbered += counts["renumbered"]
        report.removed_entries_dropped += counts["removed"]
        if counts["changed"]:
            report.files_normalised += 1
            report.actions.append(f"tidy {agent}/{category}")
    for agent in store.agents():  # memcli 0.1's removal records: folded into the files above
        legacy = store.layout.removed_file(agent)
        if legacy.is_file() and not any(a == agent for a, _ in unreadable):
            report.actions.append(f"delete {agent}/.removed (its removals are applied to the vault files)")
            if not dry_run:
                with store.lock():
                    remove(legacy, store.layout.memory)
    _step_copies(store, report, dry_run, unreadable)
    _step_cap(store, report, dry_run, unreadable)
    _step_legacy(store, report, dry_run)
    _step_tombstones(store, report, dry_run)
    _step_temp_files(store, report, dry_run)
    if not dry_run:
        from memcli.search.index import SearchIndex

        try:
            left = SearchIndex(store).ensure_fresh(lock_timeout=store.config.vault_lock_timeout, progress=True)
            report.index_rebuilt = not left
            if left:
                report.problems.append("the search index was not updated (another memcli process held the lock)")
        except BaseException as exc:  # the index is a cache: report, never fail compaction for it
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
            report.problems.append(f"the search index was not updated: {exc}")
    report.timestamp = datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    if not dry_run:
        log = {k: v for k, v in report.to_json().items() if k not in ("actions", "dryRun", "skipped")}
        if not report.actions:  # a run with nothing to do keeps the record of the last one that did something
            previous = last_run(store) or {}
            kept = previous.get("lastChanges") if previous.get("nothingToDo") else previous
            log["nothingToDo"] = True
            if isinstance(kept, dict) and kept.get("timestamp"):
                log["lastChanges"] = kept
        atomic_write(store.layout.state / LOG, json.dumps(log, indent=2) + "\n", store.layout.memory)
    return report
