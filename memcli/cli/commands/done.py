"""`memcli done`."""

from __future__ import annotations

from memcli.cli.spec import agent_or_id, entry_id_argument, CommandSpec, Param, quiet_flag

SPEC = CommandSpec(
    name="done",
    help="""Mark a task entry's open tasks done ("- [ ]" becomes "- [x]"); inject stops showing them.

With TEXT, only the open tasks that contain it. The agent may be left out when no other
agent has an entry with that id.""",
    epilog="""Examples:

  memcli done dev 1773679871839

  memcli done 1773679871839 "login test"
""",
    params=(
        agent_or_id(),
        entry_id_argument("The task entry's id (see `memcli list AGENT -c tasks`)."),
        Param("text", "argument", help="Only the open tasks that contain this text.", metavar="[TEXT]"),
        quiet_flag(),
    ),
)


def run(
    dir_option: str | None, agent: str, entry_id: str | None = None, text: str | None = None, quiet: bool = False
) -> int:
    from memcli import api
    from memcli.cli import common
    from memcli.output import echo

    mem = common.memory(dir_option)
    located, text = api.locate(mem.store, agent, entry_id, text, usage="memcli done [AGENT] ID [TEXT]")
    ticked = api.done(mem, None, located, text)
    if not quiet:
        echo(ticked.message)
    return 0
