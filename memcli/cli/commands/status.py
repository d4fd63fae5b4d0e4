"""`memcli status`."""

from __future__ import annotations

from memcli.cli.spec import CommandSpec, agent_argument, json_flag, user_flag

SPEC = CommandSpec(
    name="status",
    help="Per agent and category: counts, open tasks, last handoff, checkpoint age; the index, compaction and git.",
    epilog="""Examples:

  memcli status

  memcli status dev --json

  memcli status --user       (your personal memory: where it is, what it holds, what is not committed)
""",
    params=(
        agent_argument("Only this agent.", required=False),
        json_flag("Print the report as JSON."),
        user_flag("Your personal memory, not the project's."),
    ),
)


def run(dir_option: str | None, agent: str | None = None, as_json: bool = False, user: bool = False) -> int:
    from memcli import output
    from memcli.cli import common
    from memcli.upkeep.status import full_status

    echo, plural = output.echo, output.plural
    if user:
        from memcli.errors import NotInitialized

        store = common.memory(None, user=True).store
        if not store.layout.exists():
            raise NotInitialized(
                f"no personal memory yet (it goes in {store.layout.root}): `memcli add --user AGENT CATEGORY TEXT`"
            )
    else:
        store = common.open_store(dir_option)
    report = full_status(store, agent)
    if as_json:
        output.print_json(report)
        return 0
    for problem in report["problems"]:
        output.warn(problem)
    echo(f"memory: {store.layout.memory}" + (" (your personal memory)" if store.layout.personal else ""))
    from memcli.storage.paths import not_personal, personal_layout, personal_root

    if not store.layout.personal and personal_layout().exists():
        why = not_personal(personal_root())
        echo(
            f"personal memory: not used: {why}"
            if why
            else f"personal memory: {personal_root() / '.memory'} (memcli status --user)"
        )
    if not report["agents"]:
        echo("no agents yet — add one: memcli add AGENT CATEGORY TEXT")
    for name, info in report["agents"].items():
        handoff = info["last_handoff"]["date"] if info["last_handoff"] else "none"
        cp = info["checkpoint"]
        checkpoint = "none" if cp is None else f"{cp['age_hours']:.1f} h old" + ("" if cp["valid"] else " (expired)")
        echo(
            f"{output.bold(name)}: {plural(info['entries'], 'entry', 'entries')},"
            f" {plural(info['open_tasks'], 'open task')}, last handoff {handoff}, checkpoint {checkpoint}"
        )
        echo("  " + "  ".join(f"{c} {v['entries']}" for c, v in info["categories"].items()))
    for s in report["stale"]:
        from memcli.storage.citations import stale_note

        echo(f"stale: {s['agent']}/{s['category']} {s['id']} {stale_note(s['cites'])}")
    if report["category_files"]:
        from memcli.storage.store import MIGRATE_HINT

        echo("layout: " + MIGRATE_HINT.format(files=plural(len(report["category_files"]), "category file")))
    idx = report["index"]
    if not idx["exists"]:
        echo("index: not built yet (the next search builds it)")
    elif idx["fresh"]:
        echo("index: up to date")
    else:
        echo(f"index: {plural(idx['changed_files'] or 0, 'changed file')} (the next search updates it)")
    last = report["last_compaction"]
    if not last:
        echo("last compaction: never")
    elif last.get("nothingToDo"):
        changes = last.get("lastChanges") or {}
        echo(f"last compaction: {last['timestamp']} (nothing to do; last changes {changes.get('timestamp', 'never')})")
    else:
        echo(f"last compaction: {last['timestamp']}")
    unreviewed = report["trust"]["unreviewed"]
    if report["trust"]["poisoned"]:
        echo(f"held back: all memory ({report['trust']['poisoned']}): memcli review")
    if report["trust"]["note"]:
        echo(f"trust: {report['trust']['note']}")
    if unreviewed:
        ref = report["trust"]["trusted_ref"] or "none"
        echo(
            f"held back: {plural(len(unreviewed), 'unreviewed memory', 'unreviewed memories')} (not on the trusted"
            f" branch {ref.removeprefix('refs/remotes/').removeprefix('refs/heads/')}): memcli review"
        )
    git = report["git"]
    if git:
        hooks = (
            "installed"
            if all(git["hooks"].values())
            else ("partly installed" if any(git["hooks"].values()) else "not installed")
        )
        echo(f"git: branch {git['branch']}, {plural(git['uncommitted'], 'uncommitted memory change')}, hooks {hooks}")
    return 0
