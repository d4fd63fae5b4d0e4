from __future__ import annotations

from typing import Annotated, Optional

import typer

from memcli import output
from memcli.cli import common

NAME = "list"
EPILOG = """Examples:

  memcli list                      (every agent)

  memcli list dev --category tasks

  memcli list dev --tag sse --json
"""


def command(
    agent: Annotated[Optional[str], typer.Argument(help="Only this agent.")] = None,
    category: Annotated[Optional[str], typer.Option("--category", "-c", help="Only this category.")] = None,
    tag: Annotated[Optional[str], typer.Option("--tag", "-t", help="Only entries with this tag.")] = None,
    limit: Annotated[Optional[int], typer.Option("--limit", "-n", min=1, max=1_000_000, help="At most this many entries.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON array of entries.")] = False,
) -> None:
    """List entries, newest first: id, agent/category, date, tags and first line."""
    from memcli import api

    rows = api.entries(common.open_store(), agent, category, tag, limit)
    if as_json:
        output.print_json([api.entry_json(r.agent, r.category, r.entry) for r in rows])
        return
    for r in rows:
        e = r.entry
        first = next((line.strip() for line in e.body.splitlines() if line.strip()), "")
        tags = " ".join("#" + t for t in e.tags)
        typer.echo(
            f"{output.bold(str(e.id))}  {r.agent}/{r.category}  {output.dim(e.header_date)}  {first[:80]}"
            + (f"  {output.dim(tags)}" if tags else "")
        )
