"""Atomic writes and the memory lock."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import time
from pathlib import Path

from memcli.errors import LockTimeout


def atomic_write(path: Path, data: str | bytes) -> None:
    """Write a file so that a crash leaves either the old or the new content."""
    import tempfile

    if isinstance(data, str):
        data = data.encode("utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if path.exists() and not path.is_symlink():
            os.chmod(tmp, path.stat().st_mode & 0o777)
        else:
            os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def read_text(path: Path) -> str | None:
    """The file's text, or None if it does not exist."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None


_held: dict[str, tuple[int, int]] = {}  # lock path -> (fd, depth): re-entrant within a process


@contextlib.contextmanager
def file_lock(path: Path, timeout: float) -> Iterator[None]:
    """An exclusive lock over the memory tree, shared by every memcli process.

    Re-entrant within one process.  Raises LockTimeout after ``timeout`` seconds.
    """
    key = str(path)
    if key in _held:
        fd, depth = _held[key]
        _held[key] = (fd, depth + 1)
        try:
            yield
        finally:
            fd, depth = _held[key]
            _held[key] = (fd, depth - 1)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    deadline = time.monotonic() + timeout
    try:
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as exc:
                if exc.errno not in (errno.EAGAIN, errno.EACCES):
                    raise
                if time.monotonic() >= deadline:
                    raise LockTimeout(
                        f"another memcli process holds the memory lock ({path}); gave up after {timeout:g}s"
                    ) from None
                time.sleep(0.01)
        _held[key] = (fd, 1)
        try:
            yield
        finally:
            del _held[key]
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
