"""What the commands share: finding the memory, opening the store, reading text."""

from __future__ import annotations

import os
import sys

from memcli import api, output
from memcli.errors import MemcliError
from memcli.storage.fsutil import decode_text
from memcli.storage.paths import Layout, find_layout
from memcli.storage.store import Store

STATE: dict[str, str | None] = {"dir": None}  # `memcli --dir PATH` as Typer parsed it


def env_dir() -> str | None:
    return os.environ.get("MEMCLI_DIR") or None


def layout(dir_option: str | None, must_exist: bool = True) -> Layout:
    return find_layout(dir_option, must_exist=must_exist)


def open_store(dir_option: str | None) -> Store:
    """The store, with a listener that keeps an existing search index current after writes."""
    store = Store(layout(dir_option))
    store.listeners.append(_update_index)
    return store


def _update_index(store: Store, agent: str, category: str) -> None:
    from memcli.search.freshness import MANIFEST

    if (store.layout.index_dir / MANIFEST).exists():  # no index yet: the next search builds it
        from memcli.search.index import SearchIndex

        SearchIndex(store).update_after_write(agent, category)


EDITOR_NOTE = "<!-- memcli: {action} above this line. {hint}This line is dropped; an empty text cancels. -->"


def edit_in_editor(initial: str, suffix: str = ".md", note: str = "") -> str:
    """Open $VISUAL/$EDITOR on ``initial`` (and ``note``, a comment line that is taken out again) and
    return the saved text (one final newline dropped)."""
    import shlex
    import subprocess
    import tempfile

    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    fd, path = tempfile.mkstemp(prefix="memcli-", suffix=suffix)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            text = initial if initial.endswith("\n") or not initial else initial + "\n"
            handle.write(text + (("\n" if text else "\n") + note + "\n" if note else ""))
        try:
            result = subprocess.run([*shlex.split(editor), path])
        except OSError as exc:
            raise MemcliError(f"cannot start the editor {editor!r}: {exc.strerror}") from None
        if result.returncode != 0:
            raise MemcliError(f"the editor {editor!r} exited with status {result.returncode}; nothing changed")
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    finally:
        os.unlink(path)
    if note:
        text = "\n".join(line for line in text.split("\n") if line.strip() != note).strip("\n") + "\n"
    return text[:-1] if text.endswith("\n") else text


def read_text_argument(text: str | None, initial: str = "", template: str = "", what: str = "the text") -> str:
    """TEXT as given, stdin for '-', or $EDITOR when neither is given on a terminal (on ``initial``,
    with a note saying what to write).  A trailing newline is dropped, CRLF line ends read as LF."""
    if text == "-":
        data = decode_text(sys.stdin.buffer.read(), "standard input")  # nothing is written: one line
        data = data.replace("\r\n", "\n")
        return data[:-1] if data.endswith("\n") else data
    if text is not None:
        return api.check_text(text)
    if not output.is_interactive():
        raise MemcliError("no text given: pass TEXT, or '-' to read standard input ($EDITOR opens only on a terminal)")
    if initial:
        note = EDITOR_NOTE.format(action=f"edit {what}", hint="")
    else:
        note = EDITOR_NOTE.format(action=f"write {what}", hint=f"For example: {template} " if template else "")
    return edit_in_editor(initial, note=note)


def run_state(
    dir_option: str | None, agent: str, ids: list[str] | None, tag: str, on: bool, as_json: bool, command: str
) -> int:
    """archive, unarchive, pin, unpin: set or clear a state tag on entries found first (all known, or
    nothing done)."""
    from memcli import api, output

    store = open_store(dir_option)
    groups = api.locate_many(store, agent, list(ids or ()), command)
    done = api.set_flag(store, groups, tag, on)
    if as_json:
        output.print_json([{**api.entry_json(t.agent, t.category, t.entry), "changed": changed} for t, changed in done])
        return 0
    verb = tag if on else f"un{tag}"  # archived / unarchived, pinned / unpinned
    for t, changed in done:
        where = f"{t.agent}/{t.category} {t.entry.id}"
        output.echo(f"{verb} {where}" if changed else f"{where} was {verb} already", err=True)
    return 0


def state_run(command: str, tag: str, on: bool):
    """The ``run`` of archive, unarchive, pin and unpin (``tag``: a name in ``memcli.storage.store``)."""

    def run(dir_option: str | None, agent: str, ids: list[str] | None = None, as_json: bool = False) -> int:
        from memcli.storage import store

        return run_state(dir_option, agent, ids, getattr(store, tag), on, as_json, command)

    return run
