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
    """The store, with index upkeep (``api.open_store``)."""
    return api.open_store(layout(dir_option))


def memory(dir_option: str | None, user: bool = False) -> api.Memory:
    """The memory as the command line works on it: agents named as typed (a new name makes a new
    agent), none by default; with ``user``, the developer's personal memory (``--user``)."""
    if user:
        return api.Memory(store=api.open_personal())
    return api.Memory(store=open_store(dir_option))


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


def state_command(command: str):
    """The ``run`` of archive, unarchive, pin and unpin: the operation of that name on entries found
    first (all known, or nothing done)."""

    def run(
        dir_option: str | None,
        agent: str,
        ids: list[str] | None = None,
        as_json: bool = False,
        user: bool = False,
        project: bool = False,
    ) -> int:
        mem, (owner, wanted) = api.scoped(
            dir_option, user, project, lambda m: api.entries_by_id(m, agent, ids, command)
        )
        done = api.OPERATIONS[command].run(mem, agent=owner, ids=wanted)
        if as_json:
            output.print_json(done.to_json()["entries"])
        else:
            output.echo(api.scope_note(mem, done.message), err=True)
        return 0

    return run
