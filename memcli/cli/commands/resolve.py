"""`memcli resolve`."""

from __future__ import annotations

from memcli.cli.spec import CommandSpec, json_flag

SPEC = CommandSpec(
    name="resolve",
    help="""Resolve conflicted memory files: merge them entry by entry, keeping both sides.

For files git holds as unmerged, the three versions (base, ours, theirs) are merged
as memcli's merge driver would have, and staged; a memory file with conflict markers
outside a merge keeps the entries of both sides. An instruction file `memcli export`
wrote into (AGENTS.md ...) whose conflicts all lie in its memory section gets the
section written anew from the merged memory, and is staged. Also registers the merge driver in
this clone, so that the next merge needs none of this.""",
    epilog="""Examples:

  git pull            (in a clone where memcli's merge driver was not registered: CONFLICT in .memory/...)
  memcli resolve      (merges each conflicted memory file entry by entry and stages it)
  git commit --no-edit
""",
    params=(json_flag("Print what was resolved as JSON."),),
)


def run(dir_option: str | None, as_json: bool = False) -> int:
    from memcli import output
    from memcli.git import repo
    from memcli.git import resolve
    from memcli.cli import common

    from memcli.upkeep import export

    layout = common.layout(dir_option)
    done = resolve.resolve_all(layout)
    done += export.resolve(layout, output.warn)  # the sections come from the memory as merged
    repo.ensure_merge_driver(layout.root)
    if as_json:
        output.print_json([{"path": p, "how": how} for p, how in done])
        return 0
    for path, how in done:
        output.echo(f"resolved {path}: {how}")
    if not done:
        output.echo("no conflicted memory files")
    return 0
