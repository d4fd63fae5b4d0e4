from __future__ import annotations

from typing import Annotated

import typer

from memcli import output
from memcli.cli import common
from memcli.errors import EXIT_NO_CHECKPOINT

NAME = "recover"
EPILOG = f"""Exit status: 0 with a valid checkpoint; {EXIT_NO_CHECKPOINT} when there is none (never saved,
older than the validity period, or corrupt); 1 on other errors.

Examples:

  memcli recover dev

  memcli recover dev --json > last-session.json || echo "fresh start"
"""


def command(
    agent: Annotated[str, typer.Argument(help="Agent id.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the checkpoint as JSON.")] = False,
) -> None:
    """Print the agent's checkpoint if it is still valid (7 days by default)."""
    from memcli.sessions import checkpoint_age_ms, recover

    store = common.open_store()
    store.check(agent)
    data = recover(store.layout, agent, store.config.checkpoint_max_age_days)
    if data is None:
        typer.echo(f"no valid checkpoint for {agent}", err=True)
        raise typer.Exit(EXIT_NO_CHECKPOINT)
    age_h = checkpoint_age_ms(data) / 3_600_000
    if as_json:
        output.print_json({**data, "ageHours": round(age_h, 2)})
        return
    extra = "".join(f", {k} {data[k]}" for k in ("chatId", "modelId") if data.get(k))
    typer.echo(output.bold(f"checkpoint of {agent}: {len(data['messages'])} messages, saved {age_h:.1f} h ago{extra}"))
    for m in data["messages"]:
        typer.echo(f"[{m.get('role', '?')}]: {m['text']}")
