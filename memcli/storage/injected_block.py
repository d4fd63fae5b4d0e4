"""The frame of the block that ``inject`` prints, in one place, so that ``checkpoint`` can take
it out again: what memcli put into a prompt must never come back into memory.

A block starts with ``## MEMORY CONTEXT`` (or, alone, the ``## MEMORY:`` instructions) and
ends with the line ``<!-- memcli:end -->``.  A wrapper that runs
``agent -p "$(memcli inject dev "$task")$task"`` sends the block and the task as one
message, and an agent records that whole prompt; ``strip_injected`` gives back the user's
own words.  Blocks printed by memcli 0.1, which had no end line, end at their last ``---``.
"""

from __future__ import annotations

import re

START = "## MEMORY CONTEXT"
INSTRUCTIONS_START = "## MEMORY: When asked to save/learn/remember"
END = "<!-- memcli:end -->"
_START_RE = re.compile(r"(?m)^[ \t]*(?:" + re.escape(START) + r"|" + re.escape(INSTRUCTIONS_START) + r")")


NEUTRAL_END = "<!-- memcli-end (quoted) -->"  # how the end line reads when an entry quotes it
_OLD_END = re.compile(r"\n\n---[ \t]*(?:\n|$)|\n\n---(?=[^-])")
_OLD_INSTRUCTIONS = re.compile(r"\n*" + re.escape(INSTRUCTIONS_START) + r"[^\n]*\n[^\n]*\n---")


def neutralise(text: str) -> str:
    """Text for the inside of a block: it must not hold the end line (an entry that quotes it)."""
    return text.replace(END, NEUTRAL_END) if END in text else text


def strip_injected(text: str) -> str:
    """``text`` without any memory block that memcli printed into it."""
    if START not in text and INSTRUCTIONS_START not in text:
        return text
    out = []
    pos = 0
    while True:
        match = _START_RE.search(text, pos)
        if not match:
            out.append(text[pos:])
            break
        out.append(text[pos : match.start()])
        end = text.find(END, match.end())
        following = text.find(START, match.end())  # another block's heading (the instructions belong to this one)
        if end >= 0 and (following < 0 or end < following):
            pos = end + len(END)
            continue
        # A block from memcli 0.1 (no end line): it ends at its first "---" after a blank line,
        # and its instructions, if any, at their own "---".
        if text.startswith(INSTRUCTIONS_START, match.start() + len(match.group(0)) - len(INSTRUCTIONS_START)):
            old = _OLD_INSTRUCTIONS.match(text, match.start())
            pos = old.end() if old else len(text)
            continue
        old = _OLD_END.search(text, match.end())
        if old is None:
            pos = len(text)
            break
        pos = old.start() + len("\n\n---")
        instructions = _OLD_INSTRUCTIONS.match(text, pos)
        if instructions:
            pos = instructions.end()
    return re.sub(r"\n{3,}", "\n\n", "".join(out)).strip()


def without_comments(text: str, keep_lines: bool = False) -> str:
    """``text`` without its HTML comments (``<!-- … -->``, as ``re.sub(r"<!--.*?-->", "", text,
    flags=re.S)`` would take them out): each opening is followed to the next closing once, and with
    none left there is nothing more to take (the expression read to the end again from each
    opening: 64 KB of "<!--" in _project.md cost every inject 4 s).  ``keep_lines``: a comment
    leaves its line breaks, so the lines after it keep their numbers."""
    pos = text.find("<!--")
    if pos < 0:
        return text
    kept, last = [], 0
    while pos >= 0:
        end = text.find("-->", pos + 4)
        if end < 0:
            break
        kept.append(text[last:pos])
        if keep_lines:
            kept.append("\n" * text.count("\n", pos, end + 3))
        last = end + 3
        pos = text.find("<!--", last)
    kept.append(text[last:])
    return "".join(kept)
