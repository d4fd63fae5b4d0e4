"""`memcli rm`."""

from __future__ import annotations

from memcli.cli.spec import BY_ID_SCOPE, agent_or_id, CommandSpec, Param

SPEC = CommandSpec(
    name="rm",
    help="""Remove entries by id: all of them, or none if one is unknown.

The agent may be left out when no other agent has entries with those ids. Where two
entries share an id (a copy, an old merge), one is removed and the other stays; memcli
says which. memcli's merge driver keeps a removal removed through git merges, rebases
and pulls.""",
    epilog="""Examples:

  memcli rm dev 1773679871839 1773679871840 --yes

  memcli rm 1773679871839
""",
    params=(
        agent_or_id(),
        Param("ids", "arguments", help="Ids of the entries to remove.", metavar="ID...", synopsis="ID..."),
        Param(
            "yes",
            "flag",
            flags=("--yes", "-y"),
            type=bool,
            default=False,
            help="Do not ask for confirmation on a terminal.",
        ),
        *BY_ID_SCOPE,
    ),
)


def run(
    dir_option: str | None,
    agent: str,
    ids: tuple[str, ...] | None = None,
    yes: bool = False,
    user: bool = False,
    project: bool = False,
) -> int:
    from memcli import api, output
    from memcli.output import echo

    mem, (owner, wanted) = api.scoped(dir_option, user, project, lambda m: api.entries_by_id(m, agent, ids, "rm"))
    if not yes and output.is_interactive():
        groups = mem.entries(owner, wanted)  # fails before asking if one is unknown
        count = sum(len(targets) for targets in groups.values())
        for name, targets in groups.items():
            for t in targets:
                echo(f"  {t.entry.id}  {name}/{t.category}  {api.first_line(t.entry.body)[:70]}")
        if not output.confirm(f"Remove {output.plural(count, 'entry', 'entries')}?"):
            echo("nothing removed", err=True)
            return 1
    echo(api.scope_note(mem, api.remove(mem, owner, wanted).message), err=True)
    return 0
