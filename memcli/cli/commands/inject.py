"""`memcli inject`: runs on the fast path before every agent prompt; never fails the wrapper."""

from __future__ import annotations

import os
import sys

from memcli.cli.spec import budget_option, CommandSpec, Param, explain_flag, project_flag

SPEC = CommandSpec(
    name="inject",
    help="Print the memory block for an agent and a command, within a token budget.\n\n"
    "Prints only the block on stdout, and exits 0 even when there is no memory, so that a "
    "wrapper never breaks. The block never exceeds --budget tokens (ceil(characters / 4)).\n\n"
    "After the project's memory comes your personal memory (`memcli add --user`), in the room the\n"
    "project's leaves; in a folder without .memory/, your personal memory alone.",
    epilog="""Examples:

  cursor-agent -p "$(memcli inject dev -- "$task")$task"

  memcli inject dev "fix the login redirect" --budget 800 --explain

  echo "add SSE streaming" | memcli inject dev - --format json
""",
    params=(
        Param("agent", "argument", help="Agent id.", metavar="AGENT", required=True),
        Param("command", "argument", help="What the agent is asked to do ('-' reads stdin).", metavar="[COMMAND]"),
        budget_option("Token budget [default: 2000]."),
        Param(
            "fmt",
            "option",
            flags=("--format", "-f"),
            type=str,
            default="text",
            help="Output format.",
            metavar="text|json",
            choices=("text", "json"),
        ),
        explain_flag("Tell on stderr what was chosen and what was cut."),
        Param(
            "instructions",
            "flag",
            flags=("--instructions",),
            type=bool,
            default=False,
            help="Append the memory-writing instructions block.",
        ),
        project_flag("The project's memory only: leave your personal memory out."),
    ),
)


def run_inject(
    dir_option: str | None,
    agent: str,
    command: str | None = None,
    budget: int | None = None,
    fmt: str = "text",
    explain: bool = False,
    instructions: bool = False,
    project: bool = False,
) -> int:
    from memcli.output import warn

    try:
        from memcli.recall import block
        from memcli.errors import MemcliError
        from memcli.storage.paths import Layout, find_layout

        if command == "-":
            data = sys.stdin.buffer.read().decode("utf-8", "replace")  # the wrapper goes on, whatever came
            command = data.replace("\x00", "").replace("\r\n", "\n").rstrip("\n")  # without its last newline
        command = command or ""
        try:
            layout = find_layout(dir_option, must_exist=False)
        except MemcliError:
            layout = Layout(os.path.abspath(dir_option or "."))
        sel, budget = block.build(layout, agent, command, budget, instructions, warn, explain, personal=not project)
        text = sel.render()
        if fmt == "json":
            from memcli.output import print_json

            print_json(sel.to_json(agent, command, budget))
        else:
            sys.stdout.write(text)
        if explain:
            _explain(sel, budget, text)
    except BaseException as exc:  # the wrapper must go on: say why on stderr, print no block
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        if os.environ.get("MEMCLI_DEBUG"):
            raise
        warn(f"inject failed, no memory block printed: {type(exc).__name__}: {exc}")
    return 0


def _explain(sel, budget: int, block: str) -> None:
    from memcli.recall.block import explain_lines

    sys.stderr.write("\n".join(explain_lines(sel, budget, block)) + "\n")


run = run_inject
