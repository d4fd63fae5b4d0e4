"""What the commands share: finding the memory, opening the store, reading text."""

from __future__ import annotations

import os
import sys

from memcli import api, output
from memcli.errors import MemcliError
from memcli.storage.fsutil import decode_text
from memcli.storage.paths import Layout, find_layout
from memcli.storage.store import Store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable, Sequence, TypeVar

    T = TypeVar("T")

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


def personal_exists() -> bool:
    """Whether there is a personal memory to look in (one ``stat``)."""
    from memcli.storage.paths import personal_layout

    return personal_layout().exists()


def scoped(dir_option: str | None, user: bool, project: bool, find: Callable[[api.Memory], T]) -> tuple[api.Memory, T]:
    """The memory that holds what ``find`` looks up (an entry by id), and what it found.  ``--user``:
    the personal memory; ``--project``: the project's; neither: the project's, else (no such id, or
    no project memory) the personal one; an id that both hold is refused, in one line, before
    anything is done."""
    from memcli.errors import NotFound, NotInitialized

    if user and project:
        raise MemcliError("--user and --project exclude each other; nothing done")
    if user:
        mine = memory(None, user=True)
        return mine, find(mine)
    mem = None
    try:
        mem = memory(dir_option)
        found = find(mem)
    except (NotFound, NotInitialized) as exc:
        if project or not personal_exists() or (mem is not None and mem.personal):
            raise
        try:
            mine = memory(None, user=True)
            return mine, find(mine)
        except MemcliError:
            raise exc from None
    if not project and not mem.personal and personal_exists():
        try:
            find(memory(None, user=True))
        except MemcliError:
            pass  # not there (or not usable): the project's it is
        else:
            raise MemcliError(
                "that id names an entry in this project's memory and one in your personal memory:"
                " add --project or --user; nothing done"
            )
    return mem, found


def scope_note(mem: api.Memory, message: str) -> str:
    """A write's message, each line marked when it was done in the personal memory."""
    if not mem.personal:
        return message
    return "\n".join(f"{line} (personal memory)" if line else line for line in message.split("\n"))


def scopes(dir_option: str | None, user: bool, project: bool, category: str | None) -> list[tuple[str, api.Memory]]:
    """The memories a read looks in, as (scope, ``api.Memory``): the project's ("project") and the
    personal one ("user", when there is one: one ``stat``), or the one asked for."""
    from memcli.errors import NotInitialized
    from memcli.storage.paths import personal_layout

    if user and project:
        raise MemcliError("--user and --project exclude each other")
    found = []
    mine = personal_layout()
    if not user:
        try:
            here = find_layout(dir_option)
        except NotInitialized:
            if project or not mine.exists():
                raise
        else:
            found.append(("user" if here.personal else "project", api.Memory(store=Store(here))))  # no index upkeep
            if here.personal:  # run in the personal memory's own folder: it is the one memory here
                return found
    if project:
        return found
    if not mine.exists():
        if user:
            raise MemcliError(
                f"no personal memory yet (it goes in {mine.root}): `memcli add --user AGENT CATEGORY TEXT` starts it"
            )
        return found
    from memcli.upkeep.personal import check

    try:
        check(mine)
    except MemcliError as exc:
        if user or not found:
            raise
        output.warn(f"{exc.message}; the project's memory only")
        return found
    store = Store(mine)
    if user or category is None or category in store.categories:  # a category of the project's own config
        found.append(("user", api.Memory(store=store)))
    return found


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
        mem, (owner, wanted) = scoped(dir_option, user, project, lambda m: entries_by_id(m, agent, ids, command))
        done = api.OPERATIONS[command].run(mem, agent=owner, ids=wanted)
        if as_json:
            output.print_json(done.to_json()["entries"])
        else:
            output.echo(scope_note(mem, done.message), err=True)
        return 0

    return run


def entries_by_id(mem: api.Memory, agent: str, ids: Sequence[str] | None, command: str) -> tuple[str | None, list[str]]:
    """``[AGENT] ID...`` as the memory reads it: the agent (None: left out) and the ids, every one
    known (else NotFound, before anything is done)."""
    owner, wanted = api.agent_and_ids(mem.store, agent, list(ids or ()), command)
    mem.entries(owner, wanted)
    return owner, wanted
