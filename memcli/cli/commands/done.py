"""`memcli done`."""

from __future__ import annotations

from memcli.cli.spec import (
    BY_ID_SCOPE,
    agent_or_id,
    entry_id_argument,
    CommandSpec,
    Param,
    quiet_flag,
)

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
        *BY_ID_SCOPE,
    ),
)


def run(
    dir_option: str | None,
    agent: str,
    entry_id: str | None = None,
    text: str | None = None,
    quiet: bool = False,
    user: bool = False,
    project: bool = False,
) -> int:
    from memcli import api
    from memcli.output import echo

    usage = "memcli done [AGENT] ID [TEXT]"
    mem, (located, text) = api.scoped(
        dir_option, user, project, lambda m: api.locate(m.store, agent, entry_id, text, usage=usage)
    )
    ticked = api.done(mem, None, located, text)
    if not quiet:
        echo(ticked.message)
    return 0
