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
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing on success.")] = False,
) -> None:
    """Create .memory/, _project.md, the .gitattributes/.gitignore lines and the git hooks.

    Safe to run again: it never overwrites what is there.
    """
    from memcli import initialize

    layout = common.layout(must_exist=False)
    if not common.STATE["dir"] and not layout.exists():
        top = initialize.git_toplevel(Path.cwd())
        if top and not (Path.cwd() / MEMORY_DIR).is_dir():
            layout = Layout(top)
    plan = initialize.plan_init(layout)
    initialize.apply_init(plan)
    if not quiet:
        for message in plan.messages or [f"{layout.memory} is already set up; nothing to do"]:
            typer.echo(message)
