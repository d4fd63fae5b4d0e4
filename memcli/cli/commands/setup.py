"""`memcli setup`."""

from __future__ import annotations

from memcli.cli.spec import agent_option, CommandSpec, Param, quiet_flag, remove_flag

SPEC = CommandSpec(
    name="setup",
    help="""Wire memcli into a coding agent's own hooks and instructions (project files, merged with yours).

claude-code: .claude/settings.json hooks (SessionStart prints the memory block;
PreCompact and SessionEnd save the session from its transcript). cursor:
.cursor/hooks.json (sessionStart, preCompact, stop, sessionEnd) and the rule
.cursor/rules/memcli.mdc. codex: a marked section in AGENTS.md, the MCP server in
.codex/config.toml and .codex/hooks.json. Claude Code and Cursor also get the MCP server
(.mcp.json, .cursor/mcp.json). The hooks run memcli from the agent's PATH, else the Python
that ran setup. Running it twice changes nothing; --check says whether all is in place.""",
    epilog="""Examples:

  memcli setup claude-code

  memcli setup cursor --agent frontend

  memcli setup codex --remove

  memcli setup claude-code --check
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
        agent_option("The memcli agent id the sessions read and write.", default="dev"),
        remove_flag("Take out exactly what setup added; keep the rest."),
        Param(
            "check",
            "flag",
            flags=("--check",),
            type=bool,
            default=False,
            help="Change nothing: say whether the wiring is intact (exit 1 if not).",
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
    " For the MCP server in every project instead: codex mcp add memcli -- memcli mcp --agent dev",
}


def run(
    dir_option: str | None,
    client: str,
    agent: str = "dev",
    remove: bool = False,
    check: bool = False,
    quiet: bool = False,
) -> int:
    from memcli.agents import setup as wiring
    from memcli.cli import common
    from memcli.errors import MemcliError
    from memcli.output import echo

    store = common.open_store(dir_option)
    if check:
        if remove:
            raise MemcliError("--check and --remove do not go together")
        problems = wiring.check(store.layout, client, agent)
        if not quiet:
            for line in problems:
                echo(line)
            if not problems:
                echo(f"{client}: set up for agent {agent}, and its hooks find memcli here")
        return 1 if problems else 0
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
