"""`memcli show`."""

from __future__ import annotations

from memcli.cli.spec import agent_or_id, entry_id_argument, CommandSpec, json_flag

SPEC = CommandSpec(
    name="show",
    help="""Print one entry in full (or the shared _project.md).

The agent may be left out when no other agent has an entry with that id.""",
    epilog="""Examples:

  memcli show dev 1773679871839

  memcli show 1773679871839 --json

  memcli show _project
""",
    params=(
        agent_or_id(project=True),
        entry_id_argument("The entry's id."),
        json_flag("Print the entry as JSON."),
    ),
)


def run(dir_option: str | None, agent: str, entry_id: str | None = None, as_json: bool = False) -> int:
    import sys

    from memcli import api, output
    from memcli.cli import common
    from memcli.storage.paths import PROJECT_NAME

    mem = common.memory(dir_option)
    store = mem.store
    if agent == PROJECT_NAME:
        if entry_id is not None:
            from memcli.errors import MemcliError

            raise MemcliError(f"unexpected argument {entry_id!r}: `memcli show _project`")
        text = store.read_project()
        if as_json:
            output.print_json({"path": str(store.layout.project_file), "text": text})
        else:
            sys.stdout.write(text if text.endswith("\n") or not text else text + "\n")
        return 0
    located, extra = api.locate(store, agent, entry_id, None, usage="memcli show [AGENT] ID")
    if extra is not None:
        from memcli.errors import MemcliError

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
        output.print_json(shown.to_json())
        return 0
    body = e.body
    if held:
        from memcli.storage.guard import make_visible

        output.warn(f"entry {e.id} is held back from agents ({held}); see `memcli review`")
        body = make_visible(body)  # what hides in it, shown
    tags = output.visible(" ".join("#" + t for t in e.tags))
    head = output.bold(f"{e.id}  {located.agent}/{located.category}  {e.header_date}") + (f"  {tags}" if tags else "")
    sys.stdout.write(f"{head}\n\n{output.visible(body)}\n")
    return 0
