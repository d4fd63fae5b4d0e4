"""`memcli migrate`: legacy AITEAM-X files into the vault layout.

* ``.memory/<agent>.md`` (flat, one ``## Section`` per kind of memory) becomes entries in
  ``<agent>/<category>.md``, the category chosen by the original SECTION_MAP (PT and EN
  headers, lessons as the fallback); the file is kept as ``<agent>.md.bak`` (removed by
  the next `compact`).  Unlike the original, text before the first ``##`` is kept (as a
  lesson) and a flat file is migrated even if the agent's folder exists.
* ``<agent>/<category>.md`` (an AITEAM-X category file: one file for the whole category)
  becomes one entry file per entry in ``<agent>/<category>/``, ids, dates, tags and text kept
  (text without an id marker keeps its own form); the file is kept as
  ``<category>.md.bak``.  A file is moved whole or not at all: one that cannot be read is left
  as it is and reported; a run cut short is finished by the next (entries already in a file of
  their own are not written twice).
* ``conversations/<agent>.json`` becomes a session file ``conversations/<agent>/<session>.jsonl``
  (each message once), the old file kept as ``<agent>.json.bak``.

Going further, it imports the memories of two other file-based systems, each item once:
the events of ``.agent-memory/history/events.jsonl`` (their ``signals``: decisions,
gotchas as lessons, next-step hints as open tasks) and ``facts.jsonl`` files of typed
facts (``section`` mapped to a category; archived and superseded facts left out; the
text read from ``content``, ``text``, ``fact`` or ``body``).

Idempotent: a second run finds nothing to do.  An entry whose text is already in the
target category is not added again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from memcli.storage import conversations

from memcli.capture import extract

from memcli.storage import vault
from memcli.errors import MemcliError
from memcli.storage.fsutil import decode_text, read_inside, rename
from memcli.output import progress
from memcli.storage.store import Store

SECTION_MAP = {
    "decisões": "decisions",
    "decisões técnicas": "decisions",
    "notas de sessão": "lessons",
    "contexto de projeto": "projects",
    "contexto": "projects",
    "aprendizados": "lessons",
    "preferências do utilizador": "lessons",
    "preferências do usuário": "lessons",
    "tarefas": "tasks",
    "handoffs": "handoffs",
    "projetos": "projects",
    "decisions": "decisions",
    "lessons": "lessons",
    "tasks": "tasks",
    "projects": "projects",
    "findings": "lessons",
    "notes": "lessons",
    "context": "projects",
}
_SECTION_RE = re.compile(r"^## ", re.M)


@dataclass
class MigrateReport:
    files: list[str] = field(default_factory=list)
    entries: dict[str, int] = field(default_factory=dict)  # "agent/category" -> entries added
    conversations: dict[str, int] = field(default_factory=dict)  # agent -> messages added
    skipped: list[str] = field(default_factory=list)
    backups: list[str] = field(default_factory=list)  # the .bak files this run made
    dry_run: bool = False

    def to_json(self) -> dict:
        return {
            "files": self.files,
            "entries": self.entries,
            "conversations": self.conversations,
            "skipped": self.skipped,
            "backups": self.backups,
            "dryRun": self.dry_run,
        }


def classify(header: str, categories: tuple[str, ...]) -> str:
    key = header.strip().lower()
    if SECTION_MAP.get(key) in categories:
        return SECTION_MAP[key]
    for name, category in SECTION_MAP.items():
        if name in key and category in categories:
            return category
    return "lessons" if "lessons" in categories else categories[0]


def sections(text: str, categories: tuple[str, ...]) -> list[tuple[str, str]]:
    """(category, body) for each ``## header`` section, plus any text before the first one."""
    parts = _SECTION_RE.split(text)
    out = []
    preamble = parts[0].strip()
    if preamble and not re.fullmatch(r"#\s.*", preamble):  # a lone "# Title" line is not memory
        out.append((classify("", categories), preamble))
    for part in parts[1:]:
        header, _, body = part.partition("\n")
        if body.strip():
            out.append((classify(header, categories), body.strip()))
    return out


