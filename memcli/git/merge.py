"""Three-way merges of memory files, entry by entry: memcli's git merge driver.

git calls ``memcli merge-driver %O %A %B %L %P`` (registered by ``memcli init`` and by
any memcli write in a clone that lacks it) for every vault file that both sides of a
merge, rebase, cherry-pick, revert, ``stash pop`` or ``pull`` changed.  Unlike
``merge=union``, which works on lines and so can pair one side's new body with the
other side's removed marker, the driver compares whole entries by id:

* an entry added on either side is kept (both, if both added different ones);
* an entry removed on one side and unchanged on the other is removed;
* an entry edited on one side and unchanged (or removed) on the other keeps the edit -- an
  entry file that a removal emptied (``rm`` leaves a tracked file empty, so that git calls this
  driver instead of stopping at a modify/delete conflict) is a version with no entries;
* an entry whose text changed on one side and whose tags changed on the other (an archive
  beside an edit) keeps both changes; tags changed on both sides merge as sets (what each
  side added is added, what each side took away is gone);
* an entry whose text was edited differently on both sides is kept twice: ours under its
  id, theirs under a new id with the tag ``merge-conflict`` -- and the driver says so on stderr;
* the result is written in the canonical layout, newest first.

Conversations (JSONL) merge the same way by message id; lines recording trimmed
messages are kept from every side.  Anything the driver cannot read (binary data, a
file that is not UTF-8) falls back to git's own text merge, which shows a conflict:
never a silent loss.
"""

from __future__ import annotations

import json
import sys
from memcli.storage import vault
from memcli.storage.vault import Entry

CONFLICT_TAG = "merge-conflict"


# ---------------------------------------------------------------- vault files
def _keyed(entries: list[Entry], multi: set[int]) -> dict[tuple, Entry]:
    """Entries by key: the id, or (id, content) for an id that some version holds twice."""
    out: dict[tuple, Entry] = {}
    for e in entries:
        key = (e.id, e.content()) if e.id in multi else (e.id,)
        out.setdefault(key, e)  # an exact copy within one version counts once
    return out


def _multi_ids(*versions: list[Entry]) -> set[int]:
    multi: set[int] = set()
    for entries in versions:
        seen: set[int] = set()
        for e in entries:
            if e.id in seen:
                multi.add(e.id)
            seen.add(e.id)
    return multi


def _merge_fields(base: Entry, ours: Entry, theirs: Entry) -> Entry | None:
    """One entry from two sides that changed different parts of it: the text (body and date) from
    the side that changed it, the tags merged three-way as sets.  None when both changed the text."""
    text = [e for e in (ours, theirs) if (e.body, e.header_date) != (base.body, base.header_date)]
    if len(text) == 2 and (ours.body, ours.header_date) != (theirs.body, theirs.header_date):
        return None
    source = text[0] if text else ours
    removed = {t.lower() for e in (ours, theirs) for t in base.tags if t.lower() not in {x.lower() for x in e.tags}}
    tags = [t for t in vault.merge_tags(ours.tags, theirs.tags) if t.lower() not in removed]
    merged = Entry(source.id, source.date, tags, source.body, source.marked)
    return merged


