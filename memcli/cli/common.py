"""What the Typer commands share: the global --dir, opening the store, reading text."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import tempfile

from memcli import output
from memcli.errors import MemcliError
from memcli.fsutil import decode_text
from memcli.paths import Layout, find_layout
from memcli.store import Store

STATE: dict[str, str | None] = {"dir": None}


def layout(must_exist: bool = True) -> Layout:
    return find_layout(STATE["dir"], must_exist=must_exist)


def open_store() -> Store:
    """The store, with a listener that keeps an existing search index current after writes."""
    store = Store(layout())
    store.listeners.append(_update_index)
    return store


def _update_index(store: Store, agent: str, category: str) -> None:
    from memcli.index import MANIFEST

    if (store.layout.index_dir / MANIFEST).exists():  # no index yet: the next search builds it
        from memcli.index import SearchIndex

        SearchIndex(store).update_after_write(agent, category)


def edit_in_editor(initial: str, suffix: str = ".md") -> str:
    """Open $VISUAL/$EDITOR on ``initial`` and return the saved text (one final newline dropped)."""
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    fd, path = tempfile.mkstemp(prefix="memcli-", suffix=suffix)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(initial if initial.endswith("\n") or not initial else initial + "\n")
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
    return text[:-1] if text.endswith("\n") else text


def check_argument_text(text: str, where: str = "TEXT") -> str:
    """A command-line argument that was not valid UTF-8 arrives with lone surrogates: refuse it."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise MemcliError(f"{where} is not UTF-8 text; nothing written") from None
    if "\x00" in text:
        raise MemcliError(f"{where} holds NUL bytes; nothing written")
    return text


def read_text_argument(text: str | None, initial: str = "") -> str:
    """TEXT as given, stdin for '-', or $EDITOR when neither is given on a terminal."""
    if text == "-":
        data = decode_text(sys.stdin.buffer.read(), "standard input")  # nothing is written: one line
        return data[:-1] if data.endswith("\n") else data
    if text is not None:
        return check_argument_text(text)
    if not output.is_interactive():
        raise MemcliError("no text given: pass TEXT, or '-' to read standard input ($EDITOR opens only on a terminal)")
    return edit_in_editor(initial)


def require_text(text: str) -> str:
    if not text.strip():
        raise MemcliError("empty text; nothing written")
    return text


def check_secrets(text: str, allow: bool) -> None:
    if allow:
        return
    from memcli import secret_scan

    findings = secret_scan.scan(text)
    if findings:
        raise MemcliError(
            f"refusing to store what looks like a secret: {secret_scan.describe(findings)};"
            " remove it, or pass --allow-secret to store it anyway"
        )


def parse_id(value: str) -> int:
    if not value.isdigit():
        raise MemcliError(f"invalid entry id {value!r}: ids are numbers (see `memcli list`)")
    return int(value)


def entry_json(agent: str, category: str, entry) -> dict:
    return {
        "id": entry.id,
        "agent": agent,
        "category": category,
        "date": entry.header_date,
        "tags": entry.tags,
        "body": entry.body,
    }
