"""Every git command memcli runs goes through this module (no GitPython: it costs ~90 ms to import).

Callers get None, never an exception, when git is missing, hangs or fails where a caller
needs an answer: memcli must work outside git and never make a git command fail.
"""

from __future__ import annotations

import subprocess
from pathlib import Path


# What names a repository for git besides the folder it runs in: git sets them for its hooks and
# for "!" aliases (a linked work tree's GIT_DIR), so a git command memcli runs for another
# repository (the personal memory's) must not inherit them.
REPOSITORY_VARIABLES = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_COMMON_DIR",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_NAMESPACE",
    "GIT_PREFIX",
)


def _own_env() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if k not in REPOSITORY_VARIABLES}


def git(
    root: Path | str, *args: str, timeout: float = 10, own: bool = False, index: str | None = None
) -> subprocess.CompletedProcess | None:
    """Run git in ``root``; None when git is missing or hangs.  ``own``: the repository that holds
    ``root``, whatever repository the environment names (``REPOSITORY_VARIABLES``); ``index``: the
    index file to use (``GIT_INDEX_FILE``)."""
    env = _own_env() if own else None
    if index is not None:
        import os

        env = dict(os.environ, GIT_INDEX_FILE=index)
    try:
        return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=timeout, env=env)
    except (OSError, subprocess.SubprocessError):
        return None


def commit_indexes(top: Path) -> list[str | None] | None:
    """For a pre-commit hook: the index files what it stages must go into (None: the one the
    environment names), or None when staging cannot reach the commit.

    ``git commit``, ``-a`` and ``-i PATH`` make the commit from the index (``index.lock`` while
    it runs): one.  ``git commit PATH…`` makes it from a temporary index (``next-index-*.lock``),
    and writes the named paths into the real index, locked meanwhile (``<git dir>/index.lock``),
    after it: a path staged only in the first would be committed and then show as staged back to
    its old text, so it goes into both.  Any other ``GIT_INDEX_FILE`` is somebody's own."""
    import os

    named = os.environ.get("GIT_INDEX_FILE")
    if not named or os.path.basename(named) in ("index", "index.lock"):
        return [None]
    if not os.path.basename(named).startswith("next-index-"):
        return None
    found = git(top, "rev-parse", "--absolute-git-dir")
    if found is None or found.returncode != 0:
        return None
    real = os.path.join(found.stdout.strip(), "index.lock")
    return [None, real] if os.path.isfile(real) else None


def git_input(root: Path | str, *args: str, input: str, timeout: float = 60) -> subprocess.CompletedProcess | None:
    """Run git in ``root`` with ``input`` on its standard input (text); None when git is missing or hangs."""
    try:
        return subprocess.run(
            ["git", "-C", str(root), *args], input=input, capture_output=True, text=True, timeout=timeout
        )
    except (OSError, subprocess.SubprocessError):
        return None


def git_input_bytes(root: Path | str, *args: str, input: bytes, timeout: float = 60) -> bytes | None:
    """git's standard output (bytes) for ``input`` (bytes) on its standard input; None when git is
    missing, hangs or fails."""
    try:
        result = subprocess.run(["git", "-C", str(root), *args], input=input, capture_output=True, timeout=timeout)
    except (OSError, subprocess.SubprocessError):
        return None
    return result.stdout if result.returncode == 0 else None


