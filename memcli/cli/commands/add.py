from __future__ import annotations

from typing import Annotated, List, Optional

import typer

from memcli.cli import common

NAME = "add"
EPILOG = """Examples:

  memcli add dev decisions "Adopt SSE instead of WebSockets #sse #architecture"

  memcli add dev tasks "- [ ] write the login test"

  git log -1 --format=%B | memcli add dev lessons - --tag release
"""


def command(
    agent: Annotated[str, typer.Argument(help="Agent id, e.g. dev.")],
    category: Annotated[str, typer.Argument(help="decisions, lessons, tasks, projects or handoffs.")],
    text: Annotated[Optional[str], typer.Argument(help="The text; '-' reads stdin; omitted: $EDITOR.")] = None,
    tag: Annotated[Optional[List[str]], typer.Option("--tag", "-t", help="A tag (repeatable); #hashtags in the text count too.")] = None,
    allow_secret: Annotated[bool, typer.Option("--allow-secret", help="Store text even if it looks like a secret.")] = False,
) -> None:
    """Add an entry to an agent's category and print its id."""
    from memcli import api

    store = common.open_store()
    store.check(agent, category)
    api.clean_tags(tag)
    entry = api.add(store, agent, category, common.read_text_argument(text), tag, allow_secret)
    typer.echo(str(entry.id))
