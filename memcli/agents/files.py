"""Changing the files of a user's project safely, for ``memcli setup``: read them strictly
(a file memcli cannot parse stops everything), work out each new content, then write all or
none of them (``apply``), keeping a backup of what the user had.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from memcli.errors import MemcliError
from memcli.storage.paths import Layout
from memcli.storage.sections import read_text, sections, with_section  # noqa: F401 (setup's modules import them from here)

BACKUPS = "setup-backup"  # in .memory/.vault: each file as it was before setup first changed it


@dataclass
class Change:
    """One file's new content (None: delete it); ``note`` says what changed, for the user.
    ``empty``: a removal left the file with nothing of the user's in it; it goes if setup created
    it (``.memory/.vault/setup-created.json`` says which), else ``content`` stays."""

    path: Path
    content: str | None
    note: str
    empty: bool = False


def target(root: Path, relative: str, markdown: bool = False) -> Path:
    """The file to change (``fsutil.project_file``: inside ``root``, never in ``.git`` or
    ``.memory``; ``markdown``: a file memcli writes Markdown into)."""
    from memcli.storage.fsutil import project_file

    return project_file(root, relative, markdown)


def _no_constant(name: str):
    raise ValueError(f"{name} is not JSON that every reader accepts")


def _finite(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"the number {text} is too large to write back")
    return value


def read_json(path: Path) -> tuple[dict | None, str | None]:
    """The JSON object in ``path`` (None if there is none) and the file's text."""
    text = read_text(path)
    if text is None or not text.strip():
        return None, text
    try:
        data = json.loads(text.lstrip("\ufeff"), parse_constant=_no_constant, parse_float=_finite)
    except ValueError as exc:
        raise MemcliError(f"{path} is not valid JSON ({exc}); fix it first, nothing changed") from None
    except RecursionError:
        raise MemcliError(f"{path} is nested too deeply to be a settings file; nothing changed") from None
    if not isinstance(data, dict):
        raise MemcliError(f"{path} does not hold a JSON object; nothing changed")
    try:
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise MemcliError(f"{path} holds half of a UTF-16 surrogate pair (\\ud8xx); nothing changed") from None
    return data, text


def json_text(data: dict, like: str | None) -> str:
    """``data`` as JSON, indented as ``like`` (the file's text before) was, with its BOM and final newline."""
    indent: str | int = 2
    if like:
        found = re.search(r"\n([ \t]+)\S", like)
        if found:
            indent = found.group(1)
    text = json.dumps(data, indent=indent, ensure_ascii=False)
    if like is None or like.endswith("\n"):
        text += "\n"
    return ("\ufeff" + text) if like and like.startswith("\ufeff") else text


def change_json(
    path: Path, before: dict | None, after: dict, label: str, like: str | None, empty: dict | None = None
) -> Change | None:
    """The change from ``before`` to ``after``; None when there is none.  ``after`` equal to
    ``empty`` (or {}) holds nothing of the user's: see ``Change.empty``."""
    if before is not None and before == after:
        return None
    if before is None and not after:
        return None
    if after == (empty or {}) and before is not None:
        return Change(path, json_text(after, like), f"removed memcli from {label}", empty=True)
    if before is None:
        return Change(path, json_text(after, like), f"created {label}")
    return Change(path, json_text(after, like), f"updated {label}")


def list_of(container: dict, key: str, path: Path) -> list:
    value = container.get(key, [])
    if not isinstance(value, list):
        raise MemcliError(f"{path}: {key!r} is not a list; fix it first, nothing changed")
    return value


def object_of(container: dict, key: str, path: Path) -> dict:
    value = container.get(key, {})
    if not isinstance(value, dict):
        raise MemcliError(f"{path}: {key!r} is not an object; fix it first, nothing changed")
    return value


def same_after_reorder(before: dict, after: dict) -> bool:
    """Whether ``after`` only moved memcli's own entries to the end of their lists."""
    return _canonical(before) == _canonical(after)


def _canonical(value):
    if isinstance(value, dict):
        return {k: _canonical(v) for k, v in value.items()}
    if isinstance(value, list):
        items = [_canonical(v) for v in value]
        return sorted(items, key=lambda v: json.dumps(v, sort_keys=True))
    return value


