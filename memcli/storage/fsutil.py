"""The one guarded way to touch files: atomic writes, removals, renames, the lock, safe reads.

Every write, rename and delete names the folder it must stay in (``within``: the
``.memory/`` folder for memory and cache, the repository root or the hooks folder for
the files ``init`` owns) and is refused when its target, after resolving symlinks,
lies outside it -- or when the target itself, or ``within``, is a symlink.  Reads of
memory files go through ``read_inside``, which refuses what a symlink leads outside.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import time
from pathlib import Path

from memcli.errors import LockTimeout, MemcliError

TYPE_CHECKING = False  # names for annotations only: the fast path never imports typing
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator


class OutsideMemory(MemcliError):
    """A path that leads outside the folder memcli may touch (a symlink, most often)."""


def _real_within(within: Path) -> str:
    if os.path.islink(within):
        raise OutsideMemory(f"refusing to use {within}: it is a symlink (memcli keeps memory in a real folder)")
    return os.path.realpath(within)


def is_inside(path: Path, within: Path) -> bool:
    """Whether ``path`` resolves (symlinks followed) to ``within`` or below it."""
    base = os.path.realpath(within)
    real = os.path.realpath(path)
    return real == base or real.startswith(base.rstrip(os.sep) + os.sep)


SECTION_SUFFIXES = (".md", ".mdc")  # the files a marked section may be written into: Markdown agents read


def not_markdown(path: Path) -> str | None:
    """Where ``path`` leads, when that file is not one a marked section may go in (its name does
    not end in ``SECTION_SUFFIXES``: ``AGENTS.md -> .envrc``, a shell script direnv runs, where a
    memory's backticks would run); None when it is.  Only a symlink can lead a target's name there:
    every name memcli writes a section into is a Markdown file's."""
    real = os.path.realpath(path)
    return None if real.lower().endswith(SECTION_SUFFIXES) else real


def project_file(root: Path, relative: str, markdown: bool = False) -> Path:
    """A file of the user's project that ``setup`` or ``export`` writes: ``relative`` under ``root``,
    or where a symlink there leads if that is inside ``root`` too (``CLAUDE.md -> AGENTS.md``); never
    anything outside, nor into a git directory or a memory folder (``_kept_folder``).  ``markdown``:
    a file memcli writes Markdown into (a section of AGENTS.md, a Cursor rule), which a symlink must
    not lead to a file of another kind (``AGENTS.md -> .envrc``: direnv runs it as shell)."""
    path = root / relative
    if not is_inside(path.parent, root) or (os.path.lexists(path) and not is_inside(path, root)):
        raise MemcliError(
            f"refusing to write {relative}: it resolves outside {root} (through a symlink); nothing changed"
        )
    other = not_markdown(path) if markdown else None
    if other is not None:
        shown = os.path.relpath(other, os.path.realpath(root))
        raise MemcliError(
            f"refusing to write {relative}: it is a symlink to {shown}, not a Markdown file (.md, .mdc);"
            " nothing changed"
        )
    if path.is_symlink():
        path = Path(os.path.realpath(path))
    kept = _kept_folder(path, root)
    if kept:
        raise MemcliError(f"refusing to write {relative}: it resolves into {kept} (through a symlink); nothing changed")
    if path.exists() and not path.is_file():
        raise MemcliError(f"{relative} is not a regular file; nothing changed")
    return path


def _kept_folder(path: Path, root: Path) -> str | None:
    """The folder below ``root`` that ``path`` resolves into and memcli must never write a project's
    file in: a git directory (``.git``, a nested repository's, a bare one's: its config and hooks
    are code git runs) or a memory folder (``.memory``); None when there is none."""
    base = os.path.realpath(root)
    real = os.path.realpath(path)
    folder = os.path.dirname(real)
    while folder.startswith(base + os.sep):
        name = os.path.basename(folder)
        if name in (".git", ".memory") or (
            os.path.isfile(os.path.join(folder, "HEAD")) and os.path.isdir(os.path.join(folder, "objects"))
        ):
            return os.path.relpath(folder, base)
        folder = os.path.dirname(folder)
    return None


def guard(path: Path, within: Path, links_ok: bool = False) -> Path:
    """``path``, if writing, renaming or deleting it cannot reach outside ``within``; else OutsideMemory.

    The folder it is in must resolve inside ``within``; ``path`` itself must not be a symlink
    (unless ``links_ok``: removing or moving a link touches the link, never its target).
    """
    base = _real_within(within)
    parent = os.path.realpath(path.parent)
    if parent != base and not parent.startswith(base.rstrip(os.sep) + os.sep):
        raise OutsideMemory(f"refusing to touch {path}: it resolves outside {within} (through a symlink)")
    if os.path.islink(path) and not links_ok:
        where = "inside" if is_inside(path, within) else "outside"
        raise OutsideMemory(f"refusing to touch {path}: it is a symlink (leading {where} {within})")
    return path


class CannotWrite(OSError):
    """A write the system refused (no permission, an immutable folder, a read-only or full disk):
    ``main`` says ``message`` in one line, naming the path, not as an internal error.  An OSError
    (with its errno) to all other code, as before: a best-effort cache still shrugs it off, and a
    loop that skips what a MemcliError refuses (import's units) does not take it for a refusal."""

    def __init__(self, exc: OSError, where: Path | str):
        super().__init__(exc.errno, exc.strerror, exc.filename)
        self.message = f"cannot write {where}: {exc.strerror or exc}"


_REFUSED = frozenset({errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOSPC, errno.EDQUOT})


@contextlib.contextmanager
def refused_as_one_line(where: Path | str) -> Iterator[None]:
    """Turn a write the system refuses (``_REFUSED``) into ``CannotWrite`` naming ``where``."""
    try:
        yield
    except CannotWrite:
        raise
    except OSError as exc:
        if exc.errno in _REFUSED:
            raise CannotWrite(exc, where) from None
        raise


class NotAFile(MemcliError):
    """A folder (or something else) where memcli expects a file."""


def read_inside(path: Path, within: Path) -> bytes | None:
    """The bytes of ``path`` (None if it does not exist).  OutsideMemory if it, or a folder on the
    way to it, resolves outside ``within`` (a symlink); NotAFile if it is a folder."""
    if not os.path.lexists(path):
        return None
    if os.path.islink(within) or not is_inside(path, within):
        raise OutsideMemory(f"skipped {path}: a symlink leads it outside {within}")
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except (FileNotFoundError, NotADirectoryError):
        return None
    except IsADirectoryError:
        raise NotAFile(f"{path} is a folder, not a file") from None


def decode_text(data: bytes, what: str, error: type[Exception] = MemcliError) -> str:
    """Bytes as memcli's text: UTF-8 without NUL bytes, else ``error`` saying why (in one line)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"{what} is not UTF-8 text (byte {exc.start})") from None
    if "\x00" in text:
        raise error(f"{what} holds NUL bytes (binary data?)")
    return text


_warned: set[str] = set()


def warn(message: str) -> None:
    """A warning on stderr (``output.warn``), once per process for the same text."""
    from memcli import output

    if message not in _warned:
        _warned.add(message)
        output.warn(message)


CACHE_DIR = ".vault"  # memcli's own cache folder inside .memory/: disposable


def _heal_cache_link(path: Path, within: Path) -> None:
    """``.memory/.vault`` and the folders in it must be real folders: a symlink there (the cache
    is untracked, so a commit can carry one) is replaced by a folder -- the link is removed,
    never what it points to."""
    cache = within / CACHE_DIR
    if path != cache and cache not in path.parents:
        return
    step = cache
    for part in (path.relative_to(cache).parts if path != cache else ()) + ("",):
        if os.path.islink(step):
            target = os.readlink(step)
            os.unlink(step)
            warn(f"{step} was a symlink (to {target}); replaced it by a folder: memcli keeps its cache inside .memory")
        if not part:
            break
        step = step / part


def make_dirs(path: Path, within: Path) -> None:
    """Create ``path`` and its missing parents, none of them through a symlink leading outside ``within``."""
    _heal_cache_link(path, within)
    if os.path.realpath(path) != _real_within(within):
        guard(path, within)
    try:
        with refused_as_one_line(path):
            path.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise MemcliError(f"{path} (or a folder above it) exists and is not a folder; move it away") from None
    if not is_inside(path, within) or os.path.islink(path):
        raise OutsideMemory(f"refusing to use {path}: it resolves outside {within}")


def remove(path: Path, within: Path) -> None:
    """Delete a file or a symlink (never what a symlink points to); a missing one is fine."""
    guard(path, within, links_ok=True)
    with contextlib.suppress(FileNotFoundError), refused_as_one_line(path):
        os.unlink(path)


def remove_tree(path: Path, within: Path) -> None:
    """Delete a folder memcli made (its cache); never through a symlink."""
    import shutil

    guard(path, within)
    if os.path.lexists(path):
        shutil.rmtree(path, ignore_errors=True)


def rename(source: Path, target: Path, within: Path) -> None:
    guard(source, within, links_ok=True)
    guard(target, within)
    with refused_as_one_line(target):
        os.replace(source, target)
    sync_dir(target.parent)


def sync_dir(folder: Path) -> None:
    """fsync a folder, so that a rename in it survives a power cut."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def stage_write(path: Path, data: str | bytes, within: Path) -> str:
    """Write ``data`` to a temporary file beside ``path`` (synced, with ``path``'s mode) and return
    its name; ``os.replace`` puts it in place.  Nothing is left behind if it fails."""
    import tempfile

    if isinstance(data, str):
        data = data.encode("utf-8")
    make_dirs(path.parent, within)
    guard(path, within)
    # ".<name>.<pid>-<random>.tmp": hidden from every reader, ignored by the .gitignore line `init`
    # writes, and, once its process is gone (kill -9), removed by the next write (clean_stale_temp).
    with refused_as_one_line(path):
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}-", suffix=TEMP_SUFFIX, dir=path.parent)
    try:
        with refused_as_one_line(path), os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if path.exists() and not path.is_symlink():
            os.chmod(tmp, path.stat().st_mode & 0o777)
        else:
            os.chmod(tmp, 0o644)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return tmp


