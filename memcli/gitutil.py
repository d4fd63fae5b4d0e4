"""The little of git memcli needs, through the git command (no GitPython: it costs ~90 ms to import)."""

from __future__ import annotations

import subprocess
from pathlib import Path


def git(root: Path, *args: str, timeout: float = 10) -> subprocess.CompletedProcess | None:
    """Run git in ``root``; None when git is missing or hangs."""
    try:
        return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.SubprocessError):
        return None


def is_repo(root: Path) -> bool:
    result = git(root, "rev-parse", "--is-inside-work-tree")
    return bool(result and result.returncode == 0 and result.stdout.strip() == "true")


def hooks_dir(root: Path) -> Path | None:
    """Where git looks for hooks (honours core.hooksPath), or None outside a repository."""
    result = git(root, "rev-parse", "--git-path", "hooks")
    if not result or result.returncode != 0:
        return None
    path = Path(result.stdout.strip())
    return path if path.is_absolute() else (root / path)


def branch(root: Path) -> str | None:
    """The current branch (also before the first commit), or the short commit when detached."""
    result = git(root, "symbolic-ref", "--short", "-q", "HEAD")
    if result and result.returncode == 0 and result.stdout.strip():
        return result.stdout.strip()
    result = git(root, "rev-parse", "--short", "HEAD")
    return f"detached at {result.stdout.strip()}" if result and result.returncode == 0 else None


def memory_changes(root: Path) -> list[str] | None:
    """``git status --porcelain`` lines for .memory/ (untracked cache excluded), or None outside git."""
    result = git(root, "status", "--porcelain", "--untracked-files=all", "--", ".memory")
    if not result or result.returncode != 0:
        return None
    return [line for line in result.stdout.splitlines() if line.strip() and "/.vault/" not in line]
