"""Shell completions and the man page, generated from the CLI itself.

    python -m memcli.cli.docs        # rewrites completions/ and man/memcli.1

``tests/test_docs.py`` regenerates them and fails when the committed files differ, so
they never drift from the CLI.  Agent names and categories complete dynamically, through
``memcli __complete agents|categories`` (answered without importing Typer).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

ENVIRONMENT = [
    ("MEMCLI_DIR", "The folder holding .memory/, like --dir."),
    ("EDITOR, VISUAL", "The editor for add and edit without TEXT on a terminal."),
    ("NO_COLOR", "No colour in the output, even on a terminal."),
    ("MEMCLI_DEBUG", "Show a traceback for an internal error."),
]
FILES = [
    (".memory/_project.md", "Shared project context, injected for every agent."),
    (".memory/AGENT/CATEGORY/ID-SLUG.md", "One file per memory (an entry of one agent and category)."),
    (".memory/AGENT/CATEGORY.md", "AITEAM-X category files: read and kept; memcli migrate moves them."),
    (".memory/conversations/AGENT/SESSION.jsonl", "One file per session, one message per line."),
    (".memory/config.toml", "Optional settings (see the README)."),
    (".memory/.vault/", "Not tracked: the search index, checkpoints, compact-log.json, the lock."),
    (".gitattributes", "merge=memcli for memory files, merge=union for conversations (written by init)."),
    (".git/config", "merge.memcli.driver: the merge driver, registered by init and by any memcli write."),
]
EXAMPLES = [
    "memcli init",
    'memcli add dev decisions "Adopt SSE instead of WebSockets #sse #architecture"',
    'memcli add dev tasks "- [ ] write the login test"',
    'memcli search "streaming" --agent dev',
    'cursor-agent -p "$(memcli inject dev "$task")$task"',
    "memcli checkpoint dev transcript.jsonl --close",
    "memcli compact --dry-run",
]
# Positional arguments and options whose values complete dynamically.
DYNAMIC = {"agent": "agents", "category": "categories"}


@dataclass
class Opt:
    names: list[str]
    flag: bool
    help: str
    metavar: str
    choices: list[str]
    dest: str


@dataclass
class Cmd:
    name: str
    help: str
    epilog: str
    arguments: list[tuple[str, str, str]]  # (dest, metavar, help)
    options: list[Opt]
    optional: frozenset = frozenset()  # the dests of the arguments that may be left out


def commands() -> tuple[list[Opt], list[Cmd]]:
    """The global options and the visible commands, read from the Typer app."""
    import typer

    from memcli.cli.app import app

    group: Any = typer.main.get_command(app)  # a Typer group: list_commands, get_command
    ctx = group.make_context("memcli", ["--help"], resilient_parsing=True)

    def opts(cmd) -> list[Opt]:
        out = []
        for p in cmd.get_params(ctx):
            if p.param_type_name != "option":
                continue
            choices = _choices(p)
            metavar = "" if p.is_flag else (p.metavar or p.name.upper())
            # Long names first; sorted, because click may keep them in a set (order varies per process).
            names = sorted({*p.opts, *p.secondary_opts}, key=lambda n: (not n.startswith("--"), n))
            out.append(Opt(names, bool(p.is_flag), p.help or "", metavar, choices, p.name))
        return out

    cmds = []
    for name in sorted(group.list_commands(ctx)):
        cmd = group.get_command(ctx, name)
        if cmd.hidden:
            continue
        args = [
            (p.name, (p.metavar or p.name.upper()).strip("[]"), getattr(p, "help", "") or "")
            for p in cmd.params
            if p.param_type_name == "argument"
        ]
        optional = frozenset(p.name for p in cmd.params if p.param_type_name == "argument" and not p.required)
        cmds.append(Cmd(name, (cmd.help or "").strip(), (cmd.epilog or "").strip(), args, opts(cmd), optional))
    return opts(group), cmds


def _choices(param) -> list[str]:
    from memcli.cli.fast import specs

    for spec in specs().values():
        for p in spec.params:
            if p.choices and set(p.flags) & set(param.opts):
                return list(p.choices)
    return list(getattr(param.type, "choices", []) or [])


def _synopsis(c: Cmd, dest: str, metavar: str) -> str:
    """An argument as the man page's synopsis shows it: [OPTIONAL] or REQUIRED."""
    from memcli.cli.fast import specs

    shown = next((p.synopsis for p in specs()[c.name].params if p.name == dest and p.synopsis), None)
    if shown:
        inner = shown.strip("[]")
        return f"[\\fI{_roff(inner)}\\fR]" if shown.startswith("[") else f"\\fI{_roff(inner)}\\fR"
    return f"[\\fI{_roff(metavar)}\\fR]" if dest in c.optional else f"\\fI{_roff(metavar)}\\fR"


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0].strip() if text.strip() else ""


