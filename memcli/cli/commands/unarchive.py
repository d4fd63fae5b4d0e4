"""`memcli unarchive`."""

from __future__ import annotations

from memcli.cli.common import state_command
from memcli.cli.spec import state_spec

SPEC = state_spec(
    "unarchive",
    help="""Bring archived entries back into inject, list and search.""",
    epilog="""Examples:

  memcli unarchive dev 1773679871839

  memcli unarchive 1773679871839 1773679871840

""",
)
run = state_command("unarchive")
