from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from memcli.cli import common
from memcli.paths import MEMORY_DIR, Layout

NAME = "init"
EPILOG = "Example: memcli init    (in the root of your repository)"


def command(
    no_hooks: Annotated[bool, typer.Option("--no-hooks", help="Do not install the git hooks.")] = False,
    remove_hooks: Annotated[bool, typer.Option("--remove-hooks", help="Remove memcli's git hooks (yours are put back) and exit.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing on success.")] = False,
) -> None:
    """Create .memory/, _project.md, the .gitattributes/.gitignore lines, the merge driver and the git hooks.

    Safe to run again: it never overwrites what is there. Vault files merge entry by
    entry with memcli's merge driver (registered in .git/config). The post-checkout,
    post-merge and post-rewrite hooks keep the index fresh and change no tracked file;
    the pre-commit hook compacts memory that is being committed, when due, and stages
    it. A hook of your own is kept and still runs first. Honours core.hooksPath. Works
    outside git too (no hooks, no driver).
    """
    from memcli import initialize

    layout = common.layout(must_exist=False)
    if not common.STATE["dir"] and not layout.exists():
        top = initialize.git_toplevel(Path.cwd())
        if top and not (Path.cwd() / MEMORY_DIR).is_dir():
            layout = Layout(top)
    if remove_hooks:
        from memcli import hooks

        for message in hooks.remove(layout.root) or ["no memcli hooks installed"]:
            typer.echo(message)
        return
    plan = initialize.plan_init(layout, hooks=not no_hooks)
    initialize.apply_init(plan)
    if not quiet:
        for message in plan.messages or [f"{layout.memory} is already set up; nothing to do"]:
            typer.echo(message)
