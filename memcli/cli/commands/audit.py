"""`memcli audit`."""

from __future__ import annotations

from memcli.cli.spec import CommandSpec, Param, json_flag

SPEC = CommandSpec(
    name="audit",
    help="""Check memory for content that would be held back from agents; exit 1 if there is any.

For pull requests and CI: with BASE and HEAD, the entries added or changed between two commits;
with BASE alone, between BASE and the work tree; with neither, all of the memory; with --files,
the files given (as pre-commit passes them). Each finding is a line `.memory/PATH:LINE: entry ID:
RULE: what it does: 'excerpt'` (invisible characters shown as U+XXXX marks). Entries whose writer
allowed a rule (#allow-RULE, `memcli add --allow RULE`) are listed as notes and pass, unless
--strict.""",
    epilog="""Examples:

  memcli audit origin/main HEAD

  memcli audit --json

  memcli audit --files .memory/dev/decisions/1773679871839-ci-note.md
""",
    params=(
        Param("refs", "arguments", help="BASE [HEAD] commits, or the files with --files.", metavar="[BASE [HEAD]]"),
        Param("files", "flag", flags=("--files",), type=bool, default=False, help="The arguments are files to check."),
        Param("strict", "flag", flags=("--strict",), type=bool, default=False, help="Allowed findings fail too."),
        json_flag("Print the findings as JSON."),
    ),
)


EXTRA = {
    "cache-file": "memcli's cache (.memory/.vault/) is not memory; a branch must not carry it",
    "symlink": "a symlink where memory is read",
    "submodule": "a submodule where memory is read",
    "format": "a memory file memcli cannot read",
}


def run(
    dir_option: str | None,
    refs: list[str] | None = None,
    files: bool = False,
    strict: bool = False,
    as_json: bool = False,
) -> int:
    from memcli.cli import common
    from memcli.errors import MemcliError
    from memcli.output import echo, plural, print_json
    from memcli.recall import trust
    from memcli.storage import guard

    layout = common.layout(dir_option)
    given = list(refs or ())
    if not files and len(given) > 2:
        raise MemcliError(f"unexpected argument {given[2]!r}: `memcli audit [BASE [HEAD]]` (or --files FILE…)")
    report = trust.audit(layout, [] if files else given, given if files else None)
    failing = report["held"] + (report["allowed"] if strict else [])
    if as_json:
        print_json({**report, "ok": not failing})
        return 1 if failing else 0
    for kind, rows in (("", report["held"]), ("allowed, ", report["allowed"])):
        for r in rows:
            where = f"entry {r['id']}: " if r["id"] is not None else ""
            what = guard.RULES.get(r["rule"], EXTRA.get(r["rule"], r["rule"]))
            echo(f".memory/{r['path']}:{r['line']}: {where}{kind}{r['rule']}: {what}: '{r['excerpt']}'")
    entries = plural(report["checked"], "entry", "entries")
    if failing:
        echo(f"memcli audit: {plural(len(failing), 'finding')} in {entries} would be held back from agents", err=True)
        return 1
    echo(f"memcli audit: {entries} checked, nothing held back", err=True)
    return 0
