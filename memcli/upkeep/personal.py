"""The personal memory's first write: the folder in the user's data folder, a git repository of its
own (so that the developer can push it to a private remote and have it on every machine), its
``.memory/`` and memcli's ``.gitattributes`` and ``.gitignore`` lines, and the merge driver (two
machines' personal memories merge entry by entry, as a team's do).  No git hooks: nothing there
needs a hook (the index follows the files by itself; ``memcli compact --user`` compacts it), and
no ``_project.md``: personal memory is entries.
"""

from __future__ import annotations

import os

from memcli.errors import MemcliError
from memcli.storage.paths import Layout, not_personal

OUTSIDE = "it must live outside every repository (set MEMCLI_USER_DIR to a folder of its own)"


def check(layout: Layout) -> None:
    """Refuse, in one line, a personal memory memcli must not use: a ``.memory`` that is a symlink
    (every write would leave the folder memcli guards), anything but folders where folders go, or
    a folder that is, or lies inside, a project (``paths.not_personal``)."""
    memory = layout.memory
    if os.path.islink(memory):
        raise MemcliError(
            f"refusing to use your personal memory: {memory} is a symlink (memcli keeps memory in a real folder;"
            " point MEMCLI_USER_DIR at the folder that holds it instead)"
        )
    for path in (layout.root, memory):
        if os.path.lexists(path) and not os.path.isdir(path):
            raise MemcliError(f"cannot use your personal memory: {path} exists and is not a folder")
    why = not_personal(layout.root)
    if why:
        raise MemcliError(f"cannot use your personal memory: {why}; {OUTSIDE}")


def create(layout: Layout) -> list[str]:
    """Make the personal memory if it is not there; what was made, a line each (nothing: it was)."""
    check(layout)
    if layout.exists():
        try:  # a first write killed before it wrote them left .memory/ without them
            _git_lines(layout)
        except (OSError, MemcliError):
            pass  # (the write itself says what is wrong with the folder)
        return []
    root = layout.root
    try:
        os.makedirs(root, mode=0o700, exist_ok=True)  # the developer's own notes: nobody else's to read
    except OSError as exc:
        raise MemcliError(f"cannot create your personal memory in {root}: {exc.strerror}") from None
    if not os.access(root, os.W_OK | os.X_OK):
        raise MemcliError(f"cannot create your personal memory in {root}: it is not writable")
    from memcli.git import repo

    messages = []
    if not os.path.exists(root / ".git"):
        made = repo.init(root) or os.path.isdir(root / ".git")  # (another memcli may have made it meanwhile)
        if not made:
            messages.append("git is not available: your personal memory is not a git repository yet (`git init` it)")
    from memcli.upkeep.initialize import apply_init, plan_init

    try:
        _git_lines(layout)  # before .memory/, whose being there says the memory is made
    except OSError as exc:
        raise MemcliError(f"cannot create your personal memory in {root}: {exc.strerror}") from None
    plan = plan_init(layout, hooks=False)
    plan.write_files.pop(layout.project_file, None)
    try:
        apply_init(plan)
    except OSError as exc:
        raise MemcliError(f"cannot create your personal memory in {root}: {exc.strerror}") from None
    messages.insert(
        0,
        f"created your personal memory in {root}: a git repository of its own (commit and push it to a private"
        " remote to have it on every machine)",
    )
    return messages


def _git_lines(layout: Layout) -> None:
    """memcli's ``.gitignore`` and ``.gitattributes`` lines in the personal repository, where they
    are missing (the cache folder ``.memory/.vault/`` is never committed; memory files merge with
    memcli's driver)."""
    from memcli.storage.fsutil import atomic_write
    from memcli.upkeep.initialize import plan_init

    for path, text in plan_init(layout, hooks=False).write_files.items():
        if path.parent == layout.root:
            atomic_write(path, text, layout.root)
