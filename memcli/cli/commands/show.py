"""`memcli show`."""

from __future__ import annotations

from memcli.cli.spec import (
    BY_ID_SCOPE,
    agent_or_id,
    entry_id_argument,
    CommandSpec,
    json_flag,
)

SPEC = CommandSpec(
    name="show",
    help="""Print one entry in full (or the shared _project.md).

The agent may be left out when no other agent has an entry with that id. An id that the
project's memory does not hold is looked for in your personal memory.""",
    epilog="""Examples:

  memcli show dev 1773679871839

  memcli show 1773679871839 --json

  memcli show _project

  memcli show --user 1773679871839     (an entry of your personal memory)
""",
    params=(
        agent_or_id(project=True),
        entry_id_argument("The entry's id."),
        json_flag('Print the entry as JSON ("scope": "project" or "user").'),
        *BY_ID_SCOPE,
    ),
)


def run(
    dir_option: str | None,
    agent: str,
    entry_id: str | None = None,
    as_json: bool = False,
    user: bool = False,
    project: bool = False,
) -> int:
    import sys

    from memcli import api, output
    from memcli.cli import common
    from memcli.storage.paths import PROJECT_NAME

    from memcli.errors import MemcliError

    if agent == PROJECT_NAME:
        if user:
            raise MemcliError("your personal memory has no _project.md (its entries are what inject shows)")
        if entry_id is not None:
            raise MemcliError(f"unexpected argument {entry_id!r}: `memcli show _project`")
        store = common.open_store(dir_option)
        text = store.read_project()
        if as_json:
            output.print_json({"path": str(store.layout.project_file), "text": text})
        else:
            sys.stdout.write(text if text.endswith("\n") or not text else text + "\n")
        return 0
    usage = "memcli show [AGENT] ID"
    mem, (located, extra) = api.scoped(
        dir_option, user, project, lambda m: api.locate(m.store, agent, entry_id, None, usage=usage)
    )
    if extra is not None:
        raise MemcliError(f"unexpected argument {extra!r}: `memcli show [AGENT] ID`")
    shown = api.show(mem, None, located)
    newest, twins, held = shown.newest, shown.twins, shown.held
    if newest is not None:
        output.warn(f"entry {located.entry.id} is superseded; the newest version: memcli show {newest}")
    if twins:
        output.warn(
            f"{twins + 1} entries share id {located.entry.id}; showing the first"
            f" ({located.category}); the next write gives the others ids of their own"
        )
    e = located.entry
    if as_json:
        output.print_json({**shown.to_json(), "scope": "user" if mem.personal else "project"})
        return 0
    body = e.body
    if held:
        from memcli.storage.guard import make_visible

        output.warn(f"entry {e.id} is held back from agents ({held}); see `memcli review`")
        body = make_visible(body)  # what hides in it, shown
    tags = output.visible(" ".join("#" + t for t in e.tags))
    where = f"{located.agent}/{located.category}" + (" (personal)" if mem.personal else "")
    head = output.bold(f"{e.id}  {where}  {e.header_date}") + (f"  {tags}" if tags else "")
    sys.stdout.write(f"{head}\n\n{output.visible(body)}\n")
    return 0
