"""`memcli init`: the memory tree, the project template and the two git files, never clobbering.

Everything is checked before anything is written, so a failure leaves the disk as it was.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from memcli.errors import MemcliError
from memcli.storage.fsutil import atomic_write, read_text
from memcli.storage.paths import Layout

PROJECT_TEMPLATE = """# Project

<!-- Shared context that memcli injects into every agent's prompt, before anything else.
     Fill in what an agent new to this repository must know, a line or two each, e.g.
       **Stack:** Django 5, Postgres 16, HTMX; deployed on one VM
       **Conventions:** type hints everywhere; tests beside the code; no ORM in views
       **Constraints:** no network calls in tests; Python 3.10 must keep working
     Keep it short: it costs tokens on every prompt. Comments like this one are never
     injected, and while the labels below are empty nothing of this file is. -->

**Stack:**
**Conventions:**
**Constraints:**
"""

GITATTRIBUTES_COMMENT = (
    "# memcli: memory files merge entry by entry (memcli's merge driver, registered in .git/config);"
    " conversations by union"
)
GITATTRIBUTES_LINES = [
    GITATTRIBUTES_COMMENT,
    ".memory/*/*.md merge=memcli",
    ".memory/*/*/*.md merge=memcli",
    ".memory/conversations/*.jsonl merge=union",
    ".memory/conversations/*/*.jsonl merge=union",
]
# Lines that earlier versions wrote and this one replaces (union cannot carry removals or edits).
OBSOLETE_GITATTRIBUTES = {
    ".memory/*/*.md merge=union": ".memory/*/*.md merge=memcli",
    "# memcli: memory files merge by union, so entries and messages from both sides are kept": GITATTRIBUTES_COMMENT,
    "# memcli: vault files merge entry by entry (memcli's merge driver, registered in .git/config);"
    " conversations by union": GITATTRIBUTES_COMMENT,
}
# What a write cut short leaves: fsutil.stage_write's ".<name>.<pid>-<random>.tmp" (and older memcli's
# ".<name>.<random>.tmp"), beside the file it was to replace.
TEMP_FILES_LINE = ".memory/**/.*.tmp"
GITIGNORE_LINES = [
    "# memcli: the search index and session state are a local cache",
    ".memory/.vault/",
    ".memory/**/*.bak",
    TEMP_FILES_LINE,
]


@dataclass
class InitPlan:
    root: Path
    create_dirs: list[Path] = field(default_factory=list)
    write_files: dict[Path, str] = field(default_factory=dict)
    hooks: list[tuple[str, Path, object]] = field(default_factory=list)  # git.hooks.plan_install
    messages: list[str] = field(default_factory=list)


def _append_lines(
    path: Path, lines: list[str], plan: InitPlan, replace: Mapping[str, str | None] | None = None
) -> None:
    """Add the lines that are missing; ``replace`` maps lines we wrote before to their successors."""
    if path.is_symlink() or (path.exists() and not path.is_file()):
        raise MemcliError(f"{path} is not a regular file; refusing to change it")
    try:
        current = read_text(path)
    except (UnicodeDecodeError, OSError):
        raise MemcliError(f"{path} is not a readable text file; refusing to change it") from None
    if current is None:
        current = ""
    if replace and any(line.strip() in replace for line in current.splitlines()):
        kept = []
        for line in current.splitlines():
            if line.strip() in replace:
                successor = replace[line.strip()]
                if successor is not None:
                    kept.append(successor)
            else:
                kept.append(line)
        current = "\n".join(kept) + "\n"
        plan.write_files[path] = current
        plan.messages.append(f"updated {path.name} (memory files now merge with memcli's merge driver)")
    present = {line.strip() for line in current.splitlines()}
    missing = [line for line in lines if line.strip() not in present and not line.startswith("#")]
    if not missing:
        return
    comment = [line for line in lines if line.startswith("#") and line.strip() not in present]
    prefix = current if not current or current.endswith("\n") else current + "\n"
    if prefix:
        prefix += "\n"
    plan.write_files[path] = prefix + "\n".join(comment + missing) + "\n"
    plan.messages.append(f"{'updated' if current else 'created'} {path.name} (+{len(missing)} lines)")


def ignore_backups(layout: Layout) -> list[str]:
    """The .gitignore lines, as ``init`` writes them (``migrate`` makes sure of them too)."""
    plan = InitPlan(root=layout.root)
    _append_lines(layout.root / ".gitignore", GITIGNORE_LINES, plan)
    for path, text in plan.write_files.items():
        atomic_write(path, text, plan.root)
    return plan.messages


def plan_init(layout: Layout, hooks: bool = True) -> InitPlan:
    plan = InitPlan(root=layout.root)
    if not layout.root.is_dir():
        raise MemcliError(f"{layout.root} is not a folder")
    for path in (layout.memory, layout.state):
        if path.exists() and not path.is_dir():
            raise MemcliError(f"{path} exists and is not a folder")
        if not path.exists():
            plan.create_dirs.append(path)
    if not layout.memory.exists():
        plan.messages.append(f"created {layout.memory}/")
    project = layout.project_file
    if project.exists() and not project.is_file():
        raise MemcliError(f"{project} exists and is not a file")
    if not project.exists():
        plan.write_files[project] = PROJECT_TEMPLATE
        plan.messages.append(f"created {project.relative_to(layout.root)} (edit it: `memcli edit _project`)")
    _append_lines(layout.root / ".gitattributes", GITATTRIBUTES_LINES, plan, OBSOLETE_GITATTRIBUTES)
    _append_lines(layout.root / ".gitignore", GITIGNORE_LINES, plan)
    if hooks:
        from memcli.git import hooks as git_hooks

        plan.hooks = git_hooks.plan_install(layout.root)
    return plan


def apply_init(plan: InitPlan) -> None:
    from memcli.storage.fsutil import make_dirs

    for path in plan.create_dirs:
        make_dirs(path, plan.root)
    for path, text in plan.write_files.items():
        atomic_write(path, text, plan.root)
    from memcli.git import repo

    registered = repo.merge_driver_registered(plan.root)
    if registered is not None:
        repo.register_merge_driver(plan.root)  # always: it may name a newer memcli
        if not registered:
            plan.messages.append("registered memcli's merge driver in this clone's git config")
    if plan.hooks:
        from memcli.git import hooks as git_hooks

        plan.messages.extend(git_hooks.install(plan.hooks))
