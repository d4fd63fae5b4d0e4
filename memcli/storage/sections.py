"""memcli's marked sections in files it shares with the user (``AGENTS.md``, ``CLAUDE.md``, a Cursor
rule, ``.codex/config.toml``): where they lie, how one is put in or taken out while every byte
outside it stays as it was, and which sections are memcli's own (so that ``memcli import`` never
reads them back as memory).  Pure text in, text out: ``memcli setup`` and ``memcli export`` both
use it, and the pre-commit hook through ``export``.

A marker counts only outside fenced code (``code_blocks``: CommonMark's fences, a fence never
closed running to the end of the file), for writing and for finding alike: memcli never writes a
section it would not find again (``with_section`` reads back what it would write)."""

from __future__ import annotations

import re
from pathlib import Path

from memcli.errors import MemcliError

# Any section memcli wrote: ``<!-- memcli setup: start -->`` ... ``<!-- memcli setup: end -->``,
# ``<!-- memcli export: start -->`` ... (each pair with its own name).
# A fence line: three or more backticks or tildes (CommonMark's fenced code blocks).
_FENCE = re.compile(r"(?m)^[ \t]*(`{3,}|~{3,})(.*)$")
_ANY_MARK = re.compile(r"(?m)^<!-- memcli ([a-z-]+): (start|end) -->[ \t]*\r?$")  # at a line's start, as written


def code_blocks(text: str) -> list[tuple[int, int, bool]]:
    """The fenced code in ``text``, as (start, end, closed): from the start of a fence line to the
    end of the line that closes it.  As CommonMark reads it: a fence is closed by a line of the same
    character, at least as long, with nothing else on it; one never closed runs to the end of the
    text (``closed`` False).  The one rule for what is quoted code, for export and import alike."""
    blocks, opened = [], None
    for m in _FENCE.finditer(text):
        run, rest = m.group(1), m.group(2)
        if opened is None:
            if run[0] == "`" and "`" in rest:
                continue  # inline code on one line, not a fence
            opened = (m.start(), run)
        elif run[0] == opened[1][0] and len(run) >= len(opened[1]) and not rest.strip():
            blocks.append((opened[0], m.end(), True))
            opened = None
    if opened is not None:
        blocks.append((opened[0], len(text), False))
    return blocks


def open_fence(text: str) -> str | None:
    """The fence line that closes the code block ``text`` leaves open at its end (None: none is)."""
    blocks = code_blocks(text)
    if not blocks or blocks[-1][2]:
        return None
    m = _FENCE.match(text, blocks[-1][0])
    return m.group(1) if m else None


class _Marked:
    """memcli's marked sections as the marker lines outside fenced code pair up (``code_blocks``):
    a start line opens a section, the next end line of the same name closes it.  ``lone``: a marker
    line without its pair; ``swallowed``: the line where a fence that is never closed opens, when
    marker lines lie below it (they read as code now)."""

    def __init__(self, text: str, lines: list[tuple[int, int, str, bool]]):
        blocks = code_blocks(text)
        self.spans: list[tuple[int, int]] = []
        self.lone = False
        self.swallowed: int | None = None
        opened: tuple[int, str] | None = None
        for start, end, name, is_start in lines:
            block = next((b for b in blocks if b[0] <= start < b[1]), None)
            if block is not None:
                if not block[2] and self.swallowed is None:
                    self.swallowed = text.count("\n", 0, block[0]) + 1
                continue  # an example in a code block, not a marker
            if opened is None:
                if is_start:
                    opened = (start, name)
                else:
                    self.lone = True
            elif not is_start and name == opened[1]:
                self.spans.append((opened[0], end))
                opened = None
        if opened is not None:
            self.lone = True


def _line_end(text: str, end: int) -> int:
    return end + 1 if text.startswith("\n", end) else end


