"""`memcli export`: the memory, as a marked section of an instruction file, for agents that read
such a file and run no hooks (Copilot, Aider, Gemini CLI, Zed ...).

The section (between ``MARKS``) holds the project text, the agent's pinned entries, its newest
decisions and lessons and its open tasks, chosen and cut to the budget by what ``inject`` uses
(``recall.block.gather`` and ``fit``; no task, so the newest decisions and lessons, up to
``DECISIONS`` and ``LESSONS``).  The last handoff and the recovery snapshot are left out: they
are one session's, and would change the file at every session's end.  Held-back memory
(unreviewed, flagged: ``recall.trust``) is never written, nor memory only the reader's ``memcli
trust`` lets in: the file is committed, and one clone's decision would reach every clone's agents
(an entry's own ``allow-RULE`` tag, or the trusted branch, is everyone's); the poisoned memory of a
branch exports nothing.  Everything outside the section stays byte for byte (``storage.sections.with_section``);
a section already current is not written at all (the file keeps its mtime).  ``memcli setup
codex``'s own section of AGENTS.md has other markers: each leaves the other alone.

Kept current by the pre-commit hook (``git.hooks.export_for_commit``) on the trusted branch (``main``;
``provenance.on_trusted_branch``): a commit there that holds memory changes refreshes the sections
already exported and stages them in that same commit, so a pull brings memory and its exported
section together and nothing changes after it.  Not on other branches: a section refreshed in each
pull request's commits makes any two of them conflict in the file (both rewrite its lists), on a
hosting service and in a local merge, rebase, revert or cherry-pick alike; and a branch's section
would hold what only its committer's clone counts as reviewed.  Merged pull requests reach the
section with the next memory commit on the trusted branch, or a ``memcli export`` run there.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from memcli.errors import MemcliError
from memcli.recall.block import Selection

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from memcli.storage.paths import Layout

MARKS = ("<!-- memcli export: start -->", "<!-- memcli export: end -->")
TARGETS = {
    "agents": "AGENTS.md",
    "claude": "CLAUDE.md",
    "copilot": ".github/copilot-instructions.md",
    "cursor": ".cursor/rules/memcli-memory.mdc",
}
CURSOR_HEAD = (
    "---\ndescription: This project's memory (decisions, lessons, open tasks), exported by memcli\n"
    "alwaysApply: true\n---\n"
)
ABOUT = (
    "<!-- memcli export --agent {agent} --budget {budget}: written from .memory/ by `memcli export` and"
    " refreshed by memcli's pre-commit hook; change the memory (memcli add, edit, rm), not this section. -->"
)
_ABOUT_RE = re.compile(r"^<!-- memcli export --agent ([a-z0-9][a-z0-9._-]*) --budget (\d+):", re.M)
DECISIONS = 10  # newest decisions and lessons the section may hold (the budget may cut them)
LESSONS = 10
HEADING = "## Project memory (memcli)"


class Section(Selection):
    """A selection rendered as a section of an instruction file (``fit`` measures this rendering)."""

    agent = "dev"
    budget = 0
    reader_trusted = False  # the reader trusted some memory (``memcli trust``): it is not exported
    had = False  # there was memory to export before the budget cut it

    def render(self) -> str:
        parts = [ABOUT.format(agent=self.agent, budget=self.budget), "", HEADING]
        from memcli.storage.sections import open_fence

        if self.project.strip():
            project = self.project.strip()
            fence = open_fence(project)
            if fence:
                project += "\n" + fence  # an open fence would swallow what follows, the end marker too
            parts += ["", project]
        for title, items, bullet in (
            ("Pinned", self.pinned, True),
            ("Decisions", self.decisions, True),
            ("Lessons", self.lessons, True),
            ("Open tasks", self.tasks, False),
        ):
            if items:
                parts += ["", f"### {title}", ""]
                parts += [f"- {i.text}" if bullet else i.text for i in items]
        if len(parts) == 3:
            parts += ["", "(nothing fits the budget)" if self.had else "(no memory yet)"]
        fence = open_fence("\n".join(parts))
        return "\n".join(parts + [fence] if fence else parts) + "\n"


def section(
    layout: Layout, agent: str, budget: int | None, warn: Callable[[str], None], named: bool = False
) -> Section:
    """The section for an agent, fitted to the budget (default: inject's); held-back memory left
    out.  An agent with no memory is refused when others have some, or when the user ``named`` it
    (a typo would write an empty section over the one there)."""
    from memcli.config import Config, load_config
    from memcli.git.provenance import without_reader_trust
    from memcli.recall import block, trust
    from memcli.storage.paths import validate_agent
    from memcli.storage.store import Store

    validate_agent(agent)
    if layout.personal:
        raise MemcliError(f"{layout.memory} is your personal memory: it is never exported into a file; nothing changed")
    reader = trust.provenance(layout)
    prov = without_reader_trust(layout, reader)  # the file is every clone's: no one clone's trust
    if prov.poisoned:
        raise MemcliError(f"no memory exported: {prov.poisoned} (`memcli review`)")
    if prov.config_held:
        warn("config.toml holds unreviewed changes; exporting with the defaults (`memcli review`)")
    config = Config() if prov.config_held else load_config(layout.memory)
    config.inject_decisions = max(config.inject_decisions, DECISIONS)
    config.inject_lessons = max(config.inject_lessons, LESSONS)
    store = Store(layout, config)
    known = store.agents()
    if agent not in known and (known or named):  # a typo would export nothing, silently
        which = f"known agents: {', '.join(known)}" if known else "no agent has any yet"
        raise MemcliError(f"agent {agent!r} has no memory here; {which}; nothing changed")
    chosen = Section()
    chosen.__dict__.update(vars(block.gather(store, layout, agent, "", False, warn, judged_by=prov)))
    chosen.handoff, chosen.snapshot, chosen.show_held = None, [], False
    chosen.agent, chosen.budget = agent, budget or config.inject_budget
    chosen.had = bool(chosen.project.strip() or chosen.pinned or chosen.decisions or chosen.lessons or chosen.tasks)
    chosen.reader_trusted = bool(reader.trusted)
    return block.fit(chosen, chosen.budget)  # type: ignore[return-value]


def target(root: Path, relative: str) -> Path:
    """The file to write (``fsutil.project_file``: inside ``root``, a Markdown file)."""
    from memcli.storage.fsutil import project_file

    return project_file(root, relative, markdown=True)


class Change:
    """One file's export: its path, as shown, the text before and after (None: no file)."""

    def __init__(self, path: Path, shown: str, before: str | None, after: str | None):
        self.path, self.shown, self.before, self.after = path, shown, before, after

    @property
    def changed(self) -> bool:
        return self.before != self.after


def plan(root: Path, name: str, text: str | None) -> Change:
    """The file ``TARGETS[name]`` with the section ``text`` put in (None: taken out)."""
    from memcli.storage.sections import read_text, with_section

    relative = TARGETS[name]
    path = target(root, relative)
    before = read_text(path, relative)
    base = before
    if name == "cursor" and before is None and text is not None:
        base = CURSOR_HEAD  # the rule file is memcli's own: always applied
    after = with_section(base, text, MARKS, relative)
    if name == "cursor" and after is not None and after.strip() == CURSOR_HEAD.strip():
        after = None  # nothing left of the rule but memcli's head
    if before is None and after is None:
        return Change(path, relative, None, None)
    return Change(path, relative, before, after)


def write(root: Path, change: Change) -> None:
    """Write one planned change (an unchanged file is not touched)."""
    from memcli.storage.fsutil import atomic_write, make_dirs, remove

    if not change.changed:
        return
    if change.after is None:
        remove(change.path, root)
        return
    make_dirs(change.path.parent, root)
    atomic_write(change.path, change.after, root)


def exported(root: Path) -> tuple[list[tuple[str, str, int]], list[str]]:
    """The targets that hold an exported section now, as (name, agent, budget) as it was exported,
    and a line for each that holds memcli's start marker but no section export can find (half the
    markers, a fence never closed above them): the pre-commit hook says it cannot refresh it."""
    from memcli.storage.sections import read_text, sections

    found, problems = [], []
    for name, relative in TARGETS.items():
        try:
            path = target(root, relative)
            text = read_text(path, relative)
        except MemcliError:
            continue
        if not text:
            continue
        try:
            spans = sections(text, MARKS, relative)
        except MemcliError as exc:
            if MARKS[0] in text:
                problems.append(not_refreshed(relative, exc))
            continue
        if not spans:
            continue
        found.append((name, *_named(text[spans[0][0] : spans[0][1]])))
    return found, problems


def _named(section_text: str) -> tuple[str, int]:
    """The agent and budget a section was exported with, as its first line says (0: the default)."""
    about = _ABOUT_RE.search(section_text)
    return (about.group(1), int(about.group(2))) if about else ("dev", 0)


def off_trusted_branch(root: Path) -> str | None:
    """A line for a section written on a branch that is not the trusted one (None on it, or
    outside git): committed there, it conflicts with every other branch's."""
    from memcli.git.provenance import on_trusted_branch
    from memcli.git.repo import toplevel

    top = toplevel(root)
    if top is None or on_trusted_branch(str(top)):
        return None
    return (
        "this branch is not the trusted branch: a section committed here conflicts with every other"
        " branch's; memcli's pre-commit hook refreshes it on the trusted branch only"
    )


_CONFLICT = re.compile(r"(?m)^(?:<{7}|={7}|>{7}|\|{7})(?: .*)?\r?$")  # git's conflict marker lines


def resolve(layout: Layout, warn: Callable[[str], None]) -> list[tuple[str, str]]:
    """Exported files git holds as unmerged whose conflicts all lie in memcli's section (two
    branches that each refreshed it: a revert or cherry-pick of a memory commit, a merge of two
    branches that exported): the section written anew from the memory as merged, and the file
    staged.  One with a conflict outside the section is left as it is.  (path, what was done)."""
    from memcli.git import repo
    from memcli.storage.sections import read_text, sections

    top = repo.toplevel(layout.root)
    if top is None:
        return []
    done = []
    for name, relative in TARGETS.items():
        try:
            path = target(layout.root, relative)
        except MemcliError:
            continue
        rel = os.path.relpath(os.path.realpath(path), os.path.realpath(top))
        if not repo.unmerged(top, rel):
            continue
        try:
            text = read_text(path, relative) or ""
            spans = sections(text, MARKS, relative)
            conflicts = [m.start() for m in _CONFLICT.finditer(text)]
            if not spans or any(not any(a <= c < b for a, b in spans) for c in conflicts):
                done.append((rel, "not resolved: it conflicts outside its memory section (resolve that by hand)"))
                continue
            agent, budget = _named(text[spans[0][0] : spans[0][1]])
            change = plan(layout.root, name, section(layout, agent, budget or None, warn).render())
            write(layout.root, change)
        except MemcliError as exc:
            done.append((rel, f"not resolved: {exc.message}"))
            continue
        staged = repo.add(top, rel)
        done.append((rel, "memory section written anew from the merged memory" + ("" if staged else " (not staged)")))
    return done


def not_refreshed(relative: str, exc: MemcliError) -> str:
    """The hook's line for a section it could not refresh, with why."""
    reason = re.sub(r"[;,] nothing changed$", "", exc.message)
    return f"the memory section of {relative} was not refreshed: {reason} (then `memcli export`)"