def merge_entries(base: list[Entry], ours: list[Entry], theirs: list[Entry]) -> tuple[list[Entry], list[str]]:
    """The three-way merge of three versions of a vault file, and notes on what needed a choice."""
    multi = _multi_ids(base, ours, theirs)
    b, o, t = _keyed(base, multi), _keyed(ours, multi), _keyed(theirs, multi)
    all_ids = [e.id for version in (base, ours, theirs) for e in version]
    next_id = max(all_ids, default=0) + 1
    result: list[Entry] = []
    notes: list[str] = []

    def copy_of(e: Entry) -> Entry:
        nonlocal next_id
        copy = Entry(next_id, e.date or e.header_date or None, vault.merge_tags(e.tags, [CONFLICT_TAG]), e.body)
        next_id += 1
        return copy

    for key in dict.fromkeys([*o, *t, *b]):
        base_e, ours_e, theirs_e = b.get(key), o.get(key), t.get(key)
        if ours_e is None and theirs_e is None:
            continue  # removed on both sides, or on one side of an entry only the base had
        if base_e is None:
            if ours_e is None or theirs_e is None or ours_e.content() == theirs_e.content():
                added = ours_e or theirs_e
                assert added is not None  # not both: that case went on above
                result.append(added)
            else:
                result.extend((ours_e, copy_of(theirs_e)))
                notes.append(f"both sides added a different entry {key[0]}: kept both, theirs as {result[-1].id}")
            continue
        if ours_e is None or theirs_e is None:
            kept = ours_e or theirs_e
            assert kept is not None
            if kept.content() != base_e.content():
                result.append(kept)
                notes.append(f"entry {key[0]} was removed on one side and edited on the other: kept the edit")
            continue
        if ours_e.content() == base_e.content():
            result.append(theirs_e)
        elif theirs_e.content() == base_e.content() or ours_e.content() == theirs_e.content():
            result.append(ours_e)
        elif (fields := _merge_fields(base_e, ours_e, theirs_e)) is not None:
            result.append(fields)
        else:
            result.extend((ours_e, copy_of(theirs_e)))
            notes.append(
                f"entry {key[0]} was edited on both sides: kept both, theirs as {result[-1].id}"
                f" (tagged #{CONFLICT_TAG})"
            )
    # Twins left by an earlier copy or merge get ids of their own; the newest-first layout.
    seen: set[int] = set()
    for e in result:
        if e.id in seen:
            e.id, e.marked = next_id, True
            next_id += 1
        seen.add(e.id)
    result.sort(key=vault.newest_first, reverse=True)
    return result, notes


def merge_vault_text(base: str, ours: str, theirs: str) -> tuple[str, list[str]]:
    merged, notes = merge_entries(vault.parse(base), vault.parse(ours), vault.parse(theirs))
    return vault.serialize(merged), notes


# ---------------------------------------------------------------- conversations
def _lines(data: bytes) -> tuple[dict[str, bytes], set[str], list[bytes]]:
    """Message lines by id, trimmed ids, and lines that are not messages (kept as they are)."""
    messages: dict[str, bytes] = {}
    trimmed: set[str] = set()
    other: list[bytes] = []
    for line in data.split(b"\n"):
        if not line.strip():
            continue
        try:
            m = json.loads(line)
        except ValueError:
            m = None
        if not isinstance(m, dict) or not isinstance(m.get("id"), str):
            other.append(line)
        elif m.get("trimmed") is True:
            trimmed.add(m["id"])
        else:
            messages.setdefault(m["id"], line)
    return messages, trimmed, other


def _ts(line: bytes) -> float:
    try:
        ts = json.loads(line).get("ts")
        return float(ts) if isinstance(ts, (int, float)) and ts == ts else 0.0
    except (ValueError, AttributeError, OverflowError):
        return 0.0


def merge_conversation_bytes(base: bytes, ours: bytes, theirs: bytes) -> bytes:
    """A three-way merge of a conversation file by message id; trimmed ids from every side stay trimmed."""
    from memcli.storage.conversations import line_bytes

    (bm, bt, bo), (om, ot, oo), (tm, tt, to) = _lines(base), _lines(ours), _lines(theirs)
    trimmed = bt | ot | tt
    kept: dict[str, bytes] = {}
    for mid in dict.fromkeys([*om, *tm]):
        if mid in trimmed:
            continue
        if mid in bm and (mid not in om or mid not in tm):
            continue  # removed on one side (compaction), unchanged on the other
        kept[mid] = om.get(mid) or tm[mid]
    others = [line for line in dict.fromkeys([*oo, *to]) if line not in bo or (line in oo and line in to)]
    order = sorted(kept.values(), key=_ts)  # stable: ours' order, then theirs'
    stubs = [line_bytes({"id": i, "trimmed": True}) for i in sorted(trimmed)]
    lines = [*stubs, *order, *others]
    return b"".join(line + b"\n" for line in lines)


# ---------------------------------------------------------------- the driver
def is_conversation(path: str) -> bool:
    return path.endswith(".jsonl")


