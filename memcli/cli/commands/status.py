from __future__ import annotations

from typing import Annotated, Optional

import typer

from memcli import output
from memcli.cli import common

NAME = "status"
EPILOG = """Examples:

  memcli status

  memcli status dev --json
"""


def command(
    agent: Annotated[Optional[str], typer.Argument(help="Only this agent.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Per agent and category: entry counts, open tasks and the last handoff."""
    from memcli.status import vault_status

    store = common.open_store()
    report = vault_status(store, agent)
    if as_json:
        output.print_json(report)
        return
    typer.echo(f"memory: {store.layout.memory}")
    if not report["agents"]:
        typer.echo("no agents yet — add one: memcli add AGENT CATEGORY TEXT")
    for name, info in report["agents"].items():
        handoff = info["last_handoff"]["date"] if info["last_handoff"] else "none"
        typer.echo(
            f"{output.bold(name)}: {info['entries']} entries, {info['open_tasks']} open tasks, last handoff {handoff}"
        )
        counts = "  ".join(f"{c} {v['entries']}" for c, v in info["categories"].items())
        typer.echo(f"  {counts}")
