"""`memcli mcp`."""

from __future__ import annotations

from memcli.cli.spec import agent_option, CommandSpec

SPEC = CommandSpec(
    name="mcp",
    help="""Serve the memory to MCP clients over stdio: the tools search, show, list, inject and status to
read, add, edit, remove, done, archive, pin, unpin and supersede to curate.

The same checks as the CLI (names, secrets, locking); each call reads the memory as it is
then. The memory is found as for every command: --dir, MEMCLI_DIR, else upwards from the
folder the server starts in. --agent is the agent a call means when it names none.""",
    epilog="""Needs the MCP SDK: pip install "memcli[mcp]"

Examples:

  claude mcp add memcli -- memcli mcp --agent dev

  codex mcp add memcli -- memcli mcp --agent dev

  memcli --dir ~/src/shop mcp
""",
    params=(agent_option("The agent a tool call means when it names none (memcli setup writes it).", metavar="ID"),),
)


def run(dir_option: str | None, agent: str | None = None) -> int:
    from memcli.agents.mcp_server import serve

    serve(dir_option, agent)
    return 0
