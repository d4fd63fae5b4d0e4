"""`memcli unpin`."""

from __future__ import annotations

from memcli.cli.spec import CommandSpec, Param, agent_or_id, json_flag

SPEC = CommandSpec(
    name="unpin",
    help="""Unpin entries: they go back to being injected only when relevant to the task.""",
    epilog="""Examples:

  memcli unpin dev 1773679871839

  memcli unpin 1773679871839 1773679871840

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

    return run_state(dir_option, agent, ids, PINNED_TAG, False, as_json)
