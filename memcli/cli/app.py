"""The Typer application, built from the commands' specs: it serves --help, shell completion, the
man page and usage errors.  Commands run without it (``memcli.cli.fast``) unless their
arguments need Typer's error messages."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from memcli import __version__
from memcli.cli import common
from memcli.cli.fast import load, typer_command
from memcli.cli.spec import COMMANDS, DIR
from memcli.errors import EXIT_CODES

HELP = """Git-native memory for AI coding agents.

Memory lives as plain files in .memory/ inside your repository; a tantivy index in
.memory/.vault/ is a disposable cache.

Exit codes: {codes}.

Environment: MEMCLI_DIR (like --dir), EDITOR/VISUAL (add, edit), NO_COLOR.
"""


HELP = HELP.replace("{codes}", "; ".join(f"{code} {short}" for code, short, _ in EXIT_CODES))


class SuggestingGroup(typer.core.TyperGroup):
    """Unknown commands get the nearest valid one suggested."""

    def resolve_command(self, ctx, args):
        name = args[0] if args else ""
        if name and not name.startswith("-") and self.get_command(ctx, name) is None:
            import difflib

            commands = [self.get_command(ctx, c) for c in self.list_commands(ctx)]
            visible = [c.name for c in commands if c is not None and c.name and not c.hidden]
            close = difflib.get_close_matches(name, visible, n=1, cutoff=0.5)
            hint = f" Did you mean {close[0]!r}?" if close else ""
            ctx.fail(f"No such command {name!r}.{hint}")
        return super().resolve_command(ctx, args)


app = typer.Typer(
    name="memcli",
    cls=SuggestingGroup,
    help=HELP,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"memcli {__version__}")
        raise typer.Exit()


@app.callback()
def main_callback(
    dir: Annotated[
        Optional[str],
        typer.Option(*DIR.flags, metavar=DIR.metavar, help=DIR.help),  # the one --dir (cli.spec.DIR)
    ] = None,
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version and exit.")
    ] = False,
) -> None:
    common.STATE["dir"] = dir


for name in COMMANDS:
    module = load(name)
    app.command(name, help=module.SPEC.help, epilog=module.SPEC.epilog)(typer_command(module.SPEC, module.run))


def run(argv: list[str]) -> int:
    """Run the Typer app; MemcliError and other exceptions are handled by ``memcli.main``.

    A usage error is one line on stderr (exit 2) that names the command's --help, not
    Click's three-line block.
    """
    import sys

    from typer.exceptions import TyperException  # Click's exceptions (vendored by Typer) derive from it

    try:
        result = app(args=argv, prog_name="memcli", standalone_mode=False)
    except TyperException as exc:
        ctx = getattr(exc, "ctx", None)  # a usage error knows its command
        if type(exc).__name__ == "NoArgsIsHelpError" and ctx is not None:
            sys.stdout.write(ctx.get_help() + "\n")
            return 0
        message = " ".join(exc.format_message().split())
        if hasattr(exc, "ctx"):
            where = ctx.command_path if ctx is not None else "memcli"
            message += f" (see '{where} --help')"
        sys.stderr.write(f"memcli: error: {message}\n")
        return exc.exit_code
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except Exception as exc:
        if type(exc).__name__ == "Abort":
            sys.stderr.write("memcli: aborted\n")
            return 1
        raise
    return result if isinstance(result, int) else 0
