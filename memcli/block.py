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
        if end >= 0:
            pos = end + len(END)
        else:  # a block from memcli 0.1: it ends at its last "---" (the task may follow on that line)
            last = text.rfind("\n---", match.end())
            if last < 0:
                out.append(text[match.start() :])
                break
            pos = last + len("\n---")
    return "".join(out).strip()
