from __future__ import annotations

from typing import Annotated

import typer

from memcli.cli import common

NAME = "setup"
EPILOG = """Examples:

  memcli setup claude-code

  memcli setup cursor --agent frontend

  memcli setup codex --remove
"""

NEXT_STEPS = {
    "claude-code": "Claude Code now prints the memory block at the start of each session and saves the"
    " conversation before compaction and at the end (check with /hooks).",
    "cursor": "Cursor now gets the memory block at session start and saves the conversation after each turn"
    " and at the end; the rule tells the agent how to write memory.",
    "codex": "Codex reads .codex/ only in a trusted project: trust it, then review the new hooks with /hooks."
    " For the MCP server in every project instead: codex mcp add memcli -- memcli mcp",
}


def command(
    client: Annotated[str, typer.Argument(metavar="claude-code|cursor|codex", help="The coding agent to wire memcli into.")],
    agent: Annotated[str, typer.Option("--agent", "-a", help="The memcli agent id the sessions read and write.")] = "dev",
    remove: Annotated[bool, typer.Option("--remove", help="Take out exactly what setup added; keep the rest.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing on success.")] = False,
) -> None:
    """Wire memcli into a coding agent's own hooks and instructions (project files, merged with yours).

    claude-code: .claude/settings.json hooks (SessionStart prints the memory block;
    PreCompact and SessionEnd save the session from its transcript). cursor:
    .cursor/hooks.json (sessionStart, preCompact, stop, sessionEnd) and the rule
    .cursor/rules/memcli.mdc. codex: a marked section in AGENTS.md, the MCP server in
    .codex/config.toml and .codex/hooks.json. Running it twice changes nothing.
    """
    from memcli import integrations

    layout = common.layout()
    changes = integrations.plan(layout, client, agent, remove)
    integrations.apply(layout, changes)
    if quiet:
        return
    for change in changes:
        typer.echo(change.note)
    if not changes:
        typer.echo(f"{client}: nothing to {'remove' if remove else 'change'}; memcli is {'not ' if remove else ''}set up")
    elif not remove:
        typer.echo(NEXT_STEPS[client])
