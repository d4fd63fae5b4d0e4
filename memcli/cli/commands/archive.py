"""`memcli archive`."""

from __future__ import annotations

from memcli.cli.spec import CommandSpec, Param, agent_or_id, json_flag

SPEC = CommandSpec(
    name="archive",
    help="""Archive entries: out of inject, list and search, kept in git and found with --archived.

For memory that was true once (a reversed decision, a lesson about code that is gone) and is
worth keeping for the record. The state is a tag (#archived) in the entry's own file, so it
merges, and an edit on another branch is kept beside it. `memcli unarchive` brings entries back.""",
    epilog="""Examples:

  memcli archive dev 1773679871839

  memcli archive 1773679871839 1773679871840

  memcli list dev --archived --tag archived
""",
    params=(
        agent_or_id(),
        Param("ids", "arguments", help="Ids of the entries.", metavar="ID...", synopsis="ID..."),
        json_flag("Print the entries as JSON, each with whether it changed."),
    ),
)


def run(dir_option: str | None, agent: str, ids: list[str] | None = None, as_json: bool = False) -> int:
    from memcli.cli.common import run_state
    from memcli.storage.store import ARCHIVED_TAG

    return run_state(dir_option, agent, ids, ARCHIVED_TAG, True, as_json)
