from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"  # the tests' own data: nothing outside the repository


# No test reads or writes the personal memory of whoever runs the suite: by default it is a folder
# that cannot be made (below this file); tests of personal memory give a HOME and XDG_DATA_HOME of
# their own.
NO_PERSONAL_MEMORY = str(Path(__file__).resolve() / "personal")


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMCLI_")}
    env.update({"NO_COLOR": "1", "GIT_CONFIG_NOSYSTEM": "1", "EDITOR": "false", "VISUAL": ""})
    env["MEMCLI_USER_DIR"] = NO_PERSONAL_MEMORY
    env.update(extra)
    return env


# What git and agents run, and what serves a client, keeps a process of its own in every test.
OWN_PROCESS = {"agent-hook", "hook", "merge-driver", "mcp"}


def run(
    *args: str,
    cwd: Path,
    input: str | None = None,
    env: dict[str, str] | None = None,
    check: bool = False,
    process: bool = False,
) -> subprocess.CompletedProcess:
    """Run memcli as a user or a wrapper would, with its own folder, environment and streams.

    By default in this process (``memcli.main.main(argv)``, about 50 ms less than a new Python
    each time); with ``process=True`` (or ``MEMCLI_TEST_PROCESSES=1`` for the whole suite) in a
    real process, for what only a process shows: exit on a signal, import cost, a terminal.
    """
    env = env or clean_env()
    if process or os.environ.get("MEMCLI_TEST_PROCESSES") or _command(args) in OWN_PROCESS:
        result = subprocess.run(
            [sys.executable, "-m", "memcli", *args],
            cwd=cwd,
            input=input,
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
    else:
        result = _in_process(list(args), cwd, input, env)
    if check and result.returncode != 0:
        raise AssertionError(f"memcli {' '.join(args)} failed ({result.returncode}):\n{result.stderr}")
    return result


def _command(args: tuple[str, ...]) -> str | None:
    from memcli.main import split_global

    parsed = split_global(list(args))
    return parsed[1][0] if parsed and parsed[1] else None


def _in_process(args: list[str], cwd: Path, input: str | None, env: dict[str, str]) -> subprocess.CompletedProcess:
    """``main(args)`` with ``cwd`` as the current folder, ``env`` as the whole environment, and
    standard streams of its own (stdin a real file, as a pipe would be); restored after."""
    import io
    import tempfile

    from memcli.main import main
    from memcli.storage import fsutil

    fsutil._warned.clear()  # what a process says once, each run says again
    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    saved_streams = sys.stdin, sys.stdout, sys.stderr
    out, err = io.BytesIO(), io.BytesIO()
    with tempfile.TemporaryFile() as stdin:
        stdin.write((input or "").encode("utf-8"))
        stdin.seek(0)
        sys.stdin = io.TextIOWrapper(stdin, encoding="utf-8")
        sys.stdout = io.TextIOWrapper(out, encoding="utf-8", write_through=True)
        sys.stderr = io.TextIOWrapper(err, encoding="utf-8", write_through=True)
        os.environ.clear()
        os.environ.update(env)
        try:
            os.chdir(cwd)
            try:
                code = main(args)
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            for stream in (sys.stdin, sys.stdout, sys.stderr):
                stream.detach()  # closing a wrapper would close its buffer too
            sys.stdin, sys.stdout, sys.stderr = saved_streams
            os.chdir(saved_cwd)
            os.environ.clear()
            os.environ.update(saved_env)

    def text(data: bytes) -> str:  # as subprocess.run(text=True) reads it: universal newlines
        return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", newline=None).read()

    return subprocess.CompletedProcess(["memcli", *args], code, text(out.getvalue()), text(err.getvalue()))


def imported_modules(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> set[str]:
    """The modules a real `memcli ARGS` process imports (``python -X importtime``)."""
    import re

    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "memcli", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env or clean_env(),
    )
    return set(re.findall(r"\|\s+(\S+)\s*$", result.stderr, re.M))


def git(*args: str, cwd: Path, check: bool = True) -> subprocess.CompletedProcess:
    env = clean_env(
        GIT_AUTHOR_NAME="t",
        GIT_AUTHOR_EMAIL="t@example.com",
        GIT_COMMITTER_NAME="t",
        GIT_COMMITTER_EMAIL="t@example.com",
    )
    result = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=120)
    if check and result.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed:\n{result.stdout}\n{result.stderr}")
    return result


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git repository with memcli initialised (no hooks) and one commit."""
    path = tmp_path / "repo"
    path.mkdir()
    git("init", "-q", "-b", "main", cwd=path)
    run("init", "--no-hooks", cwd=path, check=True)
    git("add", "-A", cwd=path)
    git("commit", "-qm", "init", cwd=path)
    return path


@pytest.fixture
def mem(tmp_path: Path) -> Path:
    """A folder with an initialised .memory/ and no git."""
    path = tmp_path / "proj"
    path.mkdir()
    run("init", "--no-hooks", cwd=path, check=True)
    return path


def tree(path: Path) -> dict[str, bytes]:
    """Every file below ``path`` with its content (for 'nothing changed' checks)."""
    return {
        str(p.relative_to(path)): p.read_bytes()
        for p in sorted(path.rglob("*"))
        if p.is_file() and ".git/" not in str(p)
    }


@contextlib.contextmanager
def lock_held(memory_root: Path):
    """Another process holds memcli's memory lock for the duration."""
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl,sys,time; f=open(sys.argv[1],'a'); fcntl.flock(f,fcntl.LOCK_EX); print('locked',flush=True); time.sleep(60)",
            str(memory_root / ".memory" / ".vault" / "lock"),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "locked"
        yield
    finally:
        holder.kill()
        holder.wait()