def sections(text: str, marks: tuple[str, str], name: str) -> list[tuple[int, int]]:
    """Where memcli's marked sections lie in ``text``: from a line that is the start marker to the
    next line that is the end marker, with its line end.  Marker lines in fenced code are examples,
    not markers (``code_blocks``).  A marker line without its pair is an error, and so is a marker
    line below a fence that is never closed: that fence makes it code, so the section cannot be
    found as it was written."""
    pattern = re.compile(rf"(?m)^(?:({re.escape(marks[0])})|{re.escape(marks[1])})[ \t]*\r?$")
    lines = [(m.start(), _line_end(text, m.end()), "", m.group(1) is not None) for m in pattern.finditer(text)]
    found = _Marked(text, lines)
    if found.swallowed is not None:
        raise MemcliError(
            f"{name}: the code fence opened at line {found.swallowed} is never closed, so memcli's section"
            " markers below it read as code; close that fence first, nothing changed"
        )
    if found.lone:
        raise MemcliError(f"{name} holds half of memcli's section markers; mend it first, nothing changed")
    return found.spans


def without_marked_sections(text: str) -> str:
    """``text`` with every section memcli wrote (any name: ``setup``'s, ``export``'s) blanked out,
    each line kept, empty, so that line numbers still name the user's lines; marker lines in
    fenced code are examples, as ``sections`` reads them."""
    lines = [(m.start(), m.end(), m.group(1), m.group(2) == "start") for m in _ANY_MARK.finditer(text)]
    out, pos = [], 0
    for start, end in _Marked(text, lines).spans:
        out += [text[pos:start], "\n" * text.count("\n", start, end)]
        pos = end
    return "".join(out) + text[pos:]


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
            return _found_again(body, body, marks, name)
        blocks = code_blocks(text)
        if blocks and not blocks[-1][2]:
            raise MemcliError(
                f"{name}: the code fence opened at line {text.count(chr(10), 0, blocks[-1][0]) + 1} is never closed,"
                " so a section after it would read as code; close that fence first, nothing changed"
            )
        if not text.endswith("\n"):  # the file's last line had no line end: the section's last has none
            body = body[: -len(newline)]
            return _found_again(text + newline * 2 + body, body, marks, name)
        return _found_again(text + newline + body, body, marks, name)  # a blank line before the section
    at_end = spans[-1][1] == len(text) and not text.endswith("\n")  # the last line, without a line end
    if body is not None and at_end and len(spans) == 1:
        body = body[: -len(newline)]
    out, pos = [], 0
    for n, (start, end) in enumerate(spans):
        out.append(text[pos:start])
        if n == 0 and body is not None:
            out.append(body)
        pos = end
    out.append(text[pos:])
    result = "".join(out)
    if body is None and not text[spans[-1][1] :].strip() and result.endswith(newline * 2):
        # the blank line put before a section at the end (and the line end the file's last line lacked)
        result = result[: -2 * len(newline)] if at_end else result[: -len(newline)]
    return _found_again(result, body, marks, name) if result.strip() else None


def _found_again(result: str, body: str | None, marks: tuple[str, str], name: str) -> str:
    """``result``, when reading it finds the section written (one, as written: never a section
    memcli could not find, nor replace, the next time); else an error, nothing written."""
    spans = sections(result, marks, name)
    if body is not None and [result[a:b] for a, b in spans] != [body]:
        raise MemcliError(f"{name}: memcli could not find its section again once written; nothing changed")
    return result


def read_text(path: Path, shown: str | None = None) -> str | None:
    """A file memcli shares with the user, as text (None: it is not there); one line and nothing
    changed when it cannot be read or is not UTF-8 text (or holds NUL bytes) (``shown``: how to name it, else its path).  A
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
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise MemcliError(f"{name} is not UTF-8 text; nothing changed") from None
    if "\x00" in text:  # valid UTF-8, yet binary data: no place for a section (import refuses it too)
        raise MemcliError(f"{name} holds NUL bytes (binary data?); nothing changed")
    return text
