"""`memcli pin`."""

from __future__ import annotations

from memcli.cli.spec import CommandSpec, Param, agent_or_id, json_flag

SPEC = CommandSpec(
    name="pin",
    help="""Pin entries: each session of the agent gets them first in its memory block, whatever the task.

For the few standing rules every session must see (a decision that must not be forgotten, a
constraint of the project). Pinned entries are cut from the block only before the handoff, and
compaction never folds them into a summary. The state is a tag (#pinned) in the entry's own file.""",
    epilog="""Examples:

  memcli pin dev 1773679871839

  memcli pin 1773679871839 1773679871840

  memcli inject dev "any task" --explain     (says what is pinned)
""",
    params=(
        agent_or_id(),
        Param("ids", "arguments", help="Ids of the entries.", metavar="ID...", synopsis="ID..."),
        json_flag("Print the entries as JSON, each with whether it changed."),
    ),
)


def run(dir_option: str | None, agent: str, ids: list[str] | None = None, as_json: bool = False) -> int:
    from memcli.cli.common import run_state
    from memcli.storage.store import PINNED_TAG

    return run_state(dir_option, agent, ids, PINNED_TAG, True, as_json)