def migrate(
    store: Store, dry_run: bool = False, sources: list[Path] | None = None, agent: str = "imported"
) -> MigrateReport:
    """Legacy AITEAM-X files, plus memories of other systems: ``sources`` (event or fact JSONL
    files) and ``.agent-memory/history/events.jsonl`` when the repository has one."""
    report = MigrateReport(dry_run=dry_run)
    layout = store.layout
    layout.require()
    sources = list(sources or [])
    events = layout.root / AGENT_MEMORY_EVENTS
    if events.is_file() and events not in sources:
        sources.append(events)
    # The lock is taken per file, not for the whole run: other memcli processes go on meanwhile.
    for source in sources:
        with store.lock():
            import_external(store, source, agent, report)
    for path in progress(sorted(layout.memory.glob("*.md")), "migrating flat files", threshold=20):
        with store.lock():
            _migrate_flat_file(store, path, report, dry_run)
    files = [(key.split("/")[0], key.split("/")[1][: -len(".md")]) for key in store.category_files()]
    for agent, category in progress(files, "moving entries into files of their own", threshold=20):
        with store.lock():
            _migrate_category_file(store, agent, category, report, dry_run)
    folder = layout.conversations
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        with store.lock():
            _migrate_conversation(store, path, report, dry_run)
    return report


def _migrate_flat_file(store: Store, path: Path, report: MigrateReport, dry_run: bool) -> None:
    layout = store.layout
    agent = path.stem
    if path.name.startswith(("_", ".")) or not path.is_file():
        return
    try:
        store.check(agent)
    except MemcliError:
        report.skipped.append(f"{path.name}: {agent!r} is not a valid agent id")
        return
    backup = path.with_name(path.name + ".bak")
    if backup.exists():
        report.skipped.append(f"{path.name}: {backup.name} already exists (migrated before?)")
        return
    try:
        text = decode_text(read_inside(path, layout.memory) or b"", path.name)
    except MemcliError as exc:
        report.skipped.append(f"{exc.message}; left as it is")
        return
    report.files.append(path.name)
    for category, body in sections(text, store.categories):
        known = {extract.dedupe_key(e.body) for e in store.read(agent, category)}
        if extract.dedupe_key(body) in known:
            continue
        key = f"{agent}/{category}"
        report.entries[key] = report.entries.get(key, 0) + 1
        if not dry_run:
            store.add(agent, category, body)
    if not dry_run:
        rename(path, backup, layout.memory)
        report.backups.append(backup.name)


def _migrate_category_file(store: Store, agent: str, category: str, report: MigrateReport, dry_run: bool) -> None:
    """Move the entries of ``<agent>/<category>.md`` into entry files (call under the lock)."""
    from memcli.storage import store as storage
    from memcli.storage.fsutil import atomic_write

    layout = store.layout
    path = layout.category_file(agent, category)
    name = f"{agent}/{category}.md"
    backup = path.with_name(path.name + ".bak")
    if path.is_symlink():
        report.skipped.append(f"{name}: a symlink; left as it is")
        return
    if backup.exists():
        report.skipped.append(f"{name}: {backup.name} already exists (migrated before?); left as it is")
        return
    try:
        entries = storage.read_vault_file(path, layout.memory)
    except MemcliError as exc:
        report.skipped.append(f"{name}: {exc.message}; left as it is")
        return
    removed = store.removed_ids(agent)
    entries = [e for e in entries if (category, e.id) not in removed]
    # Entries already in a file of their own (a run cut short, or the same entries on another branch).
    present = {(e.id, e.content()) for e in store._read_raw(agent, category) if e.source != name}
    todo = [e for e in entries if (e.id, e.content()) not in present]
    report.files.append(name)
    key = f"{agent}/{category}"
    report.entries[key] = report.entries.get(key, 0) + len(todo)
    if dry_run:
        return
    taken: set[str] = set()
    for e in todo:
        if e.marked:
            e.date = e.header_date or None  # the date as it reads now, kept
        entry_key = store.free_key(agent, category, e, taken)
        taken.add(entry_key)
        atomic_write(layout.memory / entry_key, vault.serialize([e]), layout.memory)
    rename(path, backup, layout.memory)
    report.backups.append(f"{agent}/{backup.name}")
    for listener in store.listeners:
        listener(store, agent, category)