def is_vault_file(path: str) -> bool:
    """Whether ``path`` (as git names it) is a memory file of a known category: an entry file
    ``.memory/<agent>/<category>/<name>.md`` or a category file ``.memory/<agent>/<category>.md``.
    Other Markdown that the attributes match keeps git's text merge."""
    from pathlib import PurePath

    from memcli.config import DEFAULT_CATEGORIES

    parts = PurePath(path).parts
    if not path.endswith(".md") or len(parts) < 3:
        return False
    if parts[-3] == ".memory":
        agent, category, memory = parts[-2], parts[-1][: -len(".md")], parts[:-2]
    elif len(parts) >= 4 and parts[-4] == ".memory":
        agent, category, memory = parts[-3], parts[-2], parts[:-3]
    else:
        return False
    from memcli.storage.paths import may_be_agent

    if not may_be_agent(agent):
        return False
    if category in DEFAULT_CATEGORIES:
        return True
    try:  # categories that the tree's config.toml adds
        from memcli.config import load_config

        from pathlib import Path

        return category in load_config(Path(*memory)).vault_categories
    except Exception:
        return False


def merge_bytes(path: str, base: bytes, ours: bytes, theirs: bytes) -> tuple[bytes, list[str]]:
    """Merge three versions of the memory file at ``path``.  Raises ValueError on unreadable input."""
    if is_conversation(path):
        return merge_conversation_bytes(base, ours, theirs), []
    from memcli.storage.fsutil import decode_text

    texts = [
        decode_text(data, version, ValueError)
        for data, version in zip((base, ours, theirs), ("base", "ours", "theirs"))
    ]
    merged, notes = merge_vault_text(*texts)
    return merged.encode("utf-8"), notes


def run_driver(base: str, ours: str, theirs: str, marker_size: str | None = None, path: str | None = None) -> int:
    """``memcli merge-driver BASE OURS THEIRS [MARKER_SIZE] [PATH]``: what git runs (``memcli.main``
    reads the arguments).

    Writes the result into OURS.  Exit 0 when merged; 1 (a conflict, OURS holding git's
    conflict markers) when the files could not be read as memory files.  Never above 128,
    which git would take as a crash.
    """
    base_path, ours_path, theirs_path = base, ours, theirs
    marker_size = marker_size if marker_size and marker_size.isascii() and marker_size.isdigit() else "7"
    path = path or ours_path
    if not is_conversation(path) and not is_vault_file(path):
        return text_merge(base_path, ours_path, theirs_path, marker_size)
    try:
        data = []
        for p in (base_path, ours_path, theirs_path):
            with open(p, "rb") as handle:
                data.append(handle.read())
        merged, notes = merge_bytes(path, *data)
        with open(ours_path, "wb") as handle:  # git's temporary file: it reads the result back
            handle.write(merged)
        for note in notes:
            sys.stderr.write(f"memcli: {path}: {note}\n")
        return 0
    except (OSError, ValueError, RecursionError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        sys.stderr.write(f"memcli: {path}: cannot merge it entry by entry ({reason}); leaving git's conflict markers\n")
        return text_merge(base_path, ours_path, theirs_path, marker_size)


def text_merge(base_path: str, ours_path: str, theirs_path: str, marker_size: str = "7") -> int:
    """git's own three-way text merge into OURS: 0 clean, 1 conflict (markers written)."""
    from memcli.git.repo import merge_file

    return 0 if merge_file(ours_path, base_path, theirs_path, marker_size) else 1


def resolve_text(path: str, data: bytes) -> bytes:
    """A file holding conflict markers, with both sides kept (no base known): the union of entries."""
    if is_conversation(path):
        text = data.decode("utf-8", "surrogateescape")
        sides = vault.split_conflict(text)
        if sides is None:
            return data
        ours, theirs = (s.encode("utf-8", "surrogateescape") for s in sides)
        return merge_conversation_bytes(b"", ours, theirs)
    text = data.decode("utf-8")
    return vault.serialize(vault.parse(text)).encode("utf-8")
