"""`memcli setup`."""

from __future__ import annotations

from memcli.cli.spec import agent_option, CommandSpec, Param, quiet_flag, remove_flag, user_flag

SPEC = CommandSpec(
    name="setup",
    help="""Wire memcli into a coding agent's own hooks and instructions (project files, merged with yours).

claude-code: .claude/settings.json hooks (SessionStart prints the memory block;
PreCompact and SessionEnd save the session from its transcript). cursor:
.cursor/hooks.json (sessionStart, preCompact, stop, sessionEnd) and the rule
.cursor/rules/memcli.mdc. codex: a marked section in AGENTS.md, the MCP server in
.codex/config.toml and .codex/hooks.json. Claude Code and Cursor also get the MCP server
(.mcp.json, .cursor/mcp.json). The hooks run memcli from the agent's PATH, else the Python
that ran setup. Running it twice changes nothing; --check says whether all is in place.

--user wires the agent's user-level settings instead (~/.claude/settings.json,
~/.cursor/hooks.json, ~/.codex/hooks.json): a session-start hook alone, which brings your
personal memory to every folder the agent runs in, and a project's memory where that project
has not wired memcli for the agent itself. No project needed.""",
    epilog="""Examples:

  memcli setup claude-code

  memcli setup cursor --agent frontend

  memcli setup codex --remove

  memcli setup claude-code --check

  memcli setup claude-code --user     (your personal memory in every session)
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
        user_flag("Wire the agent's user-level settings (every folder), not the project's files."),
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
    user: bool = False,
    quiet: bool = False,
) -> int:
    from memcli.agents import setup as wiring
    from memcli.cli import common
    from memcli.errors import MemcliError
    from memcli.output import echo

    if check and remove:
        raise MemcliError("--check and --remove do not go together")
    if user:
        return _user(client, agent, remove, check, quiet)
    store = common.open_store(dir_option)
    if check:
        intact = f"{client}: set up for agent {agent}, and its hooks find memcli here"
        return _report(wiring.check(store.layout, client, agent), intact, quiet)
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


USER_NEXT_STEPS = {
    "claude-code": "Claude Code now prints your personal memory at the start of every session (check with /hooks).",
    "cursor": "Cursor now gets your personal memory at the start of every session.",
    "codex": "Codex now gets your personal memory at the start of every session (review the hook with /hooks).",
}


def _user(client: str, agent: str, remove: bool, check: bool, quiet: bool) -> int:
    """``setup --user``: the agent's user-level hook."""
    from memcli.agents import setup as wiring
    from memcli.output import echo

    if check:
        intact = f"{client}: your user-level settings are set up for agent {agent}, and the hook finds memcli here"
        return _report(wiring.check_user(client, agent), intact, quiet)
    changes = wiring.setup_user(client, agent, remove)
    if quiet:
        return 0
    for change in changes:
        if not remove:
            echo(f"{change.note.split(' ', 1)[0]} {change.path}")
        else:
            echo(f"removed memcli from {change.path}")
    if not changes:
        echo(f"{client}: nothing to {'remove' if remove else 'change'} in {wiring.user_file(client)}")
    elif not remove:
        echo(USER_NEXT_STEPS[client])
    return 0


def _report(problems: list[str], intact: str, quiet: bool) -> int:
    """What ``--check`` found (exit 1), or that all is in place."""
    from memcli.output import echo

    if not quiet:
        for line in problems or [intact]:
            echo(line)
    return 1 if problems else 0
