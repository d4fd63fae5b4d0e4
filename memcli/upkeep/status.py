"""What the memory holds: per agent and category counts, open tasks, the last handoff."""

from __future__ import annotations

import os

from memcli.errors import MemcliError
from memcli.search.freshness import FILES
from memcli.storage.store import Store

TYPE_CHECKING = False  # names for annotations only
if TYPE_CHECKING:
    from typing import Any


def vault_status(store: Store, agent: str | None = None) -> dict[str, Any]:
    return _vault_status(store, agent)[0]


def _vault_status(store: Store, agent: str | None = None) -> tuple[dict[str, Any], tuple[dict, dict]]:
    """The report, and the stamps of the tree it was made from (``Freshness.scan``) with the
    categories whose files it looked at one by one (``Summaries.verified``)."""
    known = store.agents(with_sessions=True)
    if agent is not None:
        store.check(agent)
        if agent not in known:
            listed = ", ".join(known) if known else "none yet"
            raise MemcliError(f"no agent {agent!r} in {store.layout.memory} (agents: {listed})")
    agents = [agent] if agent else known
    from memcli.search.freshness import Freshness
    from memcli.search.summary import Summaries

    summaries = Summaries(store, heads=False)  # counts only: the heads are for `list -n`
    # One look at the tree serves the summaries, the layout and the index's freshness: a listing of
    # each agent's folder and a stat of what is there (at 100k entries status stat'ed each twice).
    disk = Freshness(store.layout, store.categories).scan(agent)
    from memcli.storage.citations import missing

    report: dict[str, Any] = {"root": str(store.layout.root), "agents": {}, "problems": [], "stale": []}
    root = str(store.layout.root)
    totals = {"entries": 0, "open_tasks": 0}
    for a in agents:
        store.check(a)
        categories: dict[str, Any] = {}
        open_tasks = 0
        last_handoff = None
        for c in store.categories:
            try:
                info = summaries.get(a, c, disk)
            except MemcliError as exc:  # one unreadable file is reported, never the end of the report
                report["problems"].append(exc.message)
                categories[c] = {"entries": 0, "newest": None, "error": exc.message}
                continue
            # hidden: archived, or replaced by a newer version (`list` leaves them out)
            categories[c] = {"entries": info["entries"], "hidden": info["hidden"], "newest": info["newest"]}
            for entry_id, paths in info.get("cites", ()):
                gone = missing(root, paths)
                if gone:
                    report["stale"].append({"agent": a, "category": c, "id": entry_id, "cites": gone})
            if c == "tasks":
                open_tasks = info["open_tasks"]
            if c == "handoffs" and info["handoff"]:
                last_handoff = {"id": info["handoff"][0], "date": info["handoff"][1]}
        count = sum(v["entries"] for v in categories.values())
        report["agents"][a] = {
            "entries": count,
            "open_tasks": open_tasks,
            "last_handoff": last_handoff,
            "categories": categories,
        }
        totals["entries"] += count
        totals["open_tasks"] += open_tasks
    summaries.save()
    if agent is None:  # the AITEAM-X category files (store.category_files), from the stamps: "size:time|..."
        names = set(known)
        report["category_files"] = sorted(
            (
                f"{key}.md"
                for key, quick in disk.items()
                if key.split("/", 1)[0] in names
                and not key.endswith("/.removed")
                and quick.split("|", 1)[0].split(":", 1)[0] not in ("", "0")
            ),
            key=lambda name: name.split("/", 1)[0],  # by agent, each agent's in the categories' order
        )
    else:
        report["category_files"] = store.category_files()
    report["problems"].extend(p for p in dict.fromkeys(store.problems) if p not in report["problems"])
    report["totals"] = totals
    return report, (disk, summaries.verified)


def full_status(store: Store, agent: str | None = None) -> dict[str, Any]:
    """The vault report plus checkpoints, the index, the last compaction and git."""
    from memcli.upkeep import compact_log
    from memcli.git import repo
    from memcli.git import hooks
    from memcli.storage import checkpoints

    report, (disk, verified) = _vault_status(store, agent)
    try:  # one listing instead of a failed open per agent with no checkpoint
        saved = set(os.listdir(store.layout.checkpoints))
    except OSError:
        saved = set()
    for name, info in report["agents"].items():
        if f"{name}.json" not in saved:
            info["checkpoint"] = None
            continue
        data = checkpoints.read_checkpoint(checkpoints.checkpoint_path(store.layout, name), store.layout.memory)
        if data is None:
            info["checkpoint"] = None
        else:
            age = checkpoints.checkpoint_age_ms(data)
            valid = age < store.config.checkpoint_max_age_days * checkpoints.DAY_MS
            info["checkpoint"] = {
                "age_hours": round(age / 3_600_000, 2),
                "valid": valid,
                "messages": len(data["messages"]),
            }
    report["index"] = index_status(store, disk, verified) if agent is None else index_status(store)
    report["last_compaction"] = compact_log.last_run(store)
    from memcli.recall import trust

    prov = trust.provenance(store.layout)
    held = [{"agent": k[0], "category": k[1], "id": k[2], "reason": h.reason()} for k, h in prov.entries(agent)]
    if prov.project is not None and agent is None:
        held.insert(0, {"agent": "_project", "category": "", "id": None, "reason": prov.project.reason()})
    report["trust"] = {
        "trusted_ref": prov.trusted_ref,
        "unreviewed": held,
        "poisoned": prov.poisoned,
        "config_held": prov.config_held,
        "note": prov.note,
    }
    root = store.layout.root
    if repo.is_repo(root):
        changes = repo.memory_changes(root) or []
        report["git"] = {
            "branch": repo.branch(root),
            "uncommitted": len(changes),
            "changes": changes,
            "hooks": hooks.installed(root),
        }
        from memcli.upkeep.initialize import TEMP_FILES_LINE

        probe = f"{store.layout.memory.name}/dev/decisions/.1-probe.md.1-probe.tmp"  # as stage_write names one
        if repo.ignored(root, probe) is False:
            report["problems"].append(
                f"git does not ignore the temporary files a write cut short can leave in .memory/:"
                f" `memcli init` adds `{TEMP_FILES_LINE}` to .gitignore"
            )
    else:
        report["git"] = None
    return report


def index_status(
    store: Store, disk: dict[str, str] | None = None, verified: dict[str, tuple[int, str, bool]] | None = None
) -> dict[str, Any]:
    """Whether the index exists and how many vault files changed since it was updated (without
    opening it: a manifest of another tantivy version shows as fresh here, and the next search
    rebuilds the index)."""
    from memcli.search.freshness import MANIFEST, SCHEMA_VERSION, Freshness

    folder = store.layout.index_dir
    if not (folder / "meta.json").is_file() or folder.is_symlink():
        return {"exists": False, "fresh": False, "changed_files": None}
    freshness = Freshness(store.layout, store.categories)
    manifest = freshness.load_manifest(
        folder / MANIFEST, {"schema": SCHEMA_VERSION, "categories": list(store.categories)}
    )
    if manifest is None:
        return {"exists": True, "fresh": False, "changed_files": None}
    changed, _ = freshness.changed_files(manifest, disk=disk, verified=verified)
    return {
        "exists": True,
        "fresh": not changed,
        "changed_files": len(changed),
        "indexed_files": sum(rec[FILES] for k, rec in manifest["files"].items() if not k.endswith("/.removed")),
    }
