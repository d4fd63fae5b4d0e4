"""`memcli import` (the module is ``import_``: ``import`` is Python's)."""

from __future__ import annotations

from memcli.cli.spec import agent_option, ALLOW_RULE, CommandSpec, DRY_RUN, json_flag, Param, user_flag

SPEC = CommandSpec(
    name="import",
    help="""Bring in the memory your agents already keep: CLAUDE.md, AGENTS.md, Cursor rules, Cline's memory bank, Copilot's instructions, Claude Code's auto memory.

A SOURCE is a file or a folder. With none, every known source in the repository is read:
CLAUDE.md, .claude/CLAUDE.md, .claude/rules/**/*.md, AGENTS.md, .cursor/rules/**/*.mdc,
.cursorrules, memory-bank/*.md, .github/copilot-instructions.md. Claude Code's auto memory for
this repository (~/.claude/projects/<path>/memory/: MEMORY.md and its topic files) is yours
alone, so it is left out (with a line saying so): --user imports it, and ~/.claude/CLAUDE.md,
into your personal memory; naming its folder imports it into the project's. Each list
item, each section's prose and each rule file becomes an entry, in a category by its heading
(Next steps: tasks; Gotchas: lessons; Conventions: decisions; Overview: projects; else a
decision, or project context for prose), tagged with where it came from (#from-claude-md) and
its heading. Sources are only read. What memory already holds is not added again, so importing
twice adds nothing; memcli's own sections (`memcli export`, `memcli setup`) are never imported. A
missing, binary, huge or malformed source, a symlink out of the repository, or an invisible
character imports nothing; an entry that `add` would refuse (a secret, a content rule), or that
holds a line another author's commit added and the trusted branch lacks (an unreviewed change), is
skipped with a line on stderr; so is, with no SOURCE named, one that says a personal note of yours
again (--allow personal brings it).""",
    epilog="""Examples:

  memcli import --dry-run

  memcli import

  memcli import CLAUDE.md .cursor/rules --agent frontend

  memcli import --user          (Claude Code's auto memory and ~/.claude/CLAUDE.md: your personal memory)

  memcli import ~/.claude/projects/-home-me-app/memory     (the auto memory, into the project's memory)
""",
    params=(
        Param(
            "sources",
            "arguments",
            help="Files or folders to import (default: every known source).",
            metavar="[SOURCE]...",
        ),
        agent_option("The agent whose memory receives the entries.", default="dev"),
        DRY_RUN,
        ALLOW_RULE,
        json_flag("Print what was (or would be) added, already there, and skipped, as JSON."),
        user_flag(
            "Import into your personal memory (outside every repository), not the project's; with no SOURCE,"
            " Claude Code's auto memory for this repository and ~/.claude/CLAUDE.md."
        ),
    ),
)


def run(
    dir_option: str | None,
    sources: list[str] | None = None,
    agent: str = "dev",
    dry_run: bool = False,
    allow: list[str] | None = None,
    as_json: bool = False,
    user: bool = False,
) -> int:
    from memcli import api
    from memcli.cli import common
    from memcli.output import echo, plural, print_json, visible
    from memcli.upkeep.imports import repository, run_import

    # --user: into the personal memory, the sources still looked for and judged in this repository
    project = repository(dir_option) if user else None
    mem = common.memory(dir_option, user=user)
    report = run_import(mem, agent, list(sources or ()), dry_run=dry_run, allow=allow, project=project)
    if report.left_out:
        echo(
            visible(
                f"left out Claude Code's auto memory ({report.left_out}): it is yours alone, not the team's;"
                f" `memcli import --user` brings it into your personal memory, `memcli import {report.left_out}`"
                " into this project's",
                lines=False,
            ),
            err=True,
        )
    if as_json:
        print_json(report.to_json())
        return 0
    verb = "would add" if dry_run else "added"
    for unit, entry_id in report.added:
        name = f"{report.agent}/{unit.category}" + (f" {entry_id}" if entry_id else "")
        echo(visible(f"{verb} {name}  {unit.where}  {api.first_line(unit.text)[:70]}", lines=False))
    for unit, why in report.skipped:  # (a file name of somebody's branch may hold anything: one line each)
        echo(visible(f"skipped {unit.where}: {why}", lines=False), err=True)
    if not report.files and user:
        echo("nothing to import: no auto memory of Claude Code for this repository, and no ~/.claude/CLAUDE.md")
        return 0
    if not report.files:
        echo("nothing to import: no CLAUDE.md, AGENTS.md, Cursor rules, memory bank or Copilot instructions here")
        return 0
    done = "would import" if dry_run else "imported"
    notes = [f"{len(report.present)} already in memory"] if report.present else []
    notes += [f"{len(report.skipped)} skipped"] if report.skipped else []
    extra = f" ({', '.join(notes)})" if notes else ""
    into = " into your personal memory" if user else ""
    echo(
        f"{done} {plural(len(report.added), 'entry', 'entries')} from {plural(len(report.files), 'file')}{into}{extra}"
    )
    return 0
