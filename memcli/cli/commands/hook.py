from __future__ import annotations

from typing import Annotated, List, Optional

import typer

NAME = "hook"
EPILOG = "Run by the git hooks that `memcli init` installs; not meant to be run by hand."


def command(
    name: Annotated[str, typer.Argument(help="post-checkout, post-merge or post-rewrite.")],
    args: Annotated[Optional[List[str]], typer.Argument(help="The hook's own arguments.")] = None,
) -> None:
    """Bring the index up to date after git changed files; after a merge, compact if due."""
    from memcli.errors import MemcliError
    from memcli.paths import find_layout
    from memcli.store import Store

    try:
        layout = find_layout(None)
    except MemcliError:
        return  # no memory in this repository: nothing to do
    store = Store(layout)
    if name == "post-merge":
        from memcli.compact import compact

        compact(store, if_due=True)  # brings the index up to date too
    from memcli.index import SearchIndex

    SearchIndex(store).ensure_fresh()
