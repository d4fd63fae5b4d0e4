"""`memcli migrate`."""

from __future__ import annotations

from memcli.cli.spec import agent_option, CommandSpec, DRY_RUN, json_flag, Param

SPEC = CommandSpec(
    name="migrate",
    help="""Move the entries of AITEAM-X category files (<agent>/<category>.md) into files of their own.

One file per memory: pull requests merged by GitHub or GitLab (no merge driver) then never
conflict. Ids, dates, tags and text are kept. Also converts legacy flat <agent>.md files and
JSON conversations. Keeps the old files as .bak (the next `memcli compact` removes them), and
imports the decisions, gotchas and next steps of .agent-memory/history/events.jsonl, and typed
facts from --from files, each item once. Idempotent: a run cut short is finished by the next.""",
    epilog="""Examples:

  memcli migrate --dry-run

  memcli migrate && git add -A .memory && git commit -m "memory: one file per memory"

  memcli migrate --from .project-memory/facts.jsonl --agent dev
""",
    params=(
        DRY_RUN,
        Param(
            "sources",
            "options",
            flags=("--from",),
            type=str,
            default=None,
            help="Also import this events.jsonl or facts.jsonl (repeatable).",
            metavar="FILE",
        ),
        agent_option("The agent that imported memories go to.", default="imported"),
        json_flag("Print the report as JSON."),
    ),
)


def run(
    dir_option: str | None,
    dry_run: bool = False,
    sources: list[str] | None = None,
    agent: str = "imported",
    as_json: bool = False,
) -> int:
    from pathlib import Path

    from memcli import output
    from memcli.cli import common
    from memcli.upkeep.migrate import migrate

    store = common.open_store(dir_option)
    report = migrate(store, dry_run=dry_run, sources=[Path(s) for s in sources or []], agent=agent)
    if report.backups:  # the old files stay beside the new ones, out of git
        from memcli.errors import MemcliError
        from memcli.upkeep.initialize import ignore_backups

        try:
            ignore_backups(store.layout)
        except MemcliError as exc:
            output.warn(f"{exc.message}: add .memory/**/*.bak to .gitignore by hand")
    if as_json:
        output.print_json(report.to_json())
        return 0
    verb = "would add" if dry_run else "added"
    for key, count in report.entries.items():
        output.echo(f"{verb} {output.plural(count, 'entry', 'entries')} to {key}")
    for name, count in report.conversations.items():
        output.echo(f"{verb} {output.plural(count, 'message')} to {name}'s conversation")
    for note in report.skipped:
        output.echo(f"skipped {note}", err=True)
    if not report.files:
        output.echo("nothing to migrate")
    elif not dry_run:
        kept = report.backups
        note = f" (kept as .bak: {output.plural(len(kept), 'file')})" if kept else ""
        output.echo(f"migrated {output.plural(len(report.files), 'file')}{note}")
    return 0
