"""`memcli list`."""

from __future__ import annotations

from memcli.cli.spec import (
    CommandSpec,
    Param,
    agent_argument,
    archived_flag,
    category_option,
    json_flag,
    limit_option,
    project_flag,
    user_flag,
)

SPEC = CommandSpec(
    name="list",
    help="List entries, newest first: id, agent/category, date, first line and tags.\n\n"
    "Lists the project's memory and your personal memory (`memcli add --user`) together; an entry\n"
    'of your personal memory is marked (personal) (JSON: "scope": "user").',
    epilog="""Examples:

  memcli list                      (every agent)

  memcli list dev --category tasks

  memcli list dev --tag sse --json

  memcli list dev --archived       (archived entries too)

  memcli list --user               (your personal memory only)
""",
    params=(
        agent_argument("Only this agent.", required=False),
        category_option(),
        Param("tag", "option", flags=("--tag", "-t"), help="Only entries with this tag.", metavar="TAG"),
        limit_option(" (newest first)"),
        archived_flag("Archived entries too (`memcli archive`)."),
        json_flag('Print a JSON array of entries (each with "scope": "project" or "user").'),
        user_flag("Your personal memory only."),
        project_flag(),
    ),
)


def run(
    dir_option: str | None,
    agent: str | None = None,
    category: str | None = None,
    tag: str | None = None,
    limit: int | None = None,
    archived: bool = False,
    as_json: bool = False,
    user: bool = False,
    project: bool = False,
) -> int:
    import sys

    from memcli import api, output

    from memcli.storage import vault

    from memcli.storage.citations import cited_paths, missing, stale_note

    rows = []
    stale: dict[int, list[str]] = {}
    newer: dict[int, int | None] = {}
    held: dict[int, str | None] = {}
    scope: dict[int, str] = {}
    for name, mem in api.scopes(dir_option, user, project, category):
        store = mem.store
        found = api.entries(store, agent, category, tag, limit, archived)
        root = str(store.layout.root)
        for r in found:  # paths an entry cites are the project's: a personal entry cites none of its own
            stale[id(r)] = [] if store.layout.personal else missing(root, cited_paths(r.entry.body))
            scope[id(r)] = name
        heads: dict[tuple[str, str], dict[int, int]] = {}  # only --archived lists replaced versions
        if archived:
            for key in {(r.agent, r.category) for r in found}:
                heads[key] = api.versions(store, *key)
        newer.update({id(r): heads.get((r.agent, r.category), {}).get(r.entry.id) for r in found})
        held.update(api.held(store, found))
        rows.extend(found)
    if len(set(scope.values())) > 1:  # both memories: newest first across them
        rows.sort(key=lambda r: vault.newest_first(r.entry), reverse=True)
        rows = rows[:limit] if limit else rows
    if as_json:
        output.print_json(
            [
                {
                    **api.entry_json(r.agent, r.category, r.entry, newer[id(r)]),
                    "stale": stale[id(r)],
                    "held": held[id(r)],
                    "scope": scope[id(r)],
                }
                for r in rows
            ]
        )
        return 0
    if not rows:
        sys.stderr.write("no entries\n")
        return 0
    label = {"project": "", "user": " (personal)"}
    width = max(len(f"{r.agent}/{r.category}{label[scope[id(r)]]}") for r in rows)
    id_width = max(len(str(r.entry.id)) for r in rows)
    lines = []
    for r in rows:
        e = r.entry
        first = output.visible(output.shorten(api.first_line(e.body), 72))
        shown = {m.group(1).lower() for m in vault.P.hashtag.finditer(first)}
        tags = " ".join("#" + t for t in e.tags if t.lower() not in shown)  # each tag shown once
        where = f"{r.agent}/{r.category}{label[scope[id(r)]]}".ljust(width)
        line = f"{output.bold(str(e.id).rjust(id_width))}  {where}  {output.dim(e.header_date.ljust(16))}  {first}"
        mark = f"  {stale_note(stale[id(r)])}" if stale[id(r)] else ""
        if newer[id(r)] is not None:
            mark += f"  (superseded by {newer[id(r)]})"
        if held[id(r)]:
            from memcli.recall.trust import short

            mark += f"  [{short(held[id(r)] or '')}]"
        lines.append(line + (f"  {output.dim(tags)}" if tags else "") + mark)
    sys.stdout.write("\n".join(lines) + "\n")
    return 0