TEMP_SUFFIX = ".tmp"
STALE_TEMP_SECONDS = 600.0  # a temporary file naming no process (an older memcli's) is stale after this


def _temp_owner(name: str) -> int | None:
    """The process id in a temporary file's name (``.<name>.<pid>-<random>.tmp``), if it names one."""
    stem = name[: -len(TEMP_SUFFIX)]
    last = stem.rsplit(".", 1)[-1].split("-", 1)[0]
    return int(last) if last.isascii() and last.isdigit() and len(last) < 10 else None


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # another user's process, or we may not ask: alive, to be safe
    return True


def is_temp_name(name: str) -> bool:
    return name.startswith(".") and name.endswith(TEMP_SUFFIX)


def clean_stale_temp(
    folders: Iterable[Path], within: Path, dry_run: bool = False, listed: dict[Path, list[str]] | None = None
) -> int:
    """Remove the temporary files that writes cut short (kill -9, a power cut) left in ``folders``
    (each inside ``within``; missing folders are fine): hidden ``*.tmp`` files whose writing
    process is gone, and any older than STALE_TEMP_SECONDS (a name with no process id, an older
    memcli's; or one whose id a later process happens to have).  A temporary file lives for
    milliseconds, between its write and its rename; one whose process is gone will never be
    renamed.  ``listed``: the temporary names a caller already found in a folder (no listing
    again: a folder of 100,000 entries takes 15 ms or more to list).  Returns how many were
    (``dry_run``: would be) removed."""
    removed = 0
    now = time.time()
    for folder in dict.fromkeys(folders):
        if listed is not None and folder in listed:
            names = listed[folder]
        else:
            try:
                names = [name for name in os.listdir(folder) if is_temp_name(name)]
            except OSError:
                continue
        for name in names:
            path = folder / name
            owner = _temp_owner(name)
            try:
                old = now - os.lstat(path).st_mtime >= STALE_TEMP_SECONDS
                if not old and (owner is None or _alive(owner)):
                    continue
                if not dry_run:
                    remove(path, within)
                removed += 1
            except (OSError, MemcliError):
                continue  # gone meanwhile, or not ours to touch (a link out): left alone
    return removed


