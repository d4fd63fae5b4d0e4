"""``memcli mcp``: the memory as a Model Context Protocol server over stdio.

Built on the official ``mcp`` Python SDK (an optional extra: ``pip install "memcli[mcp]"``).
The tools are generated from ``memcli.api.OPERATIONS``, the table of operations the CLI and the
page call too: to read (``search``, ``show``, ``list``, ``inject``, ``status``) and to curate
(``add``, ``edit``, ``remove``, ``done``, ``archive``, ``unarchive``, ``pin``, ``unpin``,
``supersede``), with the same validation, secret and content refusal, locking and freshness.  ``agent``
defaults to the server's own (``memcli mcp --agent ID``, as ``memcli setup`` writes it); a write to
an agent that has no memory while others do is refused, naming them (a model that says "claude"
where the hooks read "dev" would write memory no session ever gets).  Each call finds the memory again (``--dir``, ``MEMCLI_DIR`` or
upwards from the folder the server started in) and reads the files as they are then, so
writes by the CLI, git or another session are seen at once.  Every result is text for the model
plus structured content; a bad call is an MCP tool error (``isError``) and the server goes on.
"""

import os
import re  # no `from __future__ import annotations`: the SDK reads these annotations at run time
from typing import Annotated, Any, Optional

from memcli.errors import MemcliError

INSTALL = 'memcli mcp needs the MCP Python SDK (version 2): pip install "memcli[mcp]"'
INSTRUCTIONS = (
    "Project memory kept by memcli in the repository's .memory/ folder: decisions, lessons, open tasks, "
    "handoffs of earlier agent sessions. Call `inject` at the start of a task for the memory block, `search` to "
    "look something up, and `add` when a decision is made or a lesson learned (one fact per entry, #tags for "
    "topics; tasks as '- [ ] ...'). Keep it true: `done` when you finish a task, `edit` a memory that became "
    "wrong, `remove` one that is no longer worth keeping. Never store secrets: they are refused."
)


def _sdk():
    try:
        from mcp.server.mcpserver import MCPServer
        from mcp.server.mcpserver.exceptions import ToolError
        from mcp.types import CallToolResult, TextContent, ToolAnnotations
    except ImportError:
        raise MemcliError(INSTALL) from None
    return MCPServer, ToolError, CallToolResult, TextContent, ToolAnnotations


def build_server(dir_option: str | None = None, default_agent: str | None = None):
    """The server (not yet running): one tool for each operation of ``memcli.api.OPERATIONS`` that
    has one, its inputs and description taken from the table; ``default_agent`` answers for a call
    that names no agent."""
    MCPServer, ToolError, CallToolResult, TextContent, ToolAnnotations = _sdk()  # first: says what is missing

    from memcli import __version__, api
    from memcli.config import DEFAULT_CATEGORIES

    if default_agent is not None:
        from memcli.storage.paths import validate_agent

        validate_agent(default_agent)
    try:  # the categories of this memory tree (its config.toml may add some), as an enum in the schema
        from memcli.config import load_config
        from memcli.storage.paths import find_layout

        categories = tuple(load_config(find_layout(dir_option).memory).vault_categories)
    except MemcliError:
        categories = DEFAULT_CATEGORIES

    server = MCPServer("memcli", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING")
    for op in api.OPERATIONS.values():
        if op.tool is None:
            continue
        annotations = ToolAnnotations(
            read_only_hint=not op.writes,
            destructive_hint=op.destructive if op.writes else None,
            idempotent_hint=False if op.writes else None,
            open_world_hint=False,
        )
        tool = _tool(op, dir_option, default_agent, categories, ToolError, CallToolResult, TextContent)
        server.add_tool(tool, name=op.tool, description=op.help, annotations=annotations)
    return server


def _tool(op, dir_option, default_agent, categories, ToolError, CallToolResult, TextContent):
    """The tool function of one operation, its signature (what the SDK reads for the input schema)
    built from the operation's inputs.  A call opens the memory afresh (writes by the CLI, git or
    another session are seen at once); a MemcliError (bad input, a refused secret, no memory)
    becomes the tool's error message."""
    import inspect

    from memcli import api

    def call(**given: Any) -> Any:
        mem = api.Memory(dir_option, default_agent=default_agent, known_agents_only=True, project_only=True)
        inputs = {i.arg: i.default if given.get(i.name) is None else given[i.name] for i in op.inputs}
        try:
            text, data = op.run(mem, **inputs).for_agents()
        except MemcliError as exc:
            raise ToolError(exc.message) from None
        except OSError as exc:
            raise ToolError(f"{exc.strerror or exc}") from None
        return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=data)

    params = []
    for i in op.inputs:
        kind, default = _schema(i, default_agent, categories)
        params.append(inspect.Parameter(i.name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=kind))
    call.__name__ = op.tool
    call.__doc__ = op.help
    call.__signature__ = inspect.Signature(params, return_annotation=CallToolResult)  # type: ignore[attr-defined]
    return call


def _schema(i, default_agent: Optional[str], categories: tuple) -> tuple:
    """An input's type for the SDK's schema (pydantic), and its default (``empty``: required)."""
    import inspect
    from typing import Literal

    from pydantic import Field  # the SDK's own dependency

    help = i.help
    if i.kind == "agent":
        mine = f" [default: {default_agent}, this server's agent]" if default_agent else ""
        help = f"{help.rstrip('.')}{mine}. `status` lists them."
    limits: dict[str, Any] = {
        "text": {"min_length": 1},
        "number": {"ge": i.low, "le": i.high},
        "id": {"ge": 0},
        "ids": {"min_length": 1},
    }.get(i.kind, {})
    base: Any = {
        "text": str,
        "string": str,
        "agent": str,
        "number": int,
        "id": int,
        "ids": list[int],
        "words": list[str],
        "category": Literal[categories],  # an enum built from the tree's config
    }[i.kind]
    field = Field(description=help, **limits)
    if i.required:
        return Annotated[base, field], inspect.Parameter.empty
    return Annotated[Optional[base], field], None


# A JSON string escape of half a UTF-16 pair (``"\\ud800"``) is valid JSON that the SDK cannot
# decode: it would drop the request unanswered.  It is read as U+FFFD, as memcli reads such text
# everywhere else.
_LONE_SURROGATE = re.compile(
    r"(?<!\\)\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"
    r"|(?<![0-9a-fA-F]{2})(?<!\\u[dD][89abAB])(?<!\\)\\u[dD][c-fC-F][0-9a-fA-F]{2}"
)


def _clean_line(line: str) -> str:
    return _LONE_SURROGATE.sub(r"\\ufffd", line) if "\\u" in line else line


def serve(dir_option: str | None = None, default_agent: str | None = None) -> None:
    import io
    import sys

    server = build_server(dir_option, default_agent)  # first: without the SDK, it says what to install

    import anyio
    from mcp.server.stdio import stdio_server

    os.environ.setdefault("RUST_BACKTRACE", "0")

    class Input(io.TextIOWrapper):
        def readline(self, size: int = -1) -> str:  # type: ignore[override]  # typeshed's MRO for TextIOWrapper
            return _clean_line(super().readline(size))

    async def main() -> None:
        stdin = anyio.wrap_file(Input(sys.stdin.buffer, encoding="utf-8", errors="replace"))
        async with stdio_server(stdin=stdin) as (read, write):
            lowlevel = server._lowlevel_server  # what MCPServer.run("stdio") runs, with this input
            await lowlevel.run(read, write, lowlevel.create_initialization_options())

    anyio.run(main)
