"""`memcli mcp`."""

from __future__ import annotations

from memcli.cli.spec import CommandSpec

SPEC = CommandSpec(
    name="mcp",
    help="""Serve the memory to MCP clients over stdio: the tools search, add, show, list and inject.

The same checks as the CLI (names, secrets, locking); each call reads the memory as it is
then. The memory is found as for every command: --dir, MEMCLI_DIR, else upwards from the
folder the server starts in.""",
    epilog="""Needs the MCP SDK: pip install "memcli[mcp]"

Examples:

  claude mcp add memcli -- memcli mcp

  codex mcp add memcli -- memcli mcp

  memcli --dir ~/src/shop mcp
""",
    params=(),
)


def run(dir_option: str | None) -> int:
    from memcli.agents.mcp_server import serve

    serve(dir_option)
    return 0
