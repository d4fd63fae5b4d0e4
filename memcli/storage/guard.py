"""Content checks (placeholder until the full rule set lands): invisible characters and a few
hijack patterns.  API: RULES, Finding, invisible, make_visible, strip_invisible, scan,
allowed_rules, check."""

from __future__ import annotations

import re
from typing import NamedTuple

from memcli.errors import MemcliError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

RULES = {
    "invisible": "invisible or direction-control characters",
    "override": "overrides earlier or system instructions",
    "concealment": "hides actions from the user",
    "remote-code": "fetches and runs remote code",
    "exfiltration": "sends files, keys or the environment out",
    "fake-delimiter": "fakes a chat role or system delimiter",
    "memcli-marker": "holds memcli's own block markers",
    "encoded": "a long encoded blob",
    "agent-config": "tampers with an agent's configuration or hooks",
}


class Finding(NamedTuple):
    rule: str
    start: int
    end: int
    excerpt: str


_INVISIBLE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u00ad\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f"
    "\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffb\U0001d173-\U0001d17a"
    "\U000e0000-\U000e0fff]"
)
_PATTERNS = [
    ("remote-code", re.compile(r"(?i)\b(?:curl|wget)\b[^\n|]*\|\s*(?:sudo\s+)?(?:ba|z|da)?sh\b")),
    ("override", re.compile(r"(?i)\bignore (?:all )?(?:previous|prior|earlier|above) instructions\b")),
    ("concealment", re.compile(r"(?i)\b(?:do not|don't|never) (?:tell|mention|inform)\b[^.\n]{0,20}\buser\b")),
    ("memcli-marker", re.compile(r"## MEMORY CONTEXT|<!-- memcli:end -->")),
    ("fake-delimiter", re.compile(r"<\|im_(?:start|end)\|>|</?system>")),
]


def invisible(text: str) -> list[tuple[int, str]]:
    return (
        [(m.start(), m.group()) for m in _INVISIBLE.finditer(text)]
        if not text.isascii() or _INVISIBLE.search(text)
        else []
    )


def make_visible(text: str) -> str:
    return _INVISIBLE.sub(lambda m: f"⟨U+{ord(m.group()):04X}⟩", text)


def strip_invisible(text: str) -> str:
    return _INVISIBLE.sub("", text)


def _excerpt(text: str, start: int, end: int) -> str:
    return " ".join(make_visible(text[max(0, start - 20) : end + 20]).split())[:80]


def scan(text: str) -> list[Finding]:
    out = [
        Finding("invisible", m.start(), m.end(), _excerpt(text, m.start(), m.end())) for m in _INVISIBLE.finditer(text)
    ]
    for rule, pattern in _PATTERNS:
        for m in pattern.finditer(text):
            out.append(Finding(rule, m.start(), m.end(), _excerpt(text, m.start(), m.end())))
    return out


def allowed_rules(tags: Iterable[str]) -> set[str]:
    return {t[6:] for t in tags if t.startswith("allow-") and t[6:] in RULES and t[6:] != "invisible"}


def check(text: str, allow: Iterable[str] = ()) -> None:
    allowed = set(allow) - {"invisible"}
    for f in scan(text):
        if f.rule in allowed:
            continue
        line = text.count("\n", 0, f.start) + 1
        if f.rule == "invisible":
            raise MemcliError(
                f"refused: invisible character U+{ord(text[f.start]):04X} at line {line}; nothing written"
            )
        raise MemcliError(
            f"refused: the text {RULES[f.rule]} ('{f.excerpt}', line {line}); if you mean it, add --allow {f.rule}"
        )