def atomic_write(path: Path, data: str | bytes, within: Path) -> None:
    """Write a file so that a crash leaves either the old or the new content; only inside ``within``."""
    tmp = stage_write(path, data, within)
    try:
        with refused_as_one_line(path):
            os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    sync_dir(path.parent)


def write_hint(path: Path, data: str, within: Path) -> None:
    """Replace a cache file that only holds a hint (``usage.json``): atomically, but without fsync
    and without importing ``tempfile`` (about 4 ms), since it runs on every prompt and losing the
    last write to a power cut costs nothing.  Only inside ``within``."""
    guard(path, within)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    guard(tmp, within)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o644)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data.encode("utf-8"))
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def read_text(path: Path, within: Path | None = None) -> str | None:
    """The file's text, or None if it does not exist (checked to lie inside ``within`` when given)."""
    if within is not None:
        data = read_inside(path, within)
        return None if data is None else data.decode("utf-8")
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None


_held: dict[tuple[str, int], tuple[int, int]] = {}  # (lock path, thread) -> (fd, depth): re-entrant per thread


@contextlib.contextmanager
def file_lock(path: Path, timeout: float, within: Path | None = None) -> Iterator[None]:
    """An exclusive lock over the memory tree, shared by every memcli process.

    Re-entrant within one thread; two threads of one process (the MCP server's tool calls) take
    it in turn, as two processes do (each opens the file: flock locks belong to the opening).
    Raises LockTimeout after ``timeout`` seconds.  The lock file lives in ``within`` (default:
    the folder above its own, i.e. ``.memory/``).
    """
    import threading

    key = (str(path), threading.get_ident())
    if key in _held:
        fd, depth = _held[key]
        _held[key] = (fd, depth + 1)
        try:
            yield
        finally:
            fd, depth = _held[key]
            _held[key] = (fd, depth - 1)
        return
    within = within or path.parent.parent
    make_dirs(path.parent, within)
    guard(path, within)
    with refused_as_one_line(path):
        fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
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
