"""`memcli migrate`: legacy AITEAM-X files into the vault layout.

* ``.memory/<agent>.md`` (flat, one ``## Section`` per kind of memory) becomes entries in
  ``<agent>/<category>.md``, the category chosen by the original SECTION_MAP (PT and EN
  headers, lessons as the fallback); the file is kept as ``<agent>.md.bak`` (removed by
  the next `compact`).  Unlike the original, text before the first ``##`` is kept (as a
  lesson) and a flat file is migrated even if the agent's folder exists.
* ``conversations/<agent>.json`` becomes ``conversations/<agent>.jsonl`` (each message
  once), the old file kept as ``<agent>.json.bak``.

Idempotent: a second run finds nothing to do.  An entry whose text is already in the
target category is not added again.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from memcli import conversations, extract
from memcli.errors import MemcliError
from memcli.output import progress
from memcli.store import Store

SECTION_MAP = {
    "decisões": "decisions", "decisões técnicas": "decisions", "notas de sessão": "lessons",
    "contexto de projeto": "projects", "contexto": "projects", "aprendizados": "lessons",
    "preferências do utilizador": "lessons", "preferências do usuário": "lessons", "tarefas": "tasks",
    "handoffs": "handoffs", "projetos": "projects", "decisions": "decisions", "lessons": "lessons",
    "tasks": "tasks", "projects": "projects", "findings": "lessons", "notes": "lessons", "context": "projects",
}
_SECTION_RE = re.compile(r"^## ", re.M)


@dataclass
class MigrateReport:
    files: list[str] = field(default_factory=list)
    entries: dict[str, int] = field(default_factory=dict)  # "agent/category" -> entries added
    conversations: dict[str, int] = field(default_factory=dict)  # agent -> messages added
    skipped: list[str] = field(default_factory=list)
    dry_run: bool = False

    def to_json(self) -> dict:
        return {"files": self.files, "entries": self.entries, "conversations": self.conversations,
                "skipped": self.skipped, "dryRun": self.dry_run}


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


def migrate(store: Store, dry_run: bool = False) -> MigrateReport:
    report = MigrateReport(dry_run=dry_run)
    layout = store.layout
    layout.require()
    with store.lock():
        for path in progress(sorted(layout.memory.glob("*.md")), "migrating flat files", threshold=20):
            agent = path.stem
            if path.name.startswith(("_", ".")) or not path.is_file():
                continue
            try:
                store.check(agent)
            except MemcliError:
                report.skipped.append(f"{path.name}: {agent!r} is not a valid agent id")
                continue
            backup = path.with_name(path.name + ".bak")
            if backup.exists():
                report.skipped.append(f"{path.name}: {backup.name} already exists (migrated before?)")
                continue
            report.files.append(path.name)
            for category, body in sections(path.read_text(encoding="utf-8"), store.categories):
                known = {extract.dedupe_key(e.body) for e in store.read(agent, category)}
                if extract.dedupe_key(body) in known:
                    continue
                key = f"{agent}/{category}"
                report.entries[key] = report.entries.get(key, 0) + 1
                if not dry_run:
                    store.add(agent, category, body)
            if not dry_run:
                os.replace(path, backup)
        folder = layout.conversations
        for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
            agent = path.stem
            try:
                store.check(agent)
                messages, meta = conversations.parse_conversation(path.read_text(encoding="utf-8"), str(path))
            except (MemcliError, UnicodeDecodeError) as exc:
                report.skipped.append(f"conversations/{path.name}: {getattr(exc, 'message', exc)}")
                continue
            report.files.append(f"conversations/{path.name}")
            conversations.assign_ids(messages, meta.get("chatId"))
            for m in messages:  # legacy messages have no time of their own: the file's save time
                if "savedAt" in meta:
                    m.setdefault("ts", meta["savedAt"])
            if dry_run:
                known = {m["id"] for m in conversations.read_conversation(layout, agent, legacy=False)}
                report.conversations[agent] = sum(1 for m in messages if m["id"] not in known)
                continue
            report.conversations[agent] = conversations.append_messages(layout, agent, messages)
            os.replace(path, Path(str(path) + ".bak"))
    return report
