"""`memcli search`: runs on the fast path, so it imports nothing heavy but tantivy."""

from __future__ import annotations

import sys

from memcli.cli.spec import (
    CommandSpec,
    Param,
    agent_option,
    archived_flag,
    category_option,
    explain_flag,
    json_flag,
    limit_option,
)

SPEC = CommandSpec(
    name="search",
    help="Search every entry (BM25, typo-tolerant, prefix-matching) and print the best matches.\n\n"
    "Any text is a valid query: quotes, colons, brackets and operators are taken as words. An entry\n"
    "that holds an identifier of the query exactly (item4321, ERR_CONN_RESET, pkg.mod.func, fetchUser,\n"
    "a hash) ranks above every entry that does not.",
    epilog="""Examples:

  memcli search "streaming sse"

  memcli search websocket --agent dev --category decisions --limit 3

  memcli search "login redirect" --json | jq '.[0].body'

  memcli search "websocket" --archived     (archived entries too)

  memcli search "rollout canary item4321" --explain     (what each word added to each hit)
""",
    params=(
        Param("query", "arguments", help="Words to search for.", metavar="QUERY...", required=True),
        agent_option(),
        category_option(),
        limit_option(" [default: 10]"),
        archived_flag("Archived entries too (`memcli archive`)."),
        Param(
            "every",
            "flag",
            flags=("--all",),
            type=bool,
            default=False,
            help="Every version: superseded and archived entries too (`memcli supersede`).",
        ),
        explain_flag('Under each hit, what each clause of the query added to its score (JSON: "explain").'),
        json_flag("Print a JSON array of results."),
    ),
)


def run_search(
    dir_option: str | None,
    query: tuple[str, ...],
    agent: str | None = None,
    category: str | None = None,
    limit: int | None = None,
    archived: bool = False,
    every: bool = False,
    explain: bool = False,
    as_json: bool = False,
) -> int:
    from memcli import api, output
    from memcli.storage.paths import find_layout
    from memcli.storage.store import Store

    mem = api.Memory(store=Store(find_layout(dir_option)))  # a read: no index upkeep to attach
    found = api.search(mem, " ".join(query), agent, category, limit, archived or every, explain)
    hits = found.hits
    if found.notice:
        output.warn(found.notice)
    if as_json:
        output.print_json([h.to_json() for h in hits])
        return 0
    color = output.use_color()
    lines = []
    for h in hits:
        tags = " ".join("#" + t for t in h.tags)
        head = f"{h.id}  {h.agent}/{h.category}  {h.date}" + (f"  {tags}" if tags else "")
        if h.related:
            head += "  (next to a match)"
        if h.superseded_by is not None:
            head += f"  (superseded by {h.superseded_by})"
        if h.held:
            from memcli.recall.trust import short

            head += f"  [{short(h.held)}]"
        if h.stale:
            from memcli.storage.citations import stale_note

            head += "  " + stale_note(h.stale)
        # the match marks (\x00, \x01) survive; any other control character is shown, not sent
        snippet = output.visible(h.snippet.replace("\x00", "\ue000").replace("\x01", "\ue001"))
        snippet = snippet.replace("\ue000", "\x00").replace("\ue001", "\x01")
        if color:
            head = f"\x1b[1m{head}\x1b[0m"
            snippet = snippet.replace("\x00", "\x1b[1;33m").replace("\x01", "\x1b[0m")
        else:
            snippet = snippet.replace("\x00", "**").replace("\x01", "**")  # on a pipe: marked as Markdown bold
        lines.append(f"{head}\n    {snippet}")
        if explain:
            lines.append("    = " + " + ".join(f"{label} {value:.2f}" for label, value in h.explain))
    if lines:
        sys.stdout.write("\n".join(lines) + "\n")
    else:
        sys.stderr.write("no matches\n")
    return 0


run = run_search
