"""`memcli rm`."""

from __future__ import annotations

from memcli.cli.spec import agent_or_id, CommandSpec, Param

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
    ),
)


def run(dir_option: str | None, agent: str, ids: tuple[str, ...] | None = None, yes: bool = False) -> int:
    from memcli import api, output
    from memcli.cli import common
    from memcli.output import echo

    store = common.open_store(dir_option)
    groups = api.locate_many(store, agent, list(ids or ()))  # fails before asking if one is unknown
    if not yes and output.is_interactive():
        count = sum(len(targets) for targets in groups.values())
        for name, targets in groups.items():
            for t in targets:
                first = t.entry.body.strip().splitlines()[0] if t.entry.body.strip() else ""
                echo(f"  {t.entry.id}  {name}/{t.category}  {first[:70]}")
        if not output.confirm(f"Remove {count} {output.plural(count, 'entry', 'entries')}?"):
            echo("nothing removed", err=True)
            return 1
    for name, targets in groups.items():
        removed = store.remove(name, [t.entry.id for t in targets])
        for t, twins in removed:
            first = " ".join(t.entry.body.split())[:60]
            others = "entry" if twins == 1 else "entries"
            note = f' ("{first}"; {twins} other {others} with this id left)' if twins else ""
            echo(f"removed {name}/{t.category} {t.entry.id}{note}", err=True)
    return 0
