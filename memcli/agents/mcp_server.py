"""``memcli mcp``: the memory as a Model Context Protocol server over stdio.

Built on the official ``mcp`` Python SDK (an optional extra: ``pip install "memcli[mcp]"``).
Five tools — ``search``, ``add``, ``show``, ``list``, ``inject`` — each a thin face over
``memcli.api`` and ``memcli.recall.block``, the functions the CLI calls: the same validation, secret
refusal, locking and freshness.  Each call finds the memory again (``--dir``, ``MEMCLI_DIR`` or
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
    "topics; tasks as '- [ ] ...'). Never store secrets: they are refused."
)


def _sdk():
    try:
        from mcp.server.mcpserver import MCPServer
        from mcp.server.mcpserver.exceptions import ToolError
        from mcp.types import CallToolResult, TextContent, ToolAnnotations
    except ImportError:
        raise MemcliError(INSTALL) from None
    return MCPServer, ToolError, CallToolResult, TextContent, ToolAnnotations


def build_server(dir_option: str | None = None):
    """The server with memcli's five tools (not yet running)."""
    MCPServer, ToolError, CallToolResult, TextContent, ToolAnnotations = _sdk()  # first: says what is missing
    from pydantic import Field  # the SDK's own dependency

    from memcli import __version__

    server = MCPServer("memcli", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING")
    reading = ToolAnnotations(read_only_hint=True, open_world_hint=False)
    writing = ToolAnnotations(
        read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False
    )

    def store():
        from memcli.storage.paths import find_layout
        from memcli.storage.store import Store

        return Store(find_layout(dir_option))

    def result(text: str, data: dict[str, Any]) -> Any:
        return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=data)

    def guarded(fn):
        """MemcliError (bad input, a refused secret, no memory) becomes the tool's error message."""
        import functools

        @functools.wraps(fn)
        def call(*args, **kwargs):
            try:
                return fn(*args, **kwargs)
            except MemcliError as exc:
                raise ToolError(exc.message) from None
            except OSError as exc:
                raise ToolError(f"{exc.strerror or exc}") from None

        return call

    Agent = Annotated[str, Field(description="Agent id, e.g. dev (lower-case letters, digits, '.', '_', '-').")]
    OptionalAgent = Annotated[Optional[str], Field(description="Only this agent's entries.")]
    Category = Annotated[str, Field(description="decisions, lessons, tasks, projects or handoffs.")]
    OptionalCategory = Annotated[Optional[str], Field(description="Only this category.")]
    Limit = Annotated[Optional[int], Field(ge=1, le=1000, description="At most this many results.")]

    @server.tool(annotations=reading)
    @guarded
    def search(
        query: Annotated[str, Field(min_length=1, description="Words to search for (any text).")],
        agent: OptionalAgent = None,
        category: OptionalCategory = None,
        limit: Limit = None,
    ) -> CallToolResult:  # type: ignore[valid-type]  # the SDK is imported lazily
        """Search the memory (BM25, typo-tolerant): the best matching entries, best first."""
        from memcli import api

        hits, _ = api.search(store(), query, agent, category, limit)
        rows = [h.to_json() for h in hits]
        text = "\n\n".join(_entry_text(r) for r in rows) or "no matches"
        return result(text, {"results": rows})

    @server.tool(annotations=writing)
    @guarded
    def add(
        agent: Agent,
        category: Category,
        text: Annotated[
            str, Field(min_length=1, description="The entry: one fact, a line or two; #hashtags become tags.")
        ],
        tags: Annotated[Optional[list[str]], Field(description="More tags, one word each.")] = None,
    ) -> CallToolResult:  # type: ignore[valid-type]  # the SDK is imported lazily
        """Add an entry to an agent's memory and return its id (secrets are refused)."""
        from memcli import api

        entry = api.add(store(), agent, category, text, tags)
        data = api.entry_json(agent, category, entry)
        return result(f"added {agent}/{category} {entry.id}", data)

    @server.tool(annotations=reading)
    @guarded
    def show(
        agent: Agent,
        id: Annotated[int, Field(ge=0, description="The entry's id (from search or list).")],
    ) -> CallToolResult:  # type: ignore[valid-type]  # the SDK is imported lazily
        """One entry in full."""
        from memcli import api

        located, _ = api.show(store(), agent, id)
        data = api.entry_json(agent, located.category, located.entry)
        return result(_entry_text(data), data)

    @server.tool(name="list", annotations=reading)
    @guarded
    def list_entries(
        agent: OptionalAgent = None,
        category: OptionalCategory = None,
        limit: Annotated[
            Optional[int], Field(ge=1, le=1000, description="At most this many entries [default: 20].")
        ] = None,
    ) -> CallToolResult:  # type: ignore[valid-type]  # the SDK is imported lazily
        """Entries, newest first."""
        from memcli import api

        rows = [
            api.entry_json(r.agent, r.category, r.entry)
            for r in api.entries(store(), agent, category, None, limit or 20)
        ]
        text = "\n".join(
            f"{r['id']}  {r['agent']}/{r['category']}  {r['date']}  {_first_line(r['body'])}" for r in rows
        )
        return result(text or "no entries", {"entries": rows})

    @server.tool(annotations=reading)
    @guarded
    def inject(
        agent: Agent,
        task: Annotated[
            Optional[str], Field(description="What the agent is asked to do: picks the relevant decisions and lessons.")
        ] = None,
        budget: Annotated[Optional[int], Field(ge=1, le=100_000, description="Token budget [default: 2000].")] = None,
    ) -> CallToolResult:  # type: ignore[valid-type]  # the SDK is imported lazily
        """The memory block for an agent and a task: project, last session, relevant decisions and lessons, open
        tasks, within the token budget."""
        from memcli.recall import block as injection
        from memcli.storage.paths import find_layout, validate_agent

        validate_agent(agent)
        notes: list[str] = []
        sel, used = injection.build(find_layout(dir_option), agent, task or "", budget, False, notes.append)
        data = sel.to_json(agent, task or "", used)
        data["notes"] = notes
        return result(sel.render() or "(no memory yet)", data)

    return server


def _first_line(body: str) -> str:
    return next((line.strip() for line in body.splitlines() if line.strip()), "")[:100]


def _entry_text(row: dict[str, Any]) -> str:
    tags = " ".join("#" + t for t in row.get("tags") or [])
    head = f"{row['id']}  {row['agent']}/{row['category']}  {row['date']}" + (f"  {tags}" if tags else "")
    return f"{head}\n{row['body']}"


# A JSON string escape of half a UTF-16 pair (``"\\ud800"``) is valid JSON that the SDK cannot
# decode: it would drop the request unanswered.  It is read as U+FFFD, as memcli reads such text
# everywhere else.
_LONE_SURROGATE = re.compile(
    r"(?<!\\)\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"
    r"|(?<![0-9a-fA-F]{2})(?<!\\u[dD][89abAB])(?<!\\)\\u[dD][c-fC-F][0-9a-fA-F]{2}"
)


def _clean_line(line: str) -> str:
    return _LONE_SURROGATE.sub(r"\\ufffd", line) if "\\u" in line else line


def serve(dir_option: str | None = None) -> None:
    import io
    import sys

    server = build_server(dir_option)  # first: without the SDK, it says what to install

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
