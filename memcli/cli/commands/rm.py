from __future__ import annotations

from typing import Annotated, List

import typer

from memcli import output
from memcli import api
from memcli.cli import common

NAME = "rm"
EPILOG = "Example: memcli rm dev 1773679871839 1773679871840 --yes"


def command(
    agent: Annotated[str, typer.Argument(help="Agent id.")],
    ids: Annotated[List[str], typer.Argument(metavar="ID...", help="Ids of the entries to remove.")],
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation on a terminal.")] = False,
) -> None:
    """Remove entries by id: all of them, or none if one is unknown.

    Where two entries share an id (a copy, an old merge), one is removed and the
    other stays; memcli says which. memcli's merge driver keeps a removal removed
    through git merges, rebases and pulls.
    """
    store = common.open_store()
    wanted = [api.parse_id(i) for i in ids]
    targets = [store.find(agent, i) for i in wanted]  # fails before asking if one is unknown
    if not yes and output.is_interactive():
        for t in targets:
            first = t.entry.body.strip().splitlines()[0] if t.entry.body.strip() else ""
            typer.echo(f"  {t.entry.id}  {t.category}  {first[:70]}")
        if not typer.confirm(f"Remove {len(targets)} entr{'y' if len(targets) == 1 else 'ies'}?"):
            raise typer.Exit(1)
    removed = store.remove(agent, wanted)
    for t in removed:
        twins = store.twins_left.get(t.entry.id, 0)
        first = " ".join(t.entry.body.split())[:60]
        note = f" (\"{first}\"; {twins} other entr{'y' if twins == 1 else 'ies'} with this id left)" if twins else ""
        typer.echo(f"removed {agent}/{t.category} {t.entry.id}{note}", err=True)
