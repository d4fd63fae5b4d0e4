"""The PT+EN heuristic insight extractor: decisions and lessons from a session's messages.

It grew from AITEAM-X agent-memory v0.5's rules and is measured on a labelled corpus of lines as
agents and users write them (``python bench/extraction.py``; bench/RESULTS.md has the figures).
Messages of the agent and of the person are read line by line.  An explicit label
(``**Decision:**``, ``Lesson learned:``, ``Decisão:``) is always an insight of its kind.  Else a line
longer than 30 characters that matches a decision pattern (a choice said by "we", settled, or a rule
with its contrast) is a decision, else one that matches a lesson pattern (a cause found, a gotcha,
a constraint) is a lesson.  Tables, headings, fenced code (every line of it), quotes, bare list
markers and an agent's narration of its own steps are skipped, and so are hedges, questions, plans
and notes about the step at hand; near-identical lines are kept once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# Kept apart so that `add` finds a copy without compiling this module's patterns (25 ms).
from memcli.capture.copies import NEAR_JACCARD, NEAR_WORDS, _HASHTAG, _NORMALISE, is_copy, same_text_key  # noqa: F401

_I = re.IGNORECASE
# A decision is a choice the project keeps following: said by "we" (or the team, or the user's
# "let's"), settled, or a rule with its contrast ("X, not Y").  A plan for the next minute ("I'll
# use grep") and a description of code ("this function will use the cache") are not decisions.
DECISION = [
    re.compile(p, _I)
    for p in (
        r"\bdecidimos\b",
        r"\bdecidi\b",
        r"\bdecisão\s+(foi|tomada|de)\b",
        r"\bfica\s+decidido\b",
        r"\boptamos\s+por\b",
        r"\badotamos\b",
        r"\bescolhemos\b",
        r"\bvamos\s+(usar|manter|adotar)\b",
        r"\b(we|team|user)\s+(have\s+)?decided\b",
        r"\bdecided\s+(to|that|against|on|in)\b",
        r"\b(we|team)\s+(chose|picked|opted|agreed|settled|went\s+with|standardi[sz]ed)\b",
        r"\bwe('re|\s+are)\s+(going\s+with|moving|standardi[sz]ing|switching|sticking)\b",
        r"\bwe('ll|\s+will)\s+(use|keep|log|move|pin|drop|switch|stick|adopt|store|run|serve)\b",
        r"\b(let's|lets)\s+(go|use|keep|stick|switch)\b",
        r"^(ok|okay|fine|alright)[,.]?\s+(we'll|go\s+with|use|keep)\b",
        r"\bgoing\s+with\b",
        r"\bwent\s+with\b",
        r"\bsettled(\s+on)?\b",
        r"\bagreed\s+(with|that|to|on|:)",
        r"\bfinal\s+call\b",
        r"\bfrom\s+(now|here)\s+on\b",
        r"\b\w+\s+it\s+is\s*:",
        r"\bchose\s+to\b",
        r"\bon\s+purpose\b",
        r"\bby\s+design\b",
        r"\bconclusion:",
        r"\bconclusão:",
        # a rule with its contrast: "Store the token in a cookie, not in localStorage"
        r"^(use|store|keep|serve|put|prefer|pin|send)\b.*(\binstead\s+of\b|\brather\s+than\b|,\s+not\s|;\s+not\s)",
        r"\b(are|is)\s+(not\s+allowed|only\s+for|the\s+only\s+source)\b",
        r"\bnever\s+(floats|raw\s+sql)\b",
    )
]
# A lesson is something found true beyond this session: a cause, a gotcha, a constraint, a workaround.
LESSON = [
    re.compile(p, _I)
    for p in (
        r"\bwe\s+learned\b",
        r"\blesson:",
        r"\baprendemos\b",
        r"\baprendi\b",
        r"\bdescobrimos\b",
        r"\blição:",
        r"\binsight:",
        r"\bdescoberta:",
        r"\bobservação:",
        r"\bobservacao:",
        r"\bimportante:",
        r"\bimportant:",
        r"\btakeaway",
        r"\bgotcha\b",
        r"\bponto\s+(forte|fraco)",
        r"\bnote:\s+\S",
        r"\bcuidado\s+com\b",
        r"\bo\s+problema\s+(era|é)\b",
        r"\b(falhava|quebrava)\s+porque\b",
        r"\bworkaround",
        r"\blimitação\b",
        r"\blimitation\b",
        r"\bturns\s+out\b",
        r"\b(root\s+)?cause\s+was\b",
        r"\bwas\s+caused\s+by\b",
        r"\bthe\s+(problem|bug|issue|leak|timeout|failure)\s+(was|came\s+from)\b",
        r"\bcame\s+from\s+the\b",
        r"\bwhich\s+(caused|broke|lost|hid|made|doubled)\b",
        r"\b(that's|that\s+is)\s+why\b",
        r"\bhid\s+the\b",
        r"\b(only|never)\s+(catches|shows|fails|works|breaks|picks)\b",
        r"\b(fails?|breaks?|broke)\s+(on|when|if|after|because)\b",
        r"\bunless\b",
        r"\botherwise\b",
        r"\bonly\s+if\b",
        r"\bregardless\s+of\b",
        r"\bdoes\s+not\s+(use|keep|pick|work|batch)\b",
        r"\bare\s+not\s+batched\b",
        r"\b(even\s+though|even\s+in)\b",
        r"\bwent\s+from\s+\S+.{0,200}?\bto\s+\S+",  # (bounded: a line of many "went from" is not quadratic)
        r"\bcut\s+\d+\s*(kb|mb|ms|s)\b",
        r"\bis\s+(latin-1|not\s+utf-8|not\s+utc)\b",
        r"\bnot\s+(0|1)-based\b",
        r"^(fyi|remember)\b",
        r"^(never|always)\s+\w+",
        r"\bper\s+ip\b",
        # a cause and its effect: "X happened because Y", "X, so Y", "which is why"
        r"\bbecause\b",
        r"\bporque\b",
        r"\bwhich\s+is\s+why\b",
        r"[,;]\s+so\s+(?!i\b|we\b|let|you\b)\w+",
        r"\b(happened|came|comes)\s+(from|because)\b",
        r"\bvinha\s+d[oa]\b",
        r"\buntil\s+we\b",
        r"\bleak(ed|s)?\b",
        r"^(heads\s+up|careful|watch\s+out|beware)\b",
        r"\bonly\s+(exposes|accepts|returns|allows|runs)\b",
    )
]
# A first-person line tells what the agent did or will do, not what is true ("I changed X because Y").
_NARRATION = re.compile(r"^(?:[-*+]\s+)?(i\b|i've|i'm|i'd|let\s+me|let's\s+(?!go|use|keep|stick))", _I)
_LEARNED = re.compile(r"\b(learned|aprendi|aprendemos)\b", _I)
# What no line is, however its words look: hedges, questions, plans and offers.
_NOT_SETTLED = re.compile(
    r"(\?\s*$|\bmaybe\b|\bnot\s+sure\b|\bmight\b|\bwhat\s+do\s+you\s+think\b|\btalvez\b|\bif\s+you\s+want\b"
    r"|^(i\s+will|i'm\s+going\s+to|going\s+to|i'd|i\s+could|i\s+suggest|i\s+recommend|recomendo|should\s+i"
    r"|possible|plan:|next\b|vou\b|deixa\s+eu|próximo))",
    _I,
)
# "Note: …" and "Important: …" about the step at hand ("Note: I'm skipping the docs") are not lessons.
_STEP_NOTE = re.compile(
    r"^(?:[-*+]\s+)?(?:\*\*)?(note|important|nota)(?:\*\*)?\s*:\s*(?:\*\*)?\s*"
    r"(i\b|i'm|i've|we're|please|running|skipping|the\s+output|this\s+output|the\s+diff|this\s+pr|below|above|estou)",
    _I,
)
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
    r"(?:\*\*|__)?\s*(?::|\s[—–-])\s*(?:\*\*|__)?\s*(\S.*)$",
    re.I,
)
_DECISION_LABELS = ("decision", "decided", "decisão", "decisao")
# A pattern's first word, or its first group of words, that every match of it holds ("\\bwe\\s+…",
# "\\b(we|team|user)\\s+…"; not an optional group: "\\b(root\\s+)?cause").
_HEAD = re.compile(r"\\b(?:\(([a-zà-ÿ'|]+)\)(?![?*])|([a-zà-ÿ']+))")


# The letters that IGNORECASE takes for i or s and lower() does not: İ, ı, ſ.
_FOLD = str.maketrans("\u0130\u0131\u017f", "iis")


class _AnyOf:
    """Whether a line matches any of a list's patterns.  One alternation of them all is searched at
    every position of the line for every alternative (2.5 ms for a paragraph of 1,400 characters,
    11 s of a 5 MB session); here a pattern is searched only when the lower-cased line holds one of
    its first words (``_HEAD``), and those without such words as one alternation."""

    def __init__(self, patterns: list[re.Pattern[str]]):
        self.worded: list[tuple[tuple[str, ...], re.Pattern[str]]] = []
        rest = []
        for p in patterns:
            head = _HEAD.match(p.pattern)
            if head:
                self.worded.append((tuple((head.group(1) or head.group(2)).split("|")), p))
            else:
                rest.append(p.pattern)
        self.rest = re.compile("|".join(f"(?:{p})" for p in rest), _I)

    def search(self, line: str) -> bool:
        low = line.lower() if line.isascii() else line.translate(_FOLD).lower()
        return bool(
            any(any(w in low for w in words) and p.search(line) for words, p in self.worded) or self.rest.search(line)
        )


_ANY_DECISION = _AnyOf(DECISION)
_ANY_LESSON = _AnyOf(LESSON)
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
        if message.get("role") not in ("agent", "user"):
            continue  # the person's own decisions count too ("let's go with Postgres")
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
            elif len(line) <= MIN_LENGTH or SKIP.match(line) or _NOT_SETTLED.search(line) or _STEP_NOTE.match(line):
                continue
            key = dedupe_key(line)
            if len(key) < 20 or key in seen:
                continue
            if label:
                target = found.decisions if label.group(1).lower() in _DECISION_LABELS else found.lessons
            elif _ANY_DECISION.search(line):
                target = found.decisions
            elif _ANY_LESSON.search(line) and (not _NARRATION.match(line) or _LEARNED.search(line)):
                target = found.lessons
            else:
                continue
            if len(target) < max_items:
                target.append(line[:max_chars])
                seen.add(key)
    return found
