from __future__ import annotations

from typing import Annotated, List, Optional

import typer

from memcli import output
from memcli.cli import common

NAME = "migrate"
EPILOG = """Examples:

  memcli migrate --dry-run

  memcli migrate && git add .memory && git commit -m "memory: migrate to the vault layout"

  memcli migrate --from .project-memory/facts.jsonl --agent dev
"""


def command(
    dry_run: Annotated[bool, typer.Option("--dry-run", "-n", help="Say what would move; change nothing.")] = False,
    sources: Annotated[Optional[List[str]], typer.Option("--from", metavar="FILE", help="Also import this events.jsonl or facts.jsonl (repeatable).")] = None,
    agent: Annotated[str, typer.Option("--agent", "-a", help="The agent that imported memories go to.")] = "imported",
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Convert legacy flat <agent>.md files and JSON conversations into the vault layout.

    Keeps the old files as .bak (the next `memcli compact` removes them). Also imports the
    decisions, gotchas and next steps of .agent-memory/history/events.jsonl, and typed facts
    from --from files, each item once. Idempotent.
    """
    from pathlib import Path

    from memcli.migrate import migrate

    store = common.open_store()
    report = migrate(store, dry_run=dry_run, sources=[Path(s) for s in sources or []], agent=agent)
    if as_json:
        output.print_json(report.to_json())
        return
    verb = "would add" if dry_run else "added"
    for key, count in report.entries.items():
        typer.echo(f"{verb} {count} entr{'y' if count == 1 else 'ies'} to {key}")
    for agent, count in report.conversations.items():
        typer.echo(f"{verb} {count} messages to conversations/{agent}.jsonl")
    for note in report.skipped:
        typer.echo(f"skipped {note}", err=True)
    if not report.files:
        typer.echo("nothing to migrate")
    elif not dry_run:
        typer.echo(f"migrated {len(report.files)} file{'s' if len(report.files) != 1 else ''} (kept as .bak)")
