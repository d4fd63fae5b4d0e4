"""`memcli unpin`."""

from __future__ import annotations

from memcli.cli.common import state_command
from memcli.cli.spec import state_spec

SPEC = state_spec(
    "unpin",
    help="""Unpin entries: they go back to being injected only when relevant to the task.""",
    epilog="""Examples:

  memcli unpin dev 1773679871839

  memcli unpin 1773679871839 1773679871840

""",
)
run = state_command("unpin")
