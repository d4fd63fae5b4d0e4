from __future__ import annotations

from typing import Annotated

import typer

from memcli import output
from memcli.cli import common

NAME = "resolve"
EPILOG = """Examples:

  git pull            (in a clone where memcli's merge driver was not registered: CONFLICT in .memory/...)
  memcli resolve      (merges each conflicted memory file entry by entry and stages it)
  git commit --no-edit
"""


def command(
    as_json: Annotated[bool, typer.Option("--json", help="Print what was resolved as JSON.")] = False,
) -> None:
    """Resolve conflicted memory files: merge them entry by entry, keeping both sides.

    For files git holds as unmerged, the three versions (base, ours, theirs) are merged
    as memcli's merge driver would have, and staged; a memory file with conflict markers
    outside a merge keeps the entries of both sides. Also registers the merge driver in
    this clone, so that the next merge needs none of this.
    """
    from memcli import gitutil, merge

    layout = common.layout()
    done = merge.resolve_all(layout)
    gitutil.ensure_merge_driver(layout.root)
    if as_json:
        output.print_json([{"path": p, "how": how} for p, how in done])
        return
    for path, how in done:
        typer.echo(f"resolved {path}: {how}")
    if not done:
        typer.echo("no conflicted memory files")