# ---------------------------------------------------------------- bash
def bash() -> str:
    global_opts, cmds = commands()
    names = " ".join(c.name for c in cmds)
    lines = [
        "# bash completion for memcli — generated by `python -m memcli.cli.docs`; do not edit.",
        "# Install: source this file, or copy it to ~/.local/share/bash-completion/completions/memcli",
        "_memcli() {",
        "    local cur prev cmd i word",
        '    cur="${COMP_WORDS[COMP_CWORD]}"',
        '    prev="${COMP_WORDS[COMP_CWORD-1]}"',
        '    cmd=""',
        "    local -a positional=()",
        "    for ((i = 1; i < COMP_CWORD; i++)); do",
        '        word="${COMP_WORDS[i]}"',
        '        case "$word" in',
        "            --dir) ((i++));;",
        "            -*) ;;",
        '            *) if [ -z "$cmd" ]; then cmd="$word"; else positional+=("$word"); fi;;',
        "        esac",
        "    done",
        '    case "$prev" in',
        '        --dir) COMPREPLY=($(compgen -d -- "$cur")); return;;',
        '        --agent|-a) COMPREPLY=($(compgen -W "$(memcli __complete agents 2>/dev/null)" -- "$cur")); return;;',
        '        --category|-c) COMPREPLY=($(compgen -W "$(memcli __complete categories 2>/dev/null)" -- "$cur")); return;;',
        '        --format|-f) COMPREPLY=($(compgen -W "text json" -- "$cur")); return;;',
        "    esac",
        '    if [ -z "$cmd" ]; then',
        f'        COMPREPLY=($(compgen -W "{names} {" ".join(n for o in global_opts for n in o.names)}" -- "$cur"))',
        "        return",
        "    fi",
        '    case "$cmd" in',
    ]
    for c in cmds:
        options = " ".join(n for o in c.options for n in o.names)
        lines.append(f"        {c.name})")
        lines.append('            if [[ "$cur" == -* ]]; then')
        lines.append(f'                COMPREPLY=($(compgen -W "{options}" -- "$cur")); return')
        lines.append("            fi")
        for n, (dest, _, _) in enumerate(c.arguments):
            kind = DYNAMIC.get(dest)
            if kind:
                lines.append(f'            if [ "${{#positional[@]}}" -eq {n} ]; then')
                lines.append(
                    f'                COMPREPLY=($(compgen -W "$(memcli __complete {kind} 2>/dev/null)" -- "$cur")); return'
                )
                lines.append("            fi")
        if any(dest in ("file",) for dest, _, _ in c.arguments):
            lines.append('            COMPREPLY=($(compgen -f -- "$cur"))')
        lines.append("            ;;")
    lines += ["    esac", "}", "complete -o default -F _memcli memcli", ""]
    return "\n".join(lines)


# ---------------------------------------------------------------- zsh
def _zsh_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("'", "'\\''").replace("[", "\\[").replace("]", "\\]").replace(":", "\\:")


