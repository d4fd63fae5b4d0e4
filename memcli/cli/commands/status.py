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
    """Per agent and category: counts, open tasks, last handoff, checkpoint age; the index, compaction and git."""
    from memcli.status import full_status

    store = common.open_store()
    report = full_status(store, agent)
    if as_json:
        output.print_json(report)
        return
    for problem in report["problems"]:
        output.warn(problem)
    typer.echo(f"memory: {store.layout.memory}")
    if not report["agents"]:
        typer.echo("no agents yet — add one: memcli add AGENT CATEGORY TEXT")
    for name, info in report["agents"].items():
        handoff = info["last_handoff"]["date"] if info["last_handoff"] else "none"
        cp = info["checkpoint"]
        checkpoint = "none" if cp is None else f"{cp['age_hours']:.1f} h old" + ("" if cp["valid"] else " (expired)")
        typer.echo(
            f"{output.bold(name)}: {info['entries']} entries, {info['open_tasks']} open tasks,"
            f" last handoff {handoff}, checkpoint {checkpoint}"
        )
        typer.echo("  " + "  ".join(f"{c} {v['entries']}" for c, v in info["categories"].items()))
    idx = report["index"]
    if not idx["exists"]:
        typer.echo("index: not built yet (the next search builds it)")
    else:
        typer.echo("index: " + ("up to date" if idx["fresh"] else f"{idx['changed_files']} changed files (the next search updates it)"))
    last = report["last_compaction"]
    typer.echo(f"last compaction: {last['timestamp'] if last else 'never'}")
    git = report["git"]
    if git:
        hooks = "installed" if all(git["hooks"].values()) else ("partly installed" if any(git["hooks"].values()) else "not installed")
        typer.echo(f"git: branch {git['branch']}, {git['uncommitted']} uncommitted memory changes, hooks {hooks}")