def run_on_terminal(
    args: list[str], cwd: Path, env: dict, stream: str = "stdout", columns: int = 0
) -> tuple[subprocess.CompletedProcess, str]:
    """Run memcli with ``stream`` (stdout or stderr) on a pseudo-terminal (``columns`` wide, if
    given); return the result and what it showed."""
    master, slave = os.openpty()
    if columns:
        import fcntl
        import struct
        import termios

        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    pipes = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE}
    pipes[stream] = slave
    try:
        result = subprocess.run(
            [sys.executable, "-m", "memcli", *args], cwd=cwd, stdin=subprocess.DEVNULL, env=env, timeout=120, **pipes
        )
    finally:
        os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # the terminal closed
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    return result, b"".join(chunks).decode("utf-8", "replace")


def entry_files(root: Path, agent: str, category: str) -> list[Path]:
    """The entry files of a category (one file per memory), by name."""
    folder = root / ".memory" / agent / category
    return sorted(p for p in folder.glob("*.md")) if folder.is_dir() else []


def category_text(root: Path, agent: str, category: str) -> str:
    """Everything a category's files hold: its AITEAM-X category file, if any, then each entry file."""
    legacy = root / ".memory" / agent / f"{category}.md"
    parts = [legacy.read_text()] if legacy.is_file() else []
    parts += [p.read_text() for p in entry_files(root, agent, category)]
    return "".join(parts)


def category_exists(root: Path, agent: str, category: str) -> bool:
    return (root / ".memory" / agent / f"{category}.md").exists() or bool(entry_files(root, agent, category))


def conversation_files(root: Path, agent: str) -> list[Path]:
    """An agent's conversation files: the one-file conversation, if any, then each session's file."""
    base = root / ".memory" / "conversations"
    legacy = [base / f"{agent}.jsonl"] if (base / f"{agent}.jsonl").is_file() else []
    folder = base / agent
    return legacy + (sorted(folder.glob("*.jsonl")) if folder.is_dir() else [])


def conversation_text(root: Path, agent: str) -> str:
    return "".join(p.read_text() for p in conversation_files(root, agent))
