"""``memcli mcp``: the memory as a Model Context Protocol server over stdio.

Built on the official ``mcp`` Python SDK (an optional extra: ``pip install "memcli[mcp]"``).
Tools to read (``search``, ``show``, ``list``, ``inject``, ``status``) and to curate (``add``,
``edit``, ``remove``, ``done``, ``archive``, ``pin``, ``unpin``, ``supersede``), each a thin face over ``memcli.api`` and ``memcli.recall.block``,
the functions the CLI calls: the same validation, secret refusal, locking and freshness.  ``agent``
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
    """The server with memcli's tools (not yet running); ``default_agent`` answers for a call that
    names no agent."""
    MCPServer, ToolError, CallToolResult, TextContent, ToolAnnotations = _sdk()  # first: says what is missing
    from typing import Literal

    from pydantic import Field  # the SDK's own dependency

    from memcli import __version__
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

    def agent_of(agent: str | None, writing: bool = False) -> str:
        """The agent a call is for: the one it names, else the server's; a write to an agent with no
        memory while others have some is refused (a wrong name would write memory no session reads)."""
        from memcli.storage.paths import validate_agent

        known = store().agents()
        chosen = agent or default_agent
        if chosen is None:
            names = ", ".join(known) or "none yet"
            raise MemcliError(f"name the agent (known agents: {names}), or start the server with --agent")
        validate_agent(chosen)
        if writing and known and chosen not in known:
            raise MemcliError(
                f"agent {chosen!r} has no memory here; known agents: {', '.join(known)}"
                + (f" (this server's agent is {default_agent})" if default_agent else "")
            )
        return chosen

    mine = f" [default: {default_agent}, this server's agent]" if default_agent else ""
    Agent = Annotated[
        Optional[str],
        Field(
            description=f"Agent id, e.g. dev (lower-case letters, digits, '.', '_', '-'){mine}. `status` lists them."
        ),
    ]
    OptionalAgent = Annotated[Optional[str], Field(description="Only this agent's entries.")]
    CategoryName = Literal[categories]  # type: ignore[valid-type]  # an enum built from the tree's config
    Category = Annotated[CategoryName, Field(description="What kind of memory it is.")]
    OptionalCategory = Annotated[Optional[CategoryName], Field(description="Only this category.")]
    Limit = Annotated[Optional[int], Field(ge=1, le=1000, description="At most this many results.")]
    EntryId = Annotated[int, Field(ge=0, description="The entry's id (from search or list).")]

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
        rows = [_withheld(h.to_json()) for h in hits]
        text = "\n\n".join(_entry_text(r) for r in rows) or "no matches"
        return result(text, {"results": rows})

    @server.tool(annotations=writing)
    @guarded
    def add(
        category: Category,
        text: Annotated[
            str, Field(min_length=1, description="The entry: one fact, a line or two; #hashtags become tags.")
        ],
        tags: Annotated[Optional[list[str]], Field(description="More tags, one word each.")] = None,
        agent: Agent = None,
    ) -> CallToolResult:  # type: ignore[valid-type]  # the SDK is imported lazily
        """Add an entry when a decision is made, a lesson learned, work is left open (tasks as "- [ ] ...") or a
        session ends (handoffs). Returns the new entry with its id. Secrets are refused."""
        from memcli import api

        agent = agent_of(agent, writing=True)
        db = store()
        same = api.existing_copy(db, agent, category, text)
        if same is not None:
            data = {**api.entry_json(agent, category, same.entry), "duplicate": True}
            return result(f"already stored as {agent}/{category} {same.entry.id}; nothing added", data)
        entry = api.add(db, agent, category, text, tags)
        data = {**api.entry_json(agent, category, entry), "duplicate": False}
        return result(f"added {agent}/{category} {entry.id}", data)

    @server.tool(annotations=reading)
    @guarded
    def show(id: EntryId, agent: Agent = None) -> CallToolResult:  # type: ignore[valid-type]  # the SDK is imported lazily
        """One entry in full: its text, tags, category and date."""
        from memcli import api

        agent = agent_of(agent)
        db = store()
        located, _ = api.show(db, agent, id)
        newest = api.newest_version(db, located)
        data = api.entry_json(agent, located.category, located.entry, newest)
        data = _withheld({**data, "held": api.held_of(db, located)})
        text = _entry_text(data)
        if newest is not None:
            text += f"\n\n(superseded: the newest version is {newest})"
        return result(text, data)

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

        db = store()
        found = api.entries(db, agent, category, None, limit or 20)
        held = api.held(db, found)
        rows = [_withheld({**api.entry_json(r.agent, r.category, r.entry), "held": held[id(r)]}) for r in found]
        text = "\n".join(
            f"{r['id']}  {r['agent']}/{r['category']}  {r['date']}  {_first_line(r['body'])}" for r in rows
        )
        return result(text or "no entries", {"entries": rows})

    @server.tool(annotations=reading)
    @guarded
    def inject(
        agent: Agent = None,
        task: Annotated[
            Optional[str], Field(description="What the agent is asked to do: picks the relevant decisions and lessons.")
        ] = None,
        budget: Annotated[Optional[int], Field(ge=1, le=100_000, description="Token budget [default: 2000].")] = None,
    ) -> CallToolResult:  # type: ignore[valid-type]  # the SDK is imported lazily
        """The memory block for an agent and a task: project, last session, relevant decisions and lessons, open
        tasks, within the token budget."""
        from memcli.recall import block as injection
        from memcli.storage.paths import find_layout, validate_agent

        agent = agent_of(agent)
        validate_agent(agent)
        notes: list[str] = []
        sel, used = injection.build(find_layout(dir_option), agent, task or "", budget, False, notes.append)
        data = sel.to_json(agent, task or "", used)
        data["notes"] = notes
        empty = f"(no memory yet for {agent})" if agent not in store().agents() else "(nothing fits in the budget)"
        return result(sel.render() or empty, data)

    @server.tool(annotations=writing)
    @guarded
    def edit(
        id: EntryId,
        text: Annotated[
            Optional[str], Field(min_length=1, description="The new text (its #hashtags become tags).")
        ] = None,
        tags: Annotated[
            Optional[list[str]],
            Field(description="Tags: with new text, added to its #hashtags; alone, they replace them."),
        ] = None,
        agent: Agent = None,
    ) -> CallToolResult:  # type: ignore[valid-type]  # the SDK is imported lazily
        """Correct a memory that became wrong or incomplete: new text, new tags, or both. Returns the entry."""
        from memcli import api

        if text is None and tags is None:
            raise MemcliError("give the new text, or tags, or both")
        agent = agent_of(agent, writing=True)
        db = store()
        located, _ = api.show(db, agent, id)
        updated = api.edit(db, located, text, tags)
        data = api.entry_json(agent, updated.category, updated.entry)
        return result(f"updated {agent}/{updated.category} {updated.entry.id}", data)

    @server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True, open_world_hint=False))
    @guarded
    def remove(
        ids: Annotated[list[int], Field(min_length=1, description="The ids of the entries to remove.")],
        agent: Agent = None,
    ) -> CallToolResult:  # type: ignore[valid-type]  # the SDK is imported lazily
        """Remove memories that are no longer worth keeping (wrong, outdated, duplicated): all of the ids, or none
        if one is unknown. Returns what was removed."""
        from memcli import api

        agent = agent_of(agent, writing=True)
        removed = store().remove(agent, list(ids))
        rows = [api.entry_json(agent, r.category, r.entry) for r, _twins in removed]
        text = "\n".join(f"removed {r['agent']}/{r['category']} {r['id']}: {_first_line(r['body'])}" for r in rows)
        return result(text, {"removed": rows})

    @server.tool(annotations=writing)
    @guarded
    def done(
        id: Annotated[int, Field(ge=0, description="The task entry's id (from list with category tasks).")],
        text: Annotated[Optional[str], Field(description="Only the open tasks that contain this text.")] = None,
        agent: Agent = None,
    ) -> CallToolResult:  # type: ignore[valid-type]  # the SDK is imported lazily
        """Mark a finished task done: the entry's open tasks ("- [ ]", or only those containing text) become
        "- [x]" and leave the memory block. Returns the lines ticked."""
        from memcli import api

        agent = agent_of(agent, writing=True)
        db = store()
        located, _ = api.show(db, agent, id)
        ticked = api.mark_done(db, located, text)
        return result("\n".join(ticked), {"id": located.entry.id, "agent": agent, "ticked": ticked})

    def set_state(ids: list[int], agent: str | None, tag: str, on: bool) -> Any:
        from memcli import api

        agent = agent_of(agent, writing=True)
        db = store()
        groups = {agent: [db.find(agent, i) for i in dict.fromkeys(ids)]}  # all known, or nothing done
        done = api.set_flag(db, groups, tag, on)
        rows = [{**api.entry_json(agent, t.category, t.entry), "changed": changed} for t, changed in done]
        verb = tag if on else f"un{tag}"
        text = "\n".join(
            f"{verb} {agent}/{r['category']} {r['id']}" + ("" if r["changed"] else " (already)") for r in rows
        )
        return result(text, {"entries": rows})

    Ids = Annotated[list[int], Field(min_length=1, description="The ids of the entries.")]

    @server.tool(annotations=writing)
    @guarded
    def archive(ids: Ids, agent: Agent = None) -> CallToolResult:  # type: ignore[valid-type]  # the SDK is imported lazily
        """Archive memories that were true once (a reversed decision, a lesson about code that is gone): they leave
        the memory block, list and search, and stay in git. Returns the entries."""
        from memcli.storage.store import ARCHIVED_TAG

        return set_state(ids, agent, ARCHIVED_TAG, True)

    @server.tool(annotations=writing)
    @guarded
    def pin(ids: Ids, agent: Agent = None) -> CallToolResult:  # type: ignore[valid-type]  # the SDK is imported lazily
        """Pin the few standing rules every session must see: they head the memory block whatever the task.
        Returns the entries."""
        from memcli.storage.store import PINNED_TAG

        return set_state(ids, agent, PINNED_TAG, True)

    @server.tool(annotations=writing)
    @guarded
    def unpin(ids: Ids, agent: Agent = None) -> CallToolResult:  # type: ignore[valid-type]  # the SDK is imported lazily
        """Unpin entries: they are injected again only when relevant to the task. Returns the entries."""
        from memcli.storage.store import PINNED_TAG

        return set_state(ids, agent, PINNED_TAG, False)

    @server.tool(annotations=writing)
    @guarded
    def supersede(
        id: EntryId,
        text: Annotated[str, Field(min_length=1, description="The new version of the memory.")],
        agent: Agent = None,
    ) -> CallToolResult:  # type: ignore[valid-type]  # the SDK is imported lazily
        """Replace a memory that changed (a decision reversed, a lesson corrected) with its new version: the old one
        is kept for the record and leaves the memory block, list and search. Returns the new entry."""
        from memcli import api

        agent = agent_of(agent, writing=True)
        db = store()
        located, _ = api.show(db, agent, id)
        new = api.supersede(db, located, text)
        data = api.entry_json(agent, located.category, new)
        return result(f"superseded {agent}/{located.category} {id} by {new.id}", data)

    @server.tool(annotations=reading)
    @guarded
    def status(agent: OptionalAgent = None) -> CallToolResult:  # type: ignore[valid-type]  # the SDK is imported lazily
        """The agents that have memory here, with their entries per category and open tasks, and the categories an
        entry may have. Use it to find the agent to read and write."""
        from memcli.upkeep.status import vault_status

        report = vault_status(store(), agent)
        agents = {
            name: {"entries": a["entries"], "open_tasks": a["open_tasks"], "categories": a["categories"]}
            for name, a in report["agents"].items()
        }
        data = {"agents": agents, "default_agent": default_agent, "categories": list(categories)}
        lines = [f"{name}: {a['entries']} entries, {a['open_tasks']} open tasks" for name, a in agents.items()]
        if default_agent:
            lines.append(f"this server's agent: {default_agent}")
        return result("\n".join(lines) or "no memory yet", data)

    return server


def _withheld(row: dict[str, Any]) -> dict[str, Any]:
    """An entry held back from agents (``memcli review``) is named to the agent, never quoted: its
    text could be a contributor's unreviewed words or a hijack."""
    if row.get("held"):
        from memcli.recall.trust import short

        row["held"] = short(row["held"])  # a commit's author and subject are the contributor's own words
        note = (
            f"[{row['held']}. Its text is not shown to agents; the user can read it with"
            " `memcli review` and let it in with `memcli trust`.]"
        )
        row = {**row, "body": note, "matches": [], "tags": []}
        if "snippet" in row:
            row["snippet"] = note
    return row


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
