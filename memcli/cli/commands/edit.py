from __future__ import annotations

from typing import Annotated, List, Optional

import typer

from memcli.cli import common
from memcli import api
from memcli.errors import MemcliError
from memcli.paths import PROJECT_NAME

NAME = "edit"
EPILOG = """Examples:

  memcli edit dev 1773679871839 "Adopt SSE; WebSockets only for the admin panel"

  memcli edit dev 1773679871839          (opens $EDITOR on the entry)

  memcli edit _project                   (opens $EDITOR on .memory/_project.md)

  memcli edit _project - < PROJECT.md
"""


def command(
    agent: Annotated[str, typer.Argument(help="Agent id, or _project for .memory/_project.md.")],
    entry_id: Annotated[Optional[str], typer.Argument(metavar="ID", help="The entry's id (see `memcli list`).")] = None,
    text: Annotated[Optional[str], typer.Argument(help="New text; '-' reads stdin; omitted: $EDITOR.")] = None,
    tag: Annotated[Optional[List[str]], typer.Option("--tag", "-t", help="Replace the tags with these (repeatable).")] = None,
    allow_secret: Annotated[bool, typer.Option("--allow-secret", help="Store text even if it looks like a secret.")] = False,
) -> None:
    """Change an entry's text or tags by id, or the shared _project.md."""
    store = common.open_store()
    if agent == PROJECT_NAME:
        new = entry_id if text is None else text
        body = common.read_text_argument(new, initial=store.read_project())
        api.check_secrets(body, allow_secret)
        store.write_project(body if body.endswith("\n") or not body else body + "\n")
        typer.echo(f"updated {store.layout.project_file}", err=True)
        return
    if entry_id is None:
        raise MemcliError("missing ID: `memcli edit AGENT ID [TEXT]` (see `memcli list AGENT` for ids)")
    located = store.find(agent, api.parse_id(entry_id))
    tags = api.clean_tags(tag) if tag else None
    body: str | None
    if text is None and tags is not None:
        body = None  # only the tags change
    else:
        body = api.require_text(common.read_text_argument(text, initial=located.entry.body))
        api.check_secrets(body, allow_secret)
    updated = store.update(agent, located.entry.id, body, tags)
    typer.echo(f"updated {agent}/{updated.category} {updated.entry.id}", err=True)
