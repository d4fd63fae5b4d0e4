from __future__ import annotations

from typing import Annotated

import typer

from memcli import output
from memcli.cli import common

NAME = "compact"
EPILOG = """Examples:

  memcli compact --dry-run

  memcli compact --json

  memcli compact --if-due --quiet      (at most once per 10 minutes)
"""


def command(
    dry_run: Annotated[bool, typer.Option("--dry-run", "-n", help="Say what would change; change nothing.")] = False,
    if_due: Annotated[bool, typer.Option("--if-due", help="Do nothing if the last run is recent (10 minutes by default).")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing.")] = False,
) -> None:
    """Tidy the memory: stale checkpoints, long conversations, overfull categories, merge leftovers, the index.

    Writes .memory/.vault/compact-log.json. Running it twice changes nothing the second time.
    """
    from memcli.compact import compact

    store = common.open_store()
    report = compact(store, dry_run=dry_run, if_due=if_due)
    for problem in report.problems:
        if not as_json:
            output.warn(problem)
    if as_json:
        output.print_json(report.to_json())
        return
    if quiet:
        return
    if report.skipped:
        typer.echo("compaction not due yet (use it without --if-due to run it now)")
        return
    prefix = "would " if dry_run else ""
    for action in report.actions:
        typer.echo(f"{prefix}{action}")
    if not report.actions:
        typer.echo("nothing to compact")
    elif not dry_run:
        typer.echo(
            f"compacted: {report.checkpointsCleaned} checkpoints, {report.conversationsTrimmed} conversations,"
            f" {report.vaultEntriesMerged} entries summarised, {report.duplicatesDropped} duplicates dropped,"
            f" {report.idsRenumbered} ids renumbered, {report.legacyFilesCleaned} legacy files"
        )