def zsh() -> str:
    global_opts, cmds = commands()
    lines = [
        "#compdef memcli",
        "# zsh completion for memcli — generated by `python -m memcli.cli.docs`; do not edit.",
        "# Install: copy to a folder in $fpath as _memcli, then run compinit.",
        "",
        '_memcli_agents() { local -a a; a=(${(f)"$(memcli __complete agents 2>/dev/null)"}); _describe agent a }',
        '_memcli_categories() { local -a c; c=(${(f)"$(memcli __complete categories 2>/dev/null)"}); _describe category c }',
        "",
        "_memcli() {",
        "    local -a commands",
        "    commands=(",
    ]
    for c in cmds:
        lines.append(f"        '{c.name}:{_zsh_escape(_first_line(c.help))}'")
    lines += [
        "    )",
        "    _arguments -C \\",
        "        '--dir[folder holding .memory/]:folder:_files -/' \\",
        "        '(- *)--version[show the version]' \\",
        "        '(- *)'{-h,--help}'[show help]' \\",
        "        '1:command:->command' \\",
        "        '*::arg:->args'",
        "    case $state in",
        "        command) _describe command commands ;;",
        "        args)",
        "            case $words[1] in",
    ]
    for c in cmds:
        specs = []
        for o in c.options:
            action = ""
            if not o.flag:
                if o.dest in DYNAMIC:
                    action = f":{o.dest}:_memcli_{DYNAMIC[o.dest]}"
                elif o.choices:
                    action = f":{o.metavar}:({' '.join(o.choices)})"
                else:
                    action = f":{_zsh_escape(o.metavar.lower())}:"
            names = o.names
            spec = (
                f"'{names[0]}[{_zsh_escape(o.help)}]{action}'"
                if len(names) == 1
                else (f"'({' '.join(names)})'{{{','.join(names)}}}'[{_zsh_escape(o.help)}]{action}'")
            )
            specs.append(spec)
        for n, (dest, metavar, help_) in enumerate(c.arguments, 1):
            action = f"_memcli_{DYNAMIC[dest]}" if dest in DYNAMIC else ("_files" if dest == "file" else " ")
            star = "*" if metavar.endswith("...") else str(n)
            specs.append(f"'{star}:{_zsh_escape(metavar.lower())}:{action}'")
        body = " \\\n                        ".join(specs)
        lines.append(f"                {c.name}) _arguments {body} ;;")
    lines += ["            esac ;;", "    esac", "}", "", '_memcli "$@"', ""]
    return "\n".join(lines)


# ---------------------------------------------------------------- fish
def _fish_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("'", "\\'")


def fish() -> str:
    global_opts, cmds = commands()
    names = " ".join(c.name for c in cmds)
    lines = [
        "# fish completion for memcli — generated by `python -m memcli.cli.docs`; do not edit.",
        "# Install: copy to ~/.config/fish/completions/memcli.fish",
        "complete -c memcli -f",
        f"complete -c memcli -n 'not __fish_seen_subcommand_from {names}' -l dir -r -a '(__fish_complete_directories)' -d 'Folder holding .memory/'",
        f"complete -c memcli -n 'not __fish_seen_subcommand_from {names}' -l version -d 'Show the version'",
    ]
    for c in cmds:
        lines.append(
            f"complete -c memcli -n 'not __fish_seen_subcommand_from {names}' -a {c.name} -d '{_fish_escape(_first_line(c.help))}'"
        )
    for c in cmds:
        cond = f"__fish_seen_subcommand_from {c.name}"
        for o in c.options:
            parts = [f"complete -c memcli -n '{cond}'"]
            for n in o.names:
                parts.append(f"-l {n[2:]}" if n.startswith("--") else f"-s {n[1:]}")
            if not o.flag:
                parts.append("-r")
                if o.dest in DYNAMIC:
                    parts.append(f"-a '(memcli __complete {DYNAMIC[o.dest]} 2>/dev/null)'")
                elif o.choices:
                    parts.append(f"-a '{' '.join(o.choices)}'")
            parts.append(f"-d '{_fish_escape(o.help)}'")
            lines.append(" ".join(parts))
        dynamic = [DYNAMIC[d] for d, _, _ in c.arguments if d in DYNAMIC]
        if dynamic:
            lines.append(f"complete -c memcli -n '{cond}' -a '(memcli __complete {dynamic[0]} 2>/dev/null)'")
        if any(d == "file" for d, _, _ in c.arguments):
            lines.append(f"complete -c memcli -n '{cond}' -F")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- man page
