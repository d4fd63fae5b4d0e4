from __future__ import annotations

from memcli.cli import common

NAME = "mcp"
EPILOG = """Needs the MCP SDK: pip install "memcli[mcp]"

Examples:

  claude mcp add memcli -- memcli mcp

  codex mcp add memcli -- memcli mcp

  memcli --dir ~/src/shop mcp
"""


def command() -> None:
    """Serve the memory to MCP clients over stdio: the tools search, add, show, list and inject.

    The same checks as the CLI (names, secrets, locking); each call reads the memory as it is
    then. The memory is found as for every command: --dir, MEMCLI_DIR, else upwards from the
    folder the server starts in.
    """
    from memcli.mcp_server import serve

    serve(common.STATE["dir"])