def _migrate_conversation(store: Store, path: Path, report: MigrateReport, dry_run: bool) -> None:
    layout = store.layout
    agent = path.stem
    try:
        store.check(agent)
        raw = decode_text(read_inside(path, layout.memory) or b"", f"conversations/{path.name}")
        messages, meta = conversations.parse_conversation(raw, str(path))
    except MemcliError as exc:
        report.skipped.append(exc.message)
        return
    report.files.append(f"conversations/{path.name}")
    conversations.assign_ids(messages, meta.get("chatId"))
    for m in messages:  # legacy messages have no time of their own: the file's save time
        if "savedAt" in meta:
            m.setdefault("ts", meta["savedAt"])
    if dry_run:
        known = {m["id"] for m in conversations.read_conversation(layout, agent, legacy=False)}
        report.conversations[agent] = sum(1 for m in messages if m["id"] not in known)
        return
    session = conversations.session_name_for(meta.get("savedAt"), raw.encode("utf-8", "surrogatepass"))
    report.conversations[agent] = conversations.append_messages(layout, agent, messages, session=session)
    rename(path, Path(str(path) + ".bak"), layout.memory)
    report.backups.append(f"conversations/{path.name}.bak")


# ---------------------------------------------------------------- other memory systems
AGENT_MEMORY_EVENTS = ".agent-memory/history/events.jsonl"  # seed 003's active event stream
EVENT_SIGNALS = {"decisions": "decisions", "gotchas": "lessons", "nextStepHints": "tasks"}
FACT_SECTIONS = {  # seed 004's sections
    "decisions": "decisions",
    "architecture": "projects",
    "specs": "projects",
    "recent work": "projects",
    "constraints": "lessons",
    "known issues": "lessons",
    "patterns & conventions": "lessons",
}
_FACT_TEXT_KEYS = ("content", "text", "fact", "body")


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def _items_from_event(event: dict) -> list[tuple[str, str, list[str]]]:
    signals = event.get("signals")
    out = []
    if isinstance(signals, dict):
        for key, category in EVENT_SIGNALS.items():
            values = signals.get(key)
            for value in values if isinstance(values, list) else []:
                text = value if isinstance(value, str) else (value.get("text") if isinstance(value, dict) else None)
                if isinstance(text, str) and text.strip():
                    text = text.strip()
                    if category == "tasks" and not text.startswith(("- [ ]", "- [x]")):
                        text = f"- [ ] {text}"
                    out.append((category, text, ["imported", "agent-memory"]))
    return out


def _items_from_fact(fact: dict) -> list[tuple[str, str, list[str]]]:
    if (
        fact.get("archived")
        or fact.get("supersededBy")
        or str(fact.get("status", "")).lower()
        in (
            "archived",
            "superseded",
            "stale",
        )
    ):
        return []  # seed 004 keeps these out of context: so does the import
    text = next((fact[k] for k in _FACT_TEXT_KEYS if isinstance(fact.get(k), str) and fact[k].strip()), None)
    if text is None:
        return []
    section = str(fact.get("section") or "")
    category = FACT_SECTIONS.get(section.strip().lower(), "lessons")
    tags = ["imported", "project-memory"] + ([_slug(section)] if _slug(section) else [])
    return [(category, text.strip(), tags)]


def import_external(store: Store, path: Path, agent: str, report: MigrateReport) -> None:
    """Decisions, gotchas and next steps of seed-003 events, or seed-004 facts, each item once."""
    import json

    store.check(agent)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise MemcliError(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}") from None
    items: list[tuple[str, str, list[str]]] = []
    bad = 0
    for line in lines:
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            bad += 1
            continue
        if isinstance(obj, dict):
            items.extend(_items_from_event(obj) if "signals" in obj else _items_from_fact(obj))
    if bad:
        report.skipped.append(f"{path}: {bad} lines that are not JSON")
    report.files.append(str(path))
    known: dict[str, set[str]] = {}
    for category, text, tags in items:
        if category not in store.categories:
            category = "lessons" if "lessons" in store.categories else store.categories[0]
        if category not in known:
            known[category] = {extract.dedupe_key(e.body) for e in store.read(agent, category)}
        key = extract.dedupe_key(text)
        if key in known[category]:
            continue
        known[category].add(key)
        name = f"{agent}/{category}"
        report.entries[name] = report.entries.get(name, 0) + 1
        if not report.dry_run:
            store.add(agent, category, text, tags)
