"""`memcli setup`."""

from __future__ import annotations

from memcli.cli.spec import CommandSpec, Param, quiet_flag

SPEC = CommandSpec(
    name="setup",
    help="""Wire memcli into a coding agent's own hooks and instructions (project files, merged with yours).

claude-code: .claude/settings.json hooks (SessionStart prints the memory block;
PreCompact and SessionEnd save the session from its transcript). cursor:
.cursor/hooks.json (sessionStart, preCompact, stop, sessionEnd) and the rule
.cursor/rules/memcli.mdc. codex: a marked section in AGENTS.md, the MCP server in
.codex/config.toml and .codex/hooks.json. Running it twice changes nothing.""",
    epilog="""Examples:

  memcli setup claude-code

  memcli setup cursor --agent frontend

  memcli setup codex --remove
""",
    params=(
        Param(
            "client",
            "argument",
            help="The coding agent to wire memcli into.",
            metavar="claude-code|cursor|codex",
            required=True,
            choices=("claude-code", "cursor", "codex"),
        ),
        Param(
            "agent",
            "option",
            flags=("--agent", "-a"),
            type=str,
            default="dev",
            help="The memcli agent id the sessions read and write.",
            metavar="AGENT",
        ),
        Param(
            "remove",
            "flag",
            flags=("--remove",),
            type=bool,
            default=False,
            help="Take out exactly what setup added; keep the rest.",
        ),
        quiet_flag(),
    ),
)

NEXT_STEPS = {
    "claude-code": "Claude Code now prints the memory block at the start of each session and saves the"
    " conversation before compaction and at the end (check with /hooks).",
    "cursor": "Cursor now gets the memory block at session start and saves the conversation after each turn"
    " and at the end; the rule tells the agent how to write memory.",
    "codex": "Codex reads .codex/ only in a trusted project: trust it, then review the new hooks with /hooks."
    " For the MCP server in every project instead: codex mcp add memcli -- memcli mcp",
}


def run(dir_option: str | None, client: str, agent: str = "dev", remove: bool = False, quiet: bool = False) -> int:
    from memcli.agents import setup as wiring
    from memcli.cli import common
    from memcli.output import echo

    store = common.open_store(dir_option)
    changes = wiring.setup(store.layout, client, agent, remove, store.config.vault_lock_timeout)
    if quiet:
        return 0
    for change in changes:
        echo(change.note)
    if not changes:
        echo(f"{client}: nothing to {'remove' if remove else 'change'}; memcli is {'not ' if remove else ''}set up")
    elif not remove:
        echo(NEXT_STEPS[client])
    return 0