def text_change(path: Path, current: str | None, wanted: str | None, label: str, what: str) -> Change:
    if wanted is None:  # nothing but memcli's part was in it
        return Change(
            path,
            current if current is not None and not current.strip() else "",
            f"removed {what} from {label}",
            empty=True,
        )
    if current is None:
        return Change(path, wanted, f"created {label}")
    return Change(path, wanted, f"{'removed' if len(wanted) < len(current) else 'updated'} {what} in {label}")


def _same(path: Path, a: str, b: str) -> bool:
    """Whether two versions of a file say the same (JSON: the same data; text: the same lines)."""
    if path.suffix == ".json":
        try:
            return json.loads(a.lstrip("\ufeff") or "{}") == json.loads(b.lstrip("\ufeff") or "{}")
        except ValueError:
            return False
    return a.replace("\r\n", "\n").strip() == b.replace("\r\n", "\n").strip()


def apply(layout: Layout, changes: list[Change], removing: bool = False) -> None:
    """Write every change, or none: each new content goes to a temporary file beside its target
    first; only when all of them are written are they renamed into place.

    The first change setup makes to a file of the user's keeps the file as it was in
    ``.memory/.vault/setup-backup/``.  A removal that leaves the file saying what it said then puts
    those very bytes back (formatting, escapes, line ends and all); one that leaves nothing in a
    file without a backup deletes it (setup created it, here or in another clone).
    """
    import contextlib

    from memcli.storage.fsutil import atomic_write, read_inside, remove, stage_write, sync_dir

    root = layout.root
    backups = layout.state / BACKUPS
    made: list[Path] = []  # folders made for this run: taken out again if it fails
    staged: list[tuple[str, Path]] = []
    deletions: list[Path] = []
    keep: dict[Path, bytes] = {}  # backups to write (first change to a file of the user's)
    restored: list[Path] = []  # backups used up
    try:
        for change in changes:
            relative = change.path.relative_to(root) if change.path.is_relative_to(root) else None
            backup = backups / relative if relative is not None else None
            saved = read_inside(backup, layout.memory) if backup is not None else None
            content = change.content
            if (
                removing
                and saved is not None
                and backup is not None
                and content is not None
                and _same(change.path, content, saved.decode("utf-8", "replace"))
            ):
                content = saved.decode("utf-8")  # what the user had, byte for byte
                restored.append(backup)
            elif content is None or (change.empty and saved is None):
                deletions.append(change.path)  # setup's own file, or one setup created
                continue
            elif not removing and saved is None and change.path.exists() and backup is not None:
                keep[backup] = change.path.read_bytes()
            parents = [change.path.parent, *change.path.parent.parents]  # the deepest first
            made.extend(d for d in parents if d.is_relative_to(root) and d != root and not d.exists())
            staged.append((stage_write(change.path, content, root), change.path))
    except (OSError, MemcliError, UnicodeError) as exc:
        for tmp, _ in staged:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        for folder in made:
            with contextlib.suppress(OSError):
                folder.rmdir()
        if isinstance(exc, MemcliError):
            raise MemcliError(f"{exc.message}; nothing changed") from None
        where = getattr(exc, "filename", None) or "the files"
        raise MemcliError(f"cannot write {where}: {getattr(exc, 'strerror', None) or exc}; nothing changed") from None
    for backup, data in keep.items():
        with contextlib.suppress(OSError, MemcliError):
            atomic_write(backup, data, layout.memory)
    for tmp, target in staged:
        os.replace(tmp, target)
        sync_dir(target.parent)
    for path in deletions:
        remove(path, root)
        _remove_empty_dirs(path.parent, root)
    for backup in restored + [backups / p.relative_to(root) for p in deletions if p.is_relative_to(root)]:
        with contextlib.suppress(OSError, MemcliError):
            remove(backup, layout.memory)


def _remove_empty_dirs(folder: Path, root: Path) -> None:
    """Folders a removal left empty (``.claude/``, ``.cursor/rules/``) go too."""
    while folder != root and folder.is_relative_to(root) and folder.name and not folder.is_symlink():
        try:
            folder.rmdir()
        except OSError:
            return
        folder = folder.parent
