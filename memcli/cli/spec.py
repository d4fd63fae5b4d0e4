"""One way to declare a command's arguments and options.

Every command module (``memcli.cli.commands.*``) declares its ``SPEC`` with these classes and
the shared options below (``--json``, ``--quiet``, ``--tag``, ``--allow-secret``, ``--limit``,
``--dry-run`` are each defined once, here).  ``memcli.cli.fast`` parses a command line from a
spec without importing Typer — every command runs that way — and builds the Typer command from
the same spec for ``--help``, shell completion, the man page and usage errors.
``tests/test_fast_path.py`` proves both parse every command alike.

This module imports nothing: it is loaded on every run.
"""

from __future__ import annotations

import re

OPTION_LIKE = re.compile(r"--?[A-Za-z][\w-]*(=.*)?", re.S)
# The commands, in the order of `memcli --help`, and the modules that hold them.
COMMANDS = (
    "init",
    "add",
    "edit",
    "rm",
    "done",
    "archive",
    "unarchive",
    "pin",
    "unpin",
    "supersede",
    "list",
    "show",
    "search",
    "inject",
    "checkpoint",
    "recover",
    "compact",
    "migrate",
    "import",
    "export",
    "resolve",
    "review",
    "trust",
    "audit",
    "status",
    "setup",
    "mcp",
    "ui",
)
MODULES = {"list": "listing", "import": "import_"}  # where a command's module is not named after it
TEXT_COMMANDS = {"add", "edit", "search", "inject"}  # their last arguments are free text


class Param:
    """One argument or option.  ``kind``: "argument", "arguments" (one or more, or none if not
    required), "option", "options" (repeatable: a list) or "flag"."""

    def __init__(
        self,
        name: str,
        kind: str,
        *,
        flags: tuple[str, ...] = (),
        type: type = str,
        default=None,
        help: str = "",
        metavar: str | None = None,
        min: int | None = None,
        choices: tuple[str, ...] | None = None,
        required: bool = False,
        max: int | None = None,
        synopsis: str | None = None,
    ):
        """``synopsis``: how the man page shows an argument, where its parsing differs from what it
        means (``[AGENT] ID``: the agent may be left out, the id may not)."""
        self.name, self.kind, self.flags, self.type, self.default = name, kind, flags, type, default
        self.help, self.metavar, self.min, self.choices, self.required = help, metavar, min, choices, required
        self.max, self.synopsis = max, synopsis


class CommandSpec:
    def __init__(self, name: str, help: str, epilog: str, params: tuple[Param, ...]):
        self.name, self.help, self.epilog, self.params = name, help, epilog, params


def module_name(command: str) -> str:
    return f"memcli.cli.commands.{MODULES.get(command, command)}"


# -- shared options: each defined once ---------------------------------------------------------


def json_flag(what: str = "Print the result as JSON.") -> Param:
    return Param("as_json", "flag", flags=("--json",), type=bool, default=False, help=what)


def explain_flag(what: str) -> Param:
    return Param("explain", "flag", flags=("--explain",), type=bool, default=False, help=what)


def quiet_flag(what: str = "Print nothing on success.") -> Param:
    return Param("quiet", "flag", flags=("--quiet", "-q"), type=bool, default=False, help=what)


def tag_option(what: str = "A tag (repeatable); #hashtags in the text count too.") -> Param:
    return Param("tag", "options", flags=("--tag", "-t"), type=str, default=None, help=what, metavar="TAG")


def user_flag(what: str = "Your personal memory (outside every repository), not the project's.") -> Param:
    return Param("user", "flag", flags=("--user",), type=bool, default=False, help=what)


def project_flag(what: str = "The project's memory only, not your personal memory.") -> Param:
    return Param("project", "flag", flags=("--project",), type=bool, default=False, help=what)


# What the commands that find an entry by id say of the two scopes.
BY_ID_USER = "The entry is in your personal memory (found there anyway when the project has no such id)."
BY_ID_PROJECT = "The entry is in the project's memory (where an id is in both memories)."
BY_ID_SCOPE = (user_flag(BY_ID_USER), project_flag(BY_ID_PROJECT))  # --user, --project: *BY_ID_SCOPE


def remove_flag(what: str) -> Param:
    return Param("remove", "flag", flags=("--remove",), type=bool, default=False, help=what)


def state_spec(name: str, help: str, epilog: str) -> CommandSpec:
    """archive, unarchive, pin, unpin: ``[AGENT] ID... [--json] [--user|--project]``."""
    return CommandSpec(
        name=name,
        help=help,
        epilog=epilog,
        params=(
            agent_or_id(),
            Param("ids", "arguments", help="Ids of the entries.", metavar="ID...", synopsis="ID..."),
            json_flag("Print the entries as JSON, each with whether it changed."),
            *BY_ID_SCOPE,
        ),
    )


