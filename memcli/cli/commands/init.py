"""`memcli init`."""

from __future__ import annotations

from memcli.cli.spec import CommandSpec, Param, quiet_flag

SPEC = CommandSpec(
    name="init",
    help="""Create .memory/, _project.md, the .gitattributes/.gitignore lines, the merge driver and the git hooks.

Safe to run again: it never overwrites what is there. Vault files merge entry by
entry with memcli's merge driver (registered in .git/config). The post-checkout,
post-merge and post-rewrite hooks keep the index fresh and change no tracked file;
the pre-commit hook compacts memory that is being committed, when due, and stages
it. A hook of your own is kept and still runs first. Honours core.hooksPath. Works
outside git too (no hooks, no driver).""",
    epilog="Example: memcli init    (in the root of your repository)",
    params=(
        Param(
            "no_hooks", "flag", flags=("--no-hooks",), type=bool, default=False, help="Do not install the git hooks."
        ),
        Param(
            "remove_hooks",
            "flag",
            flags=("--remove-hooks",),
            type=bool,
            default=False,
            help="Remove memcli's git hooks (yours are put back) and exit.",
        ),
        quiet_flag(),
    ),
)


def run(dir_option: str | None, no_hooks: bool = False, remove_hooks: bool = False, quiet: bool = False) -> int:
    from pathlib import Path

    from memcli.upkeep import initialize
    from memcli.cli import common
    from memcli import output
    from memcli.output import echo
    from memcli.git.repo import toplevel
    from memcli.storage.paths import MEMORY_DIR, Layout

    layout = common.layout(dir_option, must_exist=False)
    if not (dir_option or common.env_dir()) and not layout.exists():
        top = toplevel(Path.cwd())
        if top and not (Path.cwd() / MEMORY_DIR).is_dir():
            layout = Layout(top)
    if remove_hooks:
        from memcli.git import hooks

        for message in hooks.remove(layout.root) or ["no memcli hooks installed"]:
            echo(message)
        return 0
    plan = initialize.plan_init(layout, hooks=not no_hooks)
    initialize.apply_init(plan)
    if not quiet:
        for message in plan.messages or [f"{layout.memory} is already set up; nothing to do"]:
            echo(message)
        from memcli.errors import MemcliError
        from memcli.storage.store import MIGRATE_HINT, Store

        try:
            legacy = Store(layout).category_files() if layout.exists() else []
        except MemcliError:  # a config.toml that is not TOML: status and every command say so
            legacy = []
        if legacy:
            echo(MIGRATE_HINT.format(files=output.plural(len(legacy), "category file")))
    return 0
