"""`memcli compact`."""

from __future__ import annotations

from memcli.cli.spec import DRY_RUN, CommandSpec, Param, json_flag, quiet_flag, user_flag

SPEC = CommandSpec(
    name="compact",
    help="""Tidy the memory: stale checkpoints, long conversations, overfull categories, merge leftovers, the index.

Writes .memory/.vault/compact-log.json. Running it twice changes nothing the second time.
Your personal memory is compacted only with --user (no git hook runs it).""",
    epilog="""Examples:

  memcli compact --dry-run

  memcli compact --json

  memcli compact --if-due --quiet      (at most once per 10 minutes)

  memcli compact --user --dry-run      (your personal memory)
""",
    params=(
        DRY_RUN,
        Param(
            "if_due",
            "flag",
            flags=("--if-due",),
            type=bool,
            default=False,
            help="Do nothing if the last run is recent (10 minutes by default).",
        ),
        json_flag("Print the report as JSON."),
        quiet_flag("Print nothing."),
        user_flag("Compact your personal memory, not the project's."),
    ),
)


def run(
    dir_option: str | None,
    dry_run: bool = False,
    if_due: bool = False,
    as_json: bool = False,
    quiet: bool = False,
    user: bool = False,
) -> int:
    from memcli import output
    from memcli.cli import common
    from memcli.upkeep.compact import compact

    if user:
        from memcli.errors import NotInitialized

        store = common.memory(None, user=True).store
        if not store.layout.exists():
            raise NotInitialized(f"no personal memory yet (it goes in {store.layout.root}); nothing to compact")
    else:
        store = common.open_store(dir_option)
    report = compact(store, dry_run=dry_run, if_due=if_due)
    for problem in report.problems:
        if not as_json:
            output.warn(problem)
    if as_json:
        output.print_json(report.to_json())
        return 0
    if quiet:
        return 0
    if report.skipped:
        output.echo("compaction not due yet (use it without --if-due to run it now)")
        return 0
    prefix = "would " if dry_run else ""
    for action in report.actions:
        output.echo(f"{prefix}{action}")
    if not report.actions:
        output.echo("nothing to compact")
    elif not dry_run:
        plural = output.plural
        output.echo(
            f"compacted: {plural(report.checkpoints_cleaned, 'checkpoint')},"
            f" {plural(report.conversations_trimmed, 'conversation')},"
            f" {plural(report.vault_entries_merged, 'entry', 'entries')} summarised,"
            f" {plural(report.duplicates_dropped, 'duplicate')} dropped, {plural(report.ids_renumbered, 'id')} renumbered,"
            f" {plural(report.legacy_files_cleaned, 'legacy file')}"
        )
    return 0
