"""What the memory holds: per agent and category counts, open tasks, the last handoff."""

from __future__ import annotations

from typing import Any

from memcli import vault
from memcli.store import Store


def vault_status(store: Store, agent: str | None = None) -> dict[str, Any]:
    agents = [agent] if agent else store.agents()
    report: dict[str, Any] = {"root": str(store.layout.root), "agents": {}}
    totals = {"entries": 0, "open_tasks": 0}
    for a in agents:
        store.check(a)
        removed = store.removed_ids(a)
        categories: dict[str, Any] = {}
        open_tasks = 0
        last_handoff = None
        for c in store.categories:
            entries = store.read(a, c, removed)
            categories[c] = {"entries": len(entries), "newest": entries[0].header_date if entries else None}
            if c == "tasks":
                open_tasks = sum(len(vault.open_tasks(e.body)) for e in entries)
            if c == "handoffs" and entries:
                last_handoff = {"id": entries[0].id, "date": entries[0].header_date}
        count = sum(v["entries"] for v in categories.values())
        report["agents"][a] = {
            "entries": count,
            "open_tasks": open_tasks,
            "last_handoff": last_handoff,
            "categories": categories,
        }
        totals["entries"] += count
        totals["open_tasks"] += open_tasks
    report["totals"] = totals
    return report
