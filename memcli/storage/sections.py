"""memcli's marked sections in files it shares with the user (``AGENTS.md``, ``CLAUDE.md``, a Cursor
rule, ``.codex/config.toml``): where they lie, how one is put in or taken out while every byte
outside it stays as it was, and which sections are memcli's own (so that ``memcli import`` never
reads them back as memory).  Pure text in, text out: ``memcli setup`` and ``memcli export`` both
use it, and the pre-commit hook through ``export``."""

from __future__ import annotations

import re
from pathlib import Path

from memcli.errors import MemcliError

# Any section memcli wrote: ``<!-- memcli setup: start -->`` ... ``<!-- memcli setup: end -->``,
# ``<!-- memcli export: start -->`` ... (each pair with its own name).
OWN_SECTION = re.compile(
    r"(?ms)^[ \t]*<!-- memcli ([a-z-]+): start -->[ \t]*\r?$.*?^[ \t]*<!-- memcli \1: end -->[ \t]*\r?$"
)


def without_own_sections(text: str) -> str:
    """``text`` with every section memcli wrote blanked out (each line kept, empty, so that line
    numbers still name the user's lines)."""
    return OWN_SECTION.sub(lambda m: "\n" * m.group(0).count("\n"), text)


def sections(text: str, marks: tuple[str, str], name: str) -> list[tuple[int, int]]:
    """Where memcli's marked sections lie in ``text``: from a line that is the start marker to the
    next line that is the end marker, with its line end.  A marker line without its pair is an error."""
    fences, opened = [], None  # fenced code blocks: markers quoted in them are examples, not a section
    for m in re.finditer(r"(?m)^[ \t]*(```|~~~).*$", text):
        if opened is None:
            opened = m.start()
        else:
            fences.append((opened, m.end()))
            opened = None
    # (a fence left open quotes nothing: memcli's own section may follow it)
    quoted = lambda pos: any(a <= pos < b for a, b in fences)  # noqa: E731
    pattern = re.compile(rf"(?m)^{re.escape(marks[0])}[ \t]*\r?$.*?^{re.escape(marks[1])}[ \t]*(?:\r?\n|\Z)", re.S)
    spans = [m.span() for m in pattern.finditer(text) if not quoted(m.start())]
    lone = re.compile(rf"(?m)^(?:{re.escape(marks[0])}|{re.escape(marks[1])})[ \t]*\r?$")
    inside = lambda pos: any(a <= pos < b for a, b in spans)  # noqa: E731
    if any(not inside(m.start()) and not quoted(m.start()) for m in lone.finditer(text)):
        raise MemcliError(f"{name} holds half of memcli's section markers; mend it first, nothing changed")
    return spans


def with_section(text: str | None, section: str | None, marks: tuple[str, str], name: str) -> str | None:
    """``text`` with memcli's section put in (where the first one was, else at the end; any other
    copy, as a merge can leave, taken out) or, for ``section`` None, every copy taken out.  None:
    nothing is left."""
    text = text or ""
    spans = sections(text, marks, name)
    newline = "\r\n" if "\r\n" in text else "\n"
    body = None if section is None else newline.join([marks[0], *section.rstrip().split("\n"), marks[1]]) + newline
    if not spans:
        if body is None:
            return text or None
        if not text.strip():
            return body
        head = text if text.endswith("\n") else text + newline
        return head + newline + body  # a blank line before the section
    out, pos = [], 0
    for n, (start, end) in enumerate(spans):
        out.append(text[pos:start])
        if n == 0 and body is not None:
            out.append(body)
        pos = end
    out.append(text[pos:])
    result = "".join(out)
    if body is None and not text[spans[-1][1] :].strip() and result.endswith(newline * 2):
        result = result[: -len(newline)]  # the blank line setup put before a section at the end
    return result if result.strip() else None


def read_text(path: Path, shown: str | None = None) -> str | None:
    """A file memcli shares with the user, as text (None: it is not there); one line and nothing
    changed when it cannot be read or is not UTF-8 (``shown``: how to name it, else its path).  A
    BOM stays: it is written back as it was."""
    name = shown or str(path)
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise MemcliError(f"cannot read {name}: {exc.strerror or exc}; nothing changed") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise MemcliError(f"{name} is not UTF-8 text; nothing changed") from None
