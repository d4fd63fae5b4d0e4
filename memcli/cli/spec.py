"""One definition of the arguments of ``search`` and ``inject``.

Both the fast path (``memcli.cli.fast``, no Typer import) and the Typer CLI are built
from these specs, so they cannot drift; ``tests/test_fast_path.py`` proves they parse
the same way.
"""

from __future__ import annotations


class Param:
    """One argument or option.  ``kind``: "argument", "arguments" (one or more, joined by
    spaces), "option" or "flag"."""

    def __init__(self, name: str, kind: str, flags: tuple[str, ...] = (), type: type = str, default=None,
                 help: str = "", metavar: str | None = None, min: int | None = None,
                 choices: tuple[str, ...] | None = None, required: bool = False, max: int | None = None):
        self.name, self.kind, self.flags, self.type, self.default = name, kind, flags, type, default
        self.help, self.metavar, self.min, self.choices, self.required = help, metavar, min, choices, required
        self.max = max


class CommandSpec:
    def __init__(self, name: str, help: str, epilog: str, params: tuple[Param, ...]):
        self.name, self.help, self.epilog, self.params = name, help, epilog, params


SEARCH = CommandSpec(
    name="search",
    help="Search every entry (BM25, typo-tolerant, prefix-matching) and print the best matches.\n\n"
    "Any text is a valid query: quotes, colons, brackets and operators are taken as words.",
    epilog="""Examples:

  memcli search "streaming sse"

  memcli search websocket --agent dev --category decisions --limit 3

  memcli search "login redirect" --json | jq '.[0].body'
""",
    params=(
        Param("query", "arguments", help="Words to search for.", metavar="QUERY...", required=True),
        Param("agent", "option", ("--agent", "-a"), help="Only this agent's entries.", metavar="AGENT"),
        Param("category", "option", ("--category", "-c"), help="Only this category.", metavar="CATEGORY"),
        Param("limit", "option", ("--limit", "-n"), int, None, "At most N results [default: 10].", "N", min=1,
              max=1_000_000),
        Param("as_json", "flag", ("--json",), bool, False, "Print a JSON array of results."),
    ),
)

INJECT = CommandSpec(
    name="inject",
    help="Print the memory block for an agent and a command, within a token budget.\n\n"
    "Prints only the block on stdout, and exits 0 even when there is no memory, so that a "
    "wrapper never breaks. The block never exceeds --budget tokens (ceil(characters / 4)).",
    epilog="""Examples:

  cursor-agent -p "$(memcli inject dev "$task")$task"

  memcli inject dev "fix the login redirect" --budget 800 --explain

  echo "add SSE streaming" | memcli inject dev - --format json
""",
    params=(
        Param("agent", "argument", help="Agent id.", metavar="AGENT", required=True),
        Param("command", "argument", help="What the agent is asked to do ('-' reads stdin).", metavar="[COMMAND]"),
        Param("budget", "option", ("--budget", "-b"), int, None, "Token budget [default: 2000].", "TOKENS", min=1,
              max=10_000_000),
        Param("fmt", "option", ("--format", "-f"), str, "text", "Output format.", "text|json", choices=("text", "json")),
        Param("explain", "flag", ("--explain",), bool, False, "Tell on stderr what was chosen and what was cut."),
        Param("instructions", "flag", ("--instructions",), bool, False,
              "Append the memory-writing instructions block."),
    ),
)

SPECS = {spec.name: spec for spec in (SEARCH, INJECT)}