def _roff(text: str) -> str:
    out = []
    for line in text.replace("\\", "\\e").split("\n"):
        line = line.replace("-", "\\-").replace("\u2014", "\\(em")  # groff reads ASCII
        if line.startswith((".", "'")):
            line = "\\&" + line
        out.append(line)
    return "\n".join(out)


def _paragraphs(text: str) -> str:
    blocks = [b.strip() for b in re.split(r"\n\s*\n", text.strip()) if b.strip()]
    return "\n.PP\n".join(_roff(" ".join(b.split())) for b in blocks)


def _examples(epilog: str) -> str:
    lines = [line.strip() for line in epilog.splitlines() if line.strip()]
    prose = [
        line
        for line in lines
        if not line.startswith("memcli") and not line.lower().startswith(("example", "cursor", "git ", "echo"))
    ]
    cmds = [line for line in lines if line not in prose and not line.lower().startswith("example")]
    out = []
    if prose:
        out.append(_roff(" ".join(prose)))
    if cmds:
        out.append(".PP\nExamples:\n.RS\n.nf\n" + "\n".join(_roff(c) for c in cmds) + "\n.fi\n.RE")
    return "\n".join(out)


def man() -> str:
    from memcli import __version__
    from memcli.cli.app import HELP

    global_opts, cmds = commands()
    description = HELP.split("Exit codes:")[0]
    parts = [
        '.\\" Generated by `python -m memcli.cli.docs` from the CLI; do not edit.',
        f'.TH MEMCLI 1 "" "memcli {__version__}" "User Commands"',
        ".SH NAME",
        "memcli \\- git\\-native memory for AI coding agents",
        ".SH SYNOPSIS",
        ".B memcli",
        "[\\fB\\-\\-dir\\fR \\fIPATH\\fR] \\fICOMMAND\\fR [\\fIARGS\\fR]...",
        ".br",
        ".B memcli",
        "\\fB\\-\\-version\\fR | \\fB\\-\\-help\\fR",
        ".SH DESCRIPTION",
        _paragraphs(description),
        ".SH GLOBAL OPTIONS",
    ]
    for o in global_opts:
        parts.append(_man_option(o))
    parts.append(".SH COMMANDS")
    for c in cmds:
        synopsis = " ".join(_synopsis(c, d, m) for d, m, _ in c.arguments)
        parts.append(f'.SS "{c.name}"')
        parts.append(f".B memcli {c.name}\n[\\fIOPTIONS\\fR] {synopsis}".rstrip())
        parts.append(".PP\n" + _paragraphs(c.help))
        for _, metavar, help_ in c.arguments:
            if help_:
                parts.append(f".TP\n\\fI{_roff(metavar)}\\fR\n{_roff(help_)}")
        for o in c.options:
            parts.append(_man_option(o))
        if c.epilog:
            parts.append(_examples(c.epilog))
    parts.append(".SH EXIT STATUS")
    from memcli.errors import EXIT_CODES

    for code, _, text in EXIT_CODES:
        parts.append(f".TP\n.B {code}\n{_roff(text.replace('`', ''))}")
    parts.append(".SH ENVIRONMENT")
    for name, text in ENVIRONMENT:
        parts.append(f".TP\n.B {_roff(name)}\n{_roff(text)}")
    parts.append(".SH FILES")
    for name, text in FILES:
        parts.append(f".TP\n.I {_roff(name)}\n{_roff(text)}")
    parts.append(".SH EXAMPLES\n.nf\n" + "\n".join(_roff(e) for e in EXAMPLES) + "\n.fi")
    parts.append(".SH SEE ALSO\n.BR git (1),\n.BR gitattributes (5),\n.BR githooks (5)")
    return "\n".join(parts) + "\n"


def _man_option(o: Opt) -> str:
    names = ", ".join(f"\\fB{_roff(n)}\\fR" for n in o.names)
    value = f" \\fI{_roff(o.metavar)}\\fR" if not o.flag else ""
    return f".TP\n{names}{value}\n{_roff(o.help)}"


