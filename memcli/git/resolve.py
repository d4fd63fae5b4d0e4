"""``memcli resolve``: conflicted memory files made whole after a merge that ran without
memcli's driver (a clone without memcli, a hosting service's merge, ``merge=text``)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import NoReturn

from memcli.errors import MemcliError
from memcli.git import repo
from memcli.git.merge import merge_bytes, resolve_text
from memcli.storage import vault
from memcli.storage.fsutil import atomic_write, remove
from memcli.storage.paths import CONVERSATIONS_DIR, Layout


def _memory_files(layout: Layout) -> list[Path]:
    """Vault and conversation files of the memory tree (paths inside .memory/)."""
    files: list[Path] = []
    memory = layout.memory
    if not memory.is_dir():
        return files
    for folder in sorted(memory.iterdir()):
        if folder.name.startswith((".", "_")) or not folder.is_dir() or folder.is_symlink():
            continue
        pattern = "*.jsonl" if folder.name == CONVERSATIONS_DIR else "*.md"
        files.extend(p for p in sorted(folder.glob(pattern)) if p.is_file() and not p.is_symlink())
        for sub in sorted(folder.iterdir()):  # entry files and session files, one folder down
            if sub.is_dir() and not sub.is_symlink() and not sub.name.startswith("."):
                files.extend(p for p in sorted(sub.glob(pattern)) if p.is_file() and not p.is_symlink())
    return files


def resolve_all(layout: Layout) -> list[tuple[str, str]]:
    """Resolve every conflicted memory file: (path, how) for each one written.

    A file that git holds as unmerged (a merge, rebase, cherry-pick or stash whose merge
    ran without memcli's driver) is merged three-way from the index's stages and staged;
    any other memory file with conflict markers keeps the entries of both sides.
    """
    done: list[tuple[str, str]] = []
    top = repo.toplevel(layout.root)
    if top is not None:
        memory = os.path.relpath(os.path.realpath(layout.memory), os.path.realpath(top))
        for path, stages in sorted(repo.unmerged(top, memory).items()):
            if not (path.endswith(".md") or path.endswith(".jsonl")) or "/.vault/" in path:
                continue
            versions = []
            for stage in ("1", "2", "3"):
                if stage not in stages:
                    versions.append(b"")
                    continue
                shown = repo.git_bytes(top, "show", f":{stage}:{path}")
                if shown is None:
                    raise_error(f"cannot read stage {stage} of {path} from git")
                versions.append(shown)
            target = top / path
            try:
                merged, _notes = merge_bytes(path, *versions)
            except ValueError as exc:
                raise_error(f"{path}: cannot merge it entry by entry ({exc}); resolve it by hand")
            if not merged and not {"2", "3"} <= stages and path.endswith(".md"):
                # Removed on both sides, one of which deleted the file (a settled removal's tombstone that
                # compaction deleted): the deletion stands.
                remove(target, layout.memory)
                how = "removed on both sides: deleted, and staged"
            else:
                atomic_write(target, merged, layout.memory)
                how = "merged entry by entry from git's three versions, and staged"
            if not repo.add(top, path):
                raise_error(f"{path}: merged, but `git add` failed")
            done.append((path, how))
    for file in _memory_files(layout):
        rel = str(file.relative_to(layout.root))
        if any(p == rel or str(top / p) == str(file) for p, _ in done) if top else False:
            continue
        data = file.read_bytes()  # _memory_files lists no symlinks
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        if vault.split_conflict(text) is None:
            continue
        atomic_write(file, resolve_text(str(file), data), layout.memory)
        done.append((rel, "conflict markers replaced by the entries of both sides"))
    return done


def raise_error(message: str) -> NoReturn:
    raise MemcliError(message)
