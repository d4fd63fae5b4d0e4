from __future__ import annotations

from typing import Annotated, Optional

import typer

from memcli import output
from memcli.cli import common
from memcli.paths import PROJECT_NAME

NAME = "show"
EPILOG = """Examples:

  memcli show dev 1773679871839

  memcli show _project
"""


def command(
    agent: Annotated[str, typer.Argument(help="Agent id, or _project for .memory/_project.md.")],
    entry_id: Annotated[Optional[str], typer.Argument(metavar="ID", help="The entry's id.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the entry as JSON.")] = False,
) -> None:
    """Print one entry in full (or the shared _project.md)."""
    store = common.open_store()
    if agent == PROJECT_NAME:
        text = store.read_project()
        if as_json:
            output.print_json({"path": str(store.layout.project_file), "text": text})
        else:
            typer.echo(text, nl=not text.endswith("\n"))
        return
    if entry_id is None:
        from memcli.errors import MemcliError

        raise MemcliError("missing ID: `memcli show AGENT ID` (see `memcli list AGENT` for ids)")
    from memcli import api

    located, twins = api.show(store, agent, entry_id)
    if twins:
        output.warn(f"{twins + 1} entries share id {located.entry.id}; showing the first"
                    f" ({located.category}); the next write gives the others ids of their own")
    e = located.entry
    if as_json:
        output.print_json(api.entry_json(agent, located.category, e))
        return
    tags = " ".join("#" + t for t in e.tags)
    typer.echo(output.bold(f"{e.id}  {agent}/{located.category}  {e.header_date}") + (f"  {tags}" if tags else ""))
    typer.echo("")
    typer.echo(e.body)