def git_many(
    root: Path | str, commands: list[list[str]], timeout: float = 60
) -> list[subprocess.CompletedProcess | None]:
    """Several git commands at once (each its own process: git reads, so they may run side by
    side); each result, or None where git was missing, hung or could not start."""
    import time

    started: list[subprocess.Popen | None] = []
    for args in commands:
        try:
            started.append(
                subprocess.Popen(
                    ["git", "-C", str(root), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
                )
            )
        except OSError:
            started.append(None)
    deadline = time.monotonic() + timeout
    out: list[subprocess.CompletedProcess | None] = []
    for args, proc in zip(commands, started):
        if proc is None:
            out.append(None)
            continue
        try:
            stdout, stderr = proc.communicate(timeout=max(0.1, deadline - time.monotonic()))
            out.append(subprocess.CompletedProcess(args, proc.returncode, stdout, stderr))
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            out.append(None)
    return out


def is_repo(root: Path) -> bool:
    result = git(root, "rev-parse", "--is-inside-work-tree")
    return bool(result and result.returncode == 0 and result.stdout.strip() == "true")


def init(root: Path) -> bool:
    """Make ``root`` a git repository of its own (``git init``); False when git is missing or fails.
    Never the repository the environment names: run from a git alias in a linked work tree,
    ``git init`` followed its GIT_DIR and made the user's repository bare."""
    result = git(root, "init", "-q", own=True)
    return bool(result and result.returncode == 0)


def git_bytes(root: Path | str, *args: str, timeout: float = 30) -> bytes | None:
    """The standard output of a git command as bytes (file contents), or None if it failed."""
    try:
        result = subprocess.run(["git", "-C", str(root), *args], capture_output=True, timeout=timeout)
    except (OSError, subprocess.SubprocessError):
        return None
    return result.stdout if result.returncode == 0 else None


def toplevel(root: Path) -> Path | None:
    """The work tree's top folder holding ``root``, or None outside git."""
    result = git(root, "rev-parse", "--show-toplevel")
    if not result or result.returncode != 0 or not result.stdout.strip():
        return None
    return Path(result.stdout.strip())


def unmerged(top: Path, pathspec: str) -> dict[str, set[str]]:
    """Paths git holds as unmerged under ``pathspec``, each with its stages ("1", "2", "3")."""
    listed = git(top, "ls-files", "-u", "-z", "--", pathspec)
    found: dict[str, set[str]] = {}
    for record in listed.stdout.split("\0") if listed and listed.returncode == 0 else []:
        if "\t" in record:
            info, path = record.split("\t", 1)
            found.setdefault(path, set()).add(info.split()[-1])
    return found


def _paths_z(result: subprocess.CompletedProcess | None) -> set[str] | None:
    if result is None or result.returncode != 0:
        return None
    return {p for p in result.stdout.split("\0") if p}


def committed(root: Path, *pathspecs: str) -> set[str] | None:
    """The files under ``pathspecs`` that the current commit (HEAD) holds, as paths relative to
    ``root``; None outside git, before the first commit, or when git fails."""
    return _paths_z(git(root, "--literal-pathspecs", "ls-tree", "-r", "-z", "--name-only", "HEAD", "--", *pathspecs))


def tracked(root: Path, *pathspecs: str) -> set[str] | None:
    """The files under ``pathspecs`` that git tracks (in the index: committed, or checked out from
    a commit), relative to ``root``; None outside git or when git fails."""
    return _paths_z(git(root, "--literal-pathspecs", "ls-files", "-z", "--", *pathspecs))


def uncommitted(root: Path, *pathspecs: str) -> set[str] | None:
    """Tracked files under ``pathspecs`` whose work-tree or staged content differs from HEAD
    (relative to ``root``); None when git fails (no commit yet, not a repository)."""
    return _paths_z(
        git(root, "--literal-pathspecs", "diff", "--name-only", "-z", "--relative", "HEAD", "--", *pathspecs)
    )


def changed_since(root: Path, seconds: float, *pathspecs: str) -> set[str] | None:
    """Files under ``pathspecs`` (relative to ``root``) that a commit of the last ``seconds`` changed,
    merges included (against each parent); None when git fails."""
    import time

    since = str(int(time.time() - seconds))
    result = git(
        root,
        "--literal-pathspecs",
        "log",
        f"--since={since}",
        "-m",
        "--name-only",
        "--relative",
        "--format=",
        "-z",
        "--",
        *pathspecs,
        timeout=30,
    )
    if result is not None and result.returncode != 0 and "does not have any commits" in result.stderr:
        return set()
    return _paths_z(result)


def ignored(root: Path, path: str) -> bool | None:
    """Whether git ignores ``path`` (relative to ``root``; it need not exist); None outside git."""
    result = git(root, "check-ignore", "-q", "--no-index", "--", path)
    return None if result is None or result.returncode not in (0, 1) else result.returncode == 0


def add(top: Path, *paths: str) -> bool:
    """``git add`` the paths; whether it worked."""
    result = git(top, "add", "--", *paths)
    return result is not None and result.returncode == 0


def merge_file(ours: str, base: str, theirs: str, marker_size: str = "7") -> bool:
    """git's own three-way text merge into ``ours``: True when clean, False on a conflict
    (markers written) or when git could not run."""
    labels = ["-L", "ours", "-L", "base", "-L", "theirs"]
    try:
        result = subprocess.run(
            ["git", "merge-file", f"--marker-size={marker_size}", *labels, ours, base, theirs],
            capture_output=True,
            timeout=60,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return result.returncode == 0


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


DRIVER = "memcli"
DRIVER_NAME = "memcli: memory files merged entry by entry"


def driver_command() -> str:
    """The shell command git runs to merge a memory file (stored in the clone's .git/config).

    memcli on PATH first, else the interpreter that registered it (this clone's config is
    private to this machine), else git's own text merge, which shows a conflict rather
    than losing anything.
    """
    import shlex
    import sys

    python = shlex.quote(sys.executable)
    args = "%O %A %B %L %P"
    return (
        f"if command -v memcli >/dev/null 2>&1; then memcli merge-driver {args};"
        f" elif {python} -c 'import memcli' 2>/dev/null; then {python} -m memcli merge-driver {args};"
        " else git merge-file --marker-size=%L -L ours -L base -L theirs %A %O %B; fi"
    )


def _config_file(root: Path, own: bool = False) -> Path | None | bool:
    """The repository's config file when it is plainly ``.git/config`` above ``root``;
    True when git must be asked (a worktree or submodule); None outside git (``own``: whatever
    repository the environment names)."""
    import os

    for folder in (root, *root.parents):
        dot_git = folder / ".git"
        try:
            if dot_git.is_dir():
                return dot_git / "config"
            if dot_git.exists():
                return True
        except OSError:
            return None
    return True if os.environ.get("GIT_DIR") and not own else None


def merge_driver_registered(root: Path, own: bool = False) -> bool | None:
    """Whether this clone's config defines memcli's merge driver; None outside git."""
    where = _config_file(root, own)
    if where is None:
        return None
    if isinstance(where, Path):
        try:
            return f'[merge "{DRIVER}"]' in where.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return False
    result = git(root, "config", "--get", f"merge.{DRIVER}.driver", own=own)
    if result is None or result.returncode not in (0, 1):
        return None
    return result.returncode == 0


def register_merge_driver(root: Path, own: bool = False) -> bool:
    """Write memcli's merge driver into the repository's config (git reads drivers only from there)."""
    for key, value in (("name", DRIVER_NAME), ("driver", driver_command())):
        result = git(root, "config", f"merge.{DRIVER}.{key}", value, own=own)
        if result is None or result.returncode != 0:
            return False
    return True


def ensure_merge_driver(root: Path, own: bool = False) -> None:
    """Register the driver if this clone lacks it (a fresh clone, a teammate's); never fails.
    ``own``: in the repository that holds ``root`` only (the personal memory's)."""
    try:
        if merge_driver_registered(root, own) is False:
            register_merge_driver(root, own)
    except OSError:
        pass


def file_log(root: Path, path: Path, limit: int = 50) -> list[dict[str, str]]:
    """The commits that changed a file (renames followed), newest first; [] outside git."""
    done = git(root, "log", "--follow", f"-n{limit}", "--format=%h%x1f%aI%x1f%an%x1f%s", "--", str(path), timeout=10)
    if done is None or done.returncode != 0:
        return []
    rows = []
    for line in done.stdout.splitlines():
        parts = line.split("\x1f")
        if len(parts) == 4:
            rows.append(dict(zip(("commit", "date", "author", "subject"), parts)))
    return rows
