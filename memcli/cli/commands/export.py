"""`memcli export`."""

from __future__ import annotations

from memcli.cli.spec import budget_option, agent_option, CommandSpec, DRY_RUN, json_flag, Param, remove_flag

SPEC = CommandSpec(
    name="export",
    help="""Write the memory into an instruction file, for agents that read one and run no hooks (Copilot, Aider, Gemini CLI, Zed).

A marked section of AGENTS.md (--to claude: CLAUDE.md; copilot: .github/copilot-instructions.md;
cursor: the rule .cursor/rules/memcli-memory.mdc) gets the project text, the pinned entries, the
newest decisions and lessons and the open tasks, within the budget, as `inject` picks and cuts
them. Everything else in the file stays byte for byte; `memcli setup codex`'s section stays too.
Memory held back (`memcli review`) is never exported, nor what only your `memcli trust`
lets in: the file is committed, and one clone's decision would reach every clone's agents. Run again, it rewrites the file only when
the memory changed. After that, memcli's pre-commit hook (`memcli init`) refreshes every exported
section in each commit on the trusted branch (main) that changes memory, and stages it in that
commit; not on other branches, where the sections of any two would conflict. `memcli import` never
reads the section back.""",
    epilog="""Examples:

  memcli export

  memcli export --to copilot --to claude --budget 1000

  memcli export --dry-run

  memcli export --to agents --remove
""",
    params=(
        Param(
            "to",
            "options",
            flags=("--to",),
            type=str,
            default=None,
            help="Where: agents (AGENTS.md, the default), claude, copilot, cursor (repeatable).",
            metavar="FILE",
        ),
        agent_option("The agent whose memory is exported [default: the one the file's section names, else dev]."),
        budget_option("Token budget of the section [default: the file's section's, else inject's, 2000].", max=100_000),
        DRY_RUN,
        remove_flag("Take the section out (the rest of the file stays)."),
        json_flag("Print what was (or would be) written, as JSON."),
    ),
)


def run(
    dir_option: str | None,
    to: list[str] | None = None,
    agent: str | None = None,
    budget: int | None = None,
    dry_run: bool = False,
    remove: bool = False,
    as_json: bool = False,
) -> int:
    from memcli.cli import common
    from memcli.output import echo, print_json, warn
    from memcli.recall.block import tokens
    from memcli.upkeep import export

    from memcli.errors import MemcliError

    names = list(dict.fromkeys(to or ["agents"]))
    for name in names:
        if name not in export.TARGETS:
            raise MemcliError(f"unknown --to {name!r}: agents, claude, copilot or cursor")
    layout = common.layout(dir_option)
    # A section names the agent and budget it was exported with: a bare `memcli export` (what the
    # pre-commit hook advises when it cannot refresh one) keeps them, as the hook does.
    recorded = {name: (who, size) for name, who, size in export.exported(layout.root)[0]}
    texts: dict[str, str | None] = {}
    chosen: dict[tuple[str, int | None], export.Section] = {}
    for name in names:
        texts[name] = None
        if remove:
            continue
        who, size = recorded.get(name, ("dev", 0))
        key = (agent or who, budget or size or None)
        if key not in chosen:
            chosen[key] = export.section(layout, key[0], key[1], warn, named=agent is not None)
        texts[name] = chosen[key].render()
    changes = [export.plan(layout.root, name, texts[name]) for name in names]  # all read and checked first
    if not dry_run:
        for change in changes:
            export.write(layout.root, change)
    if not dry_run and not remove and any(c.changed for c in changes):
        off = export.off_trusted_branch(layout.root)
        if off:
            warn(off)
    for section in chosen.values():
        if section.held:
            n = len(section.held)
            mine = (
                "; what `memcli trust` let in is this clone's alone, never exported" if section.reader_trusted else ""
            )
            warn(f"{n} held-back {'memory' if n == 1 else 'memories'} not exported (`memcli review`{mine})")
    text = texts[names[0]]
    if as_json:
        print_json(
            {
                "agent": next(iter(chosen.values())).agent if chosen else agent,
                "dry_run": dry_run,
                "section": text,
                "tokens": tokens(text) if text else 0,
                "files": [
                    {
                        "path": c.shown,
                        "changed": c.changed,
                        "exists": c.after is not None,
                        "tokens": tokens(t) if t else 0,
                    }
                    for t, c in zip((texts[n] for n in names), changes)
                ],
            }
        )
        return 0
    if dry_run:
        for shown in dict.fromkeys(t for t in texts.values() if t is not None):
            echo(shown.rstrip("\n"))
    for name, change in zip(names, changes):
        text = texts[name]
        if not change.changed:
            echo(f"{change.shown}: up to date" if text is not None else f"{change.shown}: no memory section", err=True)
            continue
        verb = "would " if dry_run else ""
        if change.after is None:
            what = f"{verb}remove {change.shown}" if dry_run else f"removed {change.shown}"
        elif change.before is None:
            what = f"{verb}create {change.shown}" if dry_run else f"created {change.shown}"
        elif text is None:
            what = (
                f"{verb}take the memory section out of {change.shown}"
                if dry_run
                else f"took the memory section out of {change.shown}"
            )
        else:
            what = (
                f"{verb}update the memory section of {change.shown}"
                if dry_run
                else f"updated the memory section of {change.shown}"
            )
        used = f" ({tokens(text)} tokens)" if text is not None else ""
        echo(what + used, err=True)
    return 0
