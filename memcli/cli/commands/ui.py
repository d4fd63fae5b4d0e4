"""`memcli ui`."""

from __future__ import annotations

from memcli.cli.spec import CommandSpec, Param

SPEC = CommandSpec(
    name="ui",
    help="""Serve a page to see, search and curate the memory, and preview what inject tells an agent.

Listens on 127.0.0.1 only; the URL it prints holds a random token that every request needs.
Writes go through the same checks as the commands (names, secrets, the lock). Ctrl-C stops it.""",
    epilog="""Examples:

  memcli ui

  memcli ui --port 9000 --no-open

  memcli ui --read-only
""",
    params=(
        Param(
            "port",
            "option",
            flags=("--port", "-p"),
            type=int,
            default=8377,
            help="Port on 127.0.0.1 (0: any free one).",
            metavar="N",
            min=0,
            max=65535,
        ),
        Param("no_open", "flag", flags=("--no-open",), type=bool, default=False, help="Print the URL only."),
        Param(
            "read_only",
            "flag",
            flags=("--read-only",),
            type=bool,
            default=False,
            help="Show only: no button writes, and every write is refused.",
        ),
    ),
)


def run(dir_option: str | None, port: int = 8377, no_open: bool = False, read_only: bool = False) -> int:
    from memcli import api
    from memcli.ui.server import serve

    return serve(lambda: api.Memory(dir_option, project_only=True).store, port, not no_open, read_only)
