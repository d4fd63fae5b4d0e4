"""`memcli pin`."""

from __future__ import annotations

from memcli.cli.common import state_command
from memcli.cli.spec import state_spec

SPEC = state_spec(
    "pin",
    help="""Pin entries: each session of the agent gets them first in its memory block, whatever the task.

For the few standing rules every session must see (a decision that must not be forgotten, a
constraint of the project). Pinned entries are cut from the block only before the handoff, and
compaction never folds them into a summary. The state is a tag (#pinned) in the entry's own file.""",
    epilog="""Examples:

  memcli pin dev 1773679871839

  memcli pin 1773679871839 1773679871840

  memcli inject dev "any task" --explain     (says what is pinned)
""",
)
run = state_command("pin")
