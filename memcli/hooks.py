"""Git hooks that keep the memory current: post-checkout, post-merge, post-rewrite.

Installed the way pre-commit does it: a hook already there that is not ours is moved
to ``<name>.legacy`` and our hook runs it first (with the same arguments and stdin),
so the user's hook keeps working; removing ours puts theirs back.  The hooks honour
``core.hooksPath``, do nothing when memcli is not installed, print nothing unless
something is wrong, and exit with the user's hook status only — never memcli's.
"""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

from memcli.errors import MemcliError
from memcli.fsutil import atomic_write
from memcli.gitutil import hooks_dir

HOOKS = ("post-checkout", "post-merge", "post-rewrite")
MARKER = "# memcli-hook v1"
TEMPLATE = """#!/bin/sh
{marker}: installed by `memcli init`; `memcli init --remove-hooks` removes it.
# Brings memcli's search index up to date after git changes files (post-merge also
# compacts the memory when due). Any hook that was here before runs first, from
# {name}.legacy. A failure of memcli never changes git's exit status.
here=$(dirname "$0")
status=0
if [ -x "$here/{name}.legacy" ]; then
    "$here/{name}.legacy" "$@" || status=$?
fi
if command -v memcli >/dev/null 2>&1; then
    memcli hook {name} "$@" </dev/null >/dev/null || true
elif [ -x {python} ] && {python} -c "import memcli" 2>/dev/null; then
    {python} -m memcli hook {name} "$@" </dev/null >/dev/null || true
fi
exit $status
"""


def _ours(path: Path) -> bool:
    try:
        return MARKER in path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False


def plan_install(root: Path) -> list[tuple[Path, str]]:
    """The hook files to write, checked before anything is written; [] outside git."""
    folder = hooks_dir(root)
    if folder is None:
        return []
    if folder.exists() and not folder.is_dir():
        raise MemcliError(f"{folder} (the git hooks folder) is not a folder")
    plan = []
    for name in HOOKS:
        path = folder / name
        legacy = folder / f"{name}.legacy"
        if path.exists() and not _ours(path) and legacy.exists():
            raise MemcliError(f"both {path} and {legacy} exist; move one away before `memcli init`")
        content = TEMPLATE.format(marker=MARKER, name=name, python=shlex.quote(sys.executable))
        if not (path.exists() and path.read_text(errors="replace") == content):
            plan.append((path, content))
    return plan


def install(plan: list[tuple[Path, str]]) -> list[str]:
    messages = []
    for path, content in plan:
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists() and not _ours(path):
            os.replace(path, path.with_name(path.name + ".legacy"))
            messages.append(f"installed git hook {path.name} (your hook kept as {path.name}.legacy, and still runs)")
        else:
            messages.append(f"installed git hook {path.name}")
        atomic_write(path, content)
        path.chmod(0o755)
    return messages


def remove(root: Path) -> list[str]:
    folder = hooks_dir(root)
    if folder is None:
        raise MemcliError(f"{root} is not in a git repository; there are no hooks to remove")
    messages = []
    for name in HOOKS:
        path = folder / name
        legacy = folder / f"{name}.legacy"
        if path.exists() and _ours(path):
            path.unlink()
            if legacy.exists():
                os.replace(legacy, path)
                messages.append(f"removed git hook {name} (your previous hook is back)")
            else:
                messages.append(f"removed git hook {name}")
    return messages


def installed(root: Path) -> dict[str, bool]:
    folder = hooks_dir(root)
    return {name: bool(folder and _ours(folder / name)) for name in HOOKS}
