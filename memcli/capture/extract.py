"""The PT+EN heuristic insight extractor, with the tightened rules of AITEAM-X agent-memory v0.5.

Only agent messages are read, line by line.  A line longer than 30 characters that
matches a decision pattern is a decision, else one that matches a lesson pattern is a
lesson.  Tables, headings, fenced code (every line of it), quotes, bare list markers, bold labels and an
agent's reasoning chatter are skipped; near-identical lines are kept once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_I = re.IGNORECASE
DECISION = [
    re.compile(p, _I)
    for p in (
        r"\bdecidimos\b",
        r"\bdecidi\b",
        r"\bdecisão\s+(foi|tomada|de)\b",
        r"\bchose\s+to\b",
        r"\bwill\s+use\b",
        r"\bgoing\s+with\b",
        r"\boptamos\s+por\b",
        r"\badotamos\b",
        r"\bvamos\s+usar\b",
        r"\bwent\s+with\b",
        r"\bsettled\s+on\b",
        r"\bwe\s+decided\b",
        r"\bwe\s+chose\b",
        r"\bconclusion:",
        r"\bconclusão:",
        r"\brecomenda[çc]ão\b",
        r"\brecommend(ed|ation)\b",
        r"\bpropon(ho|emos)\b",
        r"\bpropose\s+(to|that|we)\b",
    )
]
LESSON = [
    re.compile(p, _I)
    for p in (
        r"\bwe\s+learned\b",
        r"\blesson:",
        r"\baprendemos\b",
        r"\blição:",
        r"\binsight:",
        r"\bdescoberta:",
        r"\bobservação:",
        r"\bobservacao:",
        r"\bimportante:",
        r"\bimportant:",
        r"\btakeaway",
        r"\bponto\s+(forte|fraco)",
        r"\bnote:\s+\S",
        r"\bcuidado\s+com\b",
        r"\bo\s+problema\s+era\b",
        r"\bworkaround",
        r"\blimitação\b",
        r"\blimitation\b",
    )
]
SKIP = re.compile(
    r"^(\||#{1,6}\s|[`~]{3}|<!--|>|[-*]\s*$|\d+\.\s*$|\*\*"
    r"|(Let me|I'm thinking|I need to|I should|I'll|I'm also)\b"
    r"|(The user seems|The user wants|The user is)\b"
    r"|(Actually,|Hmm|Wait,|OK so|Alright)"
    r"|(Looking at|Checking|Reading|Searching)\b"
    r"|(Now I|First I|Next I)\b)"
)
# An explicit label is always an insight of its kind, however it is dressed (a bullet, bold,
# underscores): "**Decision:** …", "- Lesson learned: …", "Decisão: …".
_LABEL = re.compile(
    r"^(?:[-*+]\s+|\d+[.)]\s+)?(?:\*\*|__)?"
    r"(decision|decided|decisão|decisao|lesson(?:s)?(?: learned)?|lição|licao|learned|takeaway|gotcha)"
    r"(?:\*\*|__)?\s*:\s*(?:\*\*|__)?\s*(\S.*)$",
    re.I,
)
_DECISION_LABELS = ("decision", "decided", "decisão", "decisao")
# One expression for each list: a line is searched once, not once per pattern.
_ANY_DECISION = re.compile("|".join(f"(?:{p.pattern})" for p in DECISION), _I)
_ANY_LESSON = re.compile("|".join(f"(?:{p.pattern})" for p in LESSON), _I)
_NORMALISE = re.compile(r"[^a-z0-9\u00c0-\u024f]+")
MIN_LENGTH = 30


def dedupe_key(text: str) -> str:
    """Lower-case, punctuation folded to spaces, first 100 characters."""
    return _NORMALISE.sub(" ", text.lower()).strip()[:100]


def known_keys(bodies) -> set[str]:
    """What is stored already, as dedupe keys: every entry's body and every line of it (a bullet's
    ``- `` dropped).  The one rule for "already stored": ``compact`` writes insights as bullets of
    one entry, ``checkpoint --close`` as one entry each, and either finds the other's."""
    keys = set()
    for body in bodies:
        keys.add(dedupe_key(body))
        for line in body.splitlines():
            keys.add(dedupe_key(line.strip().removeprefix("- ")))
    keys.discard("")
    return keys


@dataclass
class Insights:
    decisions: list[str] = field(default_factory=list)
    lessons: list[str] = field(default_factory=list)


def extract(messages: list[dict], max_items: int = 10, max_chars: int = 300) -> Insights:
    """Decisions and lessons found in the agent messages of a conversation."""
    found = Insights()
    seen: set[str] = set()
    for message in messages:
        if len(found.decisions) >= max_items and len(found.lessons) >= max_items:
            break  # both lists are full: the rest of the conversation cannot change them
        if message.get("role") != "agent":
            continue
        fence = None  # inside a fenced code block: the fence's characters
        for raw in str(message.get("text", "")).split("\n"):
            line = raw.strip()
            if fence is not None:
                if line.startswith(fence):
                    fence = None
                continue
            if line[:3] in ("```", "~~~") and line.count(line[0] * 3) == 1:
                fence = line[:3]  # a fence that opens here and closes on a later line
                continue
            label = _LABEL.match(line)
            if label:  # "**Decision:** x" is stored as "Decision: x"
                name = label.group(1)
                line = f"{name[0].upper()}{name[1:].lower()}: {label.group(2).strip().strip('*_').strip()}"
            elif len(line) <= MIN_LENGTH or SKIP.match(line):
                continue
            key = dedupe_key(line)
            if len(key) < 20 or key in seen:
                continue
            if label:
                target = found.decisions if label.group(1).lower() in _DECISION_LABELS else found.lessons
            elif _ANY_DECISION.search(line):
                target = found.decisions
            elif _ANY_LESSON.search(line):
                target = found.lessons
            else:
                continue
            if len(target) < max_items:
                target.append(line[:max_chars])
                seen.add(key)
    return found