def archived_flag(what: str) -> Param:
    return Param("archived", "flag", flags=("--archived",), type=bool, default=False, help=what)


ALLOW_SECRET = Param(
    "allow_secret",
    "flag",
    flags=("--allow-secret",),
    type=bool,
    default=False,
    help="Store text even if it looks like a secret.",
)
ALLOW_RULE = Param(
    "allow",
    "options",
    flags=("--allow",),
    type=str,
    default=None,
    help="Store text that a content rule refuses, when you mean it (repeatable: remote-code, override,"
    " concealment, exfiltration, fake-delimiter, memcli-marker, encoded, agent-config; personal: a text"
    " that says one of your personal notes again, shared with the team); kept as the tag allow-RULE,"
    " which `memcli review` lists.",
    metavar="RULE",
)
DRY_RUN = Param(
    "dry_run", "flag", flags=("--dry-run",), type=bool, default=False, help="Say what would change; change nothing."
)


def limit_option(default_note: str = "") -> Param:
    return Param(
        "limit",
        "option",
        flags=("--limit", "-n"),
        type=int,
        default=None,
        help=f"At most N results{default_note}.",
        metavar="N",
        min=1,
        max=1_000_000,
    )


def agent_argument(what: str = "Agent id, e.g. dev.", required: bool = True) -> Param:
    return Param("agent", "argument", help=what, metavar="AGENT" if required else "[AGENT]", required=required)


def agent_or_id(project: bool = False) -> Param:
    """The first argument of ``show``/``edit``/``done``/``rm``: the agent, which may be left out when
    the id names one entry (``memcli show ID``); parsed as required, shown as ``[AGENT]``."""
    what = "Agent id (may be left out)" + (", or _project for .memory/_project.md." if project else ".")
    return Param("agent", "argument", help=what, metavar="[AGENT]", required=True, synopsis="[AGENT]")


def entry_id_argument(what: str = "The entry's id (see `memcli list`).") -> Param:
    return Param("entry_id", "argument", help=what, metavar="ID", synopsis="ID")


def budget_option(what: str, max: int | None = None) -> Param:
    """``--budget/-b TOKENS``: inject's and export's (no upper bound for inject: a budget larger
    than the block never cuts it)."""
    return Param("budget", "option", flags=("--budget", "-b"), type=int, help=what, metavar="TOKENS", min=1, max=max)


def agent_option(what: str = "Only this agent's entries.", default: str | None = None, metavar: str = "AGENT") -> Param:
    return Param("agent", "option", flags=("--agent", "-a"), default=default, help=what, metavar=metavar)


def category_option(what: str = "Only this category.") -> Param:
    return Param("category", "option", flags=("--category", "-c"), help=what, metavar="CATEGORY")


# Accepted after the command too (`memcli list --dir ../other`); `memcli --dir PATH CMD` as ever.
DIR = Param(
    "dir",
    "option",
    flags=("--dir",),
    help="Folder holding .memory/ (default: $MEMCLI_DIR, else search upwards).",
    metavar="PATH",
)


# -- entry points: what git and agents' hooks run (not in `memcli --help`) ----------------------
# Their arguments are read by the same parser as every command's (``memcli.cli.fast.parse``);
# ``usage`` is what a wrong call is told.  After the name, git's entry points take positionals
# only (file names and what git passes to a hook may start with '-').
ENTRY_POINTS = {
    "merge-driver": CommandSpec(
        name="merge-driver",
        help="BASE OURS THEIRS [MARKER_SIZE] [PATH]  (run by git: `memcli init` registers it)",
        epilog="",
        params=(
            Param("base", "argument", required=True, metavar="BASE"),
            Param("ours", "argument", required=True, metavar="OURS"),
            Param("theirs", "argument", required=True, metavar="THEIRS"),
            Param("marker_size", "argument", metavar="MARKER_SIZE"),
            Param("path", "argument", metavar="PATH"),
        ),
    ),
    "hook": CommandSpec(
        name="hook",
        help="NAME [ARG...]  (run by the git hooks `memcli init` installs)",
        epilog="",
        params=(
            Param("name", "argument", required=True, metavar="NAME"),
            Param("args", "arguments", metavar="ARG..."),  # what git gives the hook: not used
        ),
    ),
    "agent-hook": CommandSpec(
        name="agent-hook",
        help="claude-code|cursor|codex [--agent ID] [--user]  (reads the agent's hook JSON on stdin)",
        epilog="",
        params=(
            Param("client", "argument", required=True, metavar="CLIENT"),
            agent_option("", metavar="ID"),
            user_flag(""),
        ),
    ),
}
POSITIONAL_ONLY = {"merge-driver", "hook"}