# ---------------------------------------------------------------- README help blocks
HELP_BLOCKS = ("memcli inject --help", "memcli checkpoint --help")  # what a wrapper runs
HELP_END = "<!-- /help -->"


def help_text(line: str) -> str:
    """What ``line`` (``memcli [COMMAND] --help``) prints, at a fixed width of 100 columns."""
    from typer.main import get_command

    from memcli.cli.app import app

    group: Any = get_command(app)
    words = line.split()[1:-1]
    ctx = group.make_context(
        "memcli",
        ["--help"] if not words else [*words],
        resilient_parsing=True,
        terminal_width=100,
        max_content_width=100,
    )
    if not words:
        return ctx.get_help() + "\n"
    command = group.get_command(ctx, words[0])
    sub = command.make_context(
        words[0], [], parent=ctx, resilient_parsing=True, terminal_width=100, max_content_width=100
    )
    return sub.get_help() + "\n"


def _between(text: str, name: str, block: str) -> str:
    start, end = f"<!-- {name} -->\n", f"<!-- /{name} -->"
    begin, stop = text.find(start), text.find(end)
    if begin < 0 or stop < begin:
        raise SystemExit(f"README.md has no {start.strip()} ... {end} block")
    return text[: begin + len(start)] + block + text[stop:]


def exit_codes_table() -> str:
    from memcli.errors import EXIT_CODES

    return "| code | meaning |\n|---|---|\n" + "".join(f"| {code} | {text} |\n" for code, _, text in EXIT_CODES)


def config_block() -> str:
    """Every setting of ``config.toml`` with its default, from ``memcli.config`` (the one home)."""
    from memcli.config import DEFAULTS, NOTES, SECTIONS

    lines = ["```toml"]
    for section in SECTIONS:
        lines.append(f"[{section}]")
        for name, value in DEFAULTS.items():
            if not name.startswith(section + "_"):
                continue
            if isinstance(value, bool):
                shown = "true" if value else "false"
            elif isinstance(value, tuple):
                shown = "[" + ", ".join(f'"{v}"' for v in value) + "]"
            elif isinstance(value, float) and value.is_integer():
                shown = str(int(value))
            else:
                shown = str(value)
            line = f"{name[len(section) + 1 :]} = {shown}"
            note = NOTES.get(name)
            lines.append(f"{line.ljust(26)} # {note}" if note else line)
        lines.append("")
    return "\n".join(lines[:-1]) + "\n```\n"


def mcp_tools_table() -> str:
    """The MCP tools as ``memcli mcp`` generates them from ``api.OPERATIONS``."""
    from memcli.api import OPERATIONS

    rows = ["| tool | arguments | what it does |", "|---|---|---|"]
    for op in OPERATIONS.values():
        if op.tool:
            args = ", ".join(f"`{i.name}`" if i.required else f"`{i.name}?`" for i in op.inputs)
            kind = "writes" if op.writes else "reads"
            rows.append(f"| `{op.tool}` | {args} | {kind}: {op.help.split('. ')[0].rstrip('.')} |")
    return "\n".join(rows) + "\n"


def readme() -> str:
    """The README with every help block (between ``<!-- help: LINE -->`` and ``<!-- /help -->``) as the
    CLI prints it now."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    text = _between(text, "exit-codes", exit_codes_table())
    text = _between(text, "config", config_block())
    text = _between(text, "mcp-tools", mcp_tools_table())
    for line in HELP_BLOCKS:
        start = f"<!-- help: {line} -->"
        begin = text.find(start)
        if begin < 0:
            raise SystemExit(f"README.md has no {start} block")
        end = text.find(HELP_END, begin)
        block = f"{start}\n```text\n$ {line}\n{help_text(line)}```\n"
        text = text[:begin] + block + text[end:]
    return text


GENERATED = {
    "README.md": readme,
    "completions/memcli.bash": bash,
    "completions/_memcli": zsh,
    "completions/memcli.fish": fish,
    "man/memcli.1": man,
}


def write_all(root: Path = ROOT) -> list[Path]:
    written = []
    for rel, make in GENERATED.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(make(), encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":
    for p in write_all():
        print(f"wrote {p.relative_to(ROOT)}")
