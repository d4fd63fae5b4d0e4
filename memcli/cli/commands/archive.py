"""`memcli archive`."""

from __future__ import annotations

from memcli.cli.common import state_command
from memcli.cli.spec import state_spec

SPEC = state_spec(
    "archive",
    help="""Archive entries: out of inject, list and search, kept in git and found with --archived.

For memory that was true once (a reversed decision, a lesson about code that is gone) and is
worth keeping for the record. The state is a tag (#archived) in the entry's own file, so it
merges, and an edit on another branch is kept beside it. `memcli unarchive` brings entries back.""",
    epilog="""Examples:

  memcli archive dev 1773679871839

  memcli archive 1773679871839 1773679871840

  memcli list dev --archived --tag archived
""",
)
run = state_command("archive")
