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
    project_flag,
    user_flag,
)

SPEC = CommandSpec(
    name="search",
    help="Search every entry (BM25, typo-tolerant, prefix-matching) and print the best matches.\n\n"
    "Any text is a valid query: quotes, colons, brackets and operators are taken as words. An entry\n"
    "that holds an identifier of the query exactly (item4321, ERR_CONN_RESET, pkg.mod.func, fetchUser,\n"
    "a hash) ranks above every entry that does not.\n\n"
    "Searches the project's memory and your personal memory (`memcli add --user`) together; a hit\n"
    'of your personal memory is marked (personal) (JSON: "scope": "user").',
    epilog="""Examples:

  memcli search "streaming sse"

  memcli search websocket --agent dev --category decisions --limit 3

  memcli search "login redirect" --json | jq '.[0].body'

  memcli search "websocket" --archived     (archived entries too)

  memcli search "rollout canary item4321" --explain     (what each word added to each hit)

  memcli search "uv pip" --user     (your personal memory only)
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
        json_flag('Print a JSON array of results (each with "scope": "project" or "user").'),
        user_flag("Your personal memory only."),
        project_flag(),
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
    user: bool = False,
    project: bool = False,
) -> int:
    from memcli import api, output
    from memcli.api import scopes

    ranked: list = []  # (-score, order, scope, hit): the two memories' hits by score, the project's first on a tie
    for scope, mem in scopes(dir_option, user, project, category):
        found = api.search(mem, " ".join(query), agent, category, limit, archived or every, explain)
        ranked.extend((-h.score, len(ranked) + n, scope, h) for n, h in enumerate(found.hits))
        limit = limit or mem.store.config.search_limit
        if found.notice:
            output.warn(found.notice)
    hits = [(scope, h) for _, _, scope, h in sorted(ranked, key=lambda x: x[:2])[:limit]]
    if as_json:
        output.print_json([{**h.to_json(), "scope": scope} for scope, h in hits])
        return 0
    color = output.use_color()
    lines = []
    for scope, h in hits:
        tags = " ".join("#" + t for t in h.tags)
        mine = " (personal)" if scope == "user" else ""
        head = f"{h.id}  {h.agent}/{h.category}{mine}  {h.date}" + (f"  {tags}" if tags else "")
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
