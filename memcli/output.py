"""Terminal manners: plain text on a pipe, colour only on a terminal, NO_COLOR honoured, JSON."""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # names for annotations only: the fast path never imports typing
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, IO


def use_color(stream: IO[str] | None = None) -> bool:
    stream = stream or sys.stdout
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":  # no-color.org: set and not empty
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def style(text: str, code: str, stream: IO[str] | None = None) -> str:
    """Wrap ``text`` in an ANSI SGR code when ``stream`` is a colour terminal."""
    return f"\x1b[{code}m{text}\x1b[0m" if use_color(stream) else text


def bold(text: str) -> str:
    return style(text, "1")


def dim(text: str) -> str:
    return style(text, "2")


_CONTROL = None


def visible(text: str, lines: bool = True) -> str:
    """``text`` safe to show: control characters (an escape sequence in an entry, or in a file name
    of somebody's branch, could retitle or clear the terminal, or hide what follows) in caret
    notation (``^[``), on a pipe too (``memcli list | head`` reaches the terminal; ``--json`` is
    for programs).  ``lines=False``: line ends too, for what must stay one line (a warning, an
    error, a line naming a file)."""
    global _CONTROL
    if text.isprintable():
        return text
    if _CONTROL is None:
        import re

        _CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
    if not lines:
        text = text.replace("\n", "^J").replace("\t", " ")
    return _CONTROL.sub(lambda m: "^" + chr((ord(m.group()) + 64) % 128) if ord(m.group()) < 128 else "?", text)


def echo(text: str = "", err: bool = False) -> None:
    """A line on stdout (or stderr)."""
    (sys.stderr if err else sys.stdout).write(f"{text}\n")


def plural(count: int, word: str, words: str | None = None) -> str:
    """``1 open task``, ``2 open tasks`` (``words``: an irregular plural)."""
    return f"{count} {word if count == 1 else (words or word + 's')}"


def shorten(text: str, width: int) -> str:
    """``text`` cut to at most ``width`` characters at a word boundary, with '…' when cut."""
    if len(text) <= width:
        return text
    cut = text[: width - 1]
    space = cut.rfind(" ")
    if space > width // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:.-") + "…"


def confirm(question: str) -> bool:
    """Ask on the terminal; anything but y/yes (or end of input) is no."""
    sys.stderr.write(f"{question} [y/N]: ")
    sys.stderr.flush()
    try:
        answer = sys.stdin.readline()
    except KeyboardInterrupt:
        sys.stderr.write("\n")
        return False
    return answer.strip().lower() in ("y", "yes")


def to_json(data: Any) -> str:
    from memcli.jsonio import pretty

    return pretty(data)


def print_json(data: Any) -> None:
    sys.stdout.write(to_json(data) + "\n")


_held: list[str] | None = None  # warnings of the running command, while main holds them back


def warn(message: str) -> None:
    """``memcli: warning: MESSAGE`` on stderr; while a command runs, at its end (``hold_warnings``)."""
    line = f"memcli: warning: {visible(message, lines=False)}\n"
    if _held is not None:
        _held.append(line)
    else:
        sys.stderr.write(line)


def hold_warnings() -> None:
    """Hold the warnings of the command about to run until it ends: a command that fails then says
    one line (its error), never warnings and then the error (``release_warnings``).  Not with
    ``MEMCLI_DEBUG``: then every warning shows as it comes."""
    global _held
    _held = None if os.environ.get("MEMCLI_DEBUG") else []


def release_warnings(failed: bool) -> int:
    """End holding: print the held warnings, or, when the command ``failed``, drop them; how many."""
    global _held
    held, _held = _held or [], None
    if not failed:
        sys.stderr.write("".join(held))
    return len(held)


def is_interactive() -> bool:
    try:
        return sys.stdin.isatty() and sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


def progress(items: list, label: str, threshold: int = 200, weight: Callable[[Any], int] | None = None):
    """Iterate ``items``, with a progress bar on stderr when it is a terminal and the work is long:
    at least ``threshold`` items, or units of work when ``weight`` says how many each item holds.

    Never on a pipe.  One line, redrawn at most ten times a second and wiped at the end: no
    colour, no escape sequence, no thread, nothing to import (rich's bar took ~35 ms to load).
    """
    stream = sys.stderr
    try:
        terminal = stream.isatty()
    except (AttributeError, ValueError):
        terminal = False
    weights = ([weight(item) for item in items] if weight else [1] * len(items)) if terminal else []
    total = sum(weights)
    if not terminal or total < threshold:
        yield from items
        return
    import time

    try:  # a line longer than the terminal would wrap, and could not be redrawn in place
        columns = os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, ValueError, OSError):
        columns = 0
    room = columns - 1 if columns > 1 else 79  # 0: a terminal that does not say
    done, shown, width = 0, 0.0, 0
    try:
        for item, units in zip(items, weights):
            now = time.monotonic()
            if now - shown >= 0.1:
                filled = 24 * done // total
                line = f"{label} [{'#' * filled}{'-' * (24 - filled)}] {done:,}/{total:,}"[:room]
                width = max(width, len(line))
                stream.write("\r" + line)
                stream.flush()
                shown = now
            yield item
            done += units
    finally:
        if width:  # the bar is wiped: what follows starts the line
            stream.write("\r" + " " * width + "\r")
            stream.flush()
