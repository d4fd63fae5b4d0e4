"""Detect (and redact) text that looks like a secret: keys and tokens must not land in git or prompts."""

from __future__ import annotations

import re
from dataclasses import dataclass

_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("private key block", re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")),
    ("AWS access key id", re.compile(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b")),
    ("GitHub token", re.compile(r"\bgh[pousr]_[A-Za-z0-9]{36,}\b|\bgithub_pat_[A-Za-z0-9_]{22,}")),
    ("GitLab token", re.compile(r"\bglpat-[A-Za-z0-9_\-]{20,}")),
    ("Slack token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}")),
    ("Slack webhook", re.compile(r"https://hooks\.slack\.com/services/[A-Za-z0-9/]{20,}")),
    ("Anthropic API key", re.compile(r"\bsk-ant-[A-Za-z0-9_\-]{20,}")),
    ("OpenAI-style API key", re.compile(r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}")),
    ("Google API key", re.compile(r"\bAIza[0-9A-Za-z_\-]{35}")),
    ("Stripe key", re.compile(r"\b[rs]k_(?:live|test)_[0-9A-Za-z]{20,}")),
    ("JSON web token", re.compile(r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}")),
]
# `password = "…"`, `API_KEY: …`, `aws_secret_access_key=…`: only the value is the secret.
_ASSIGNMENT = re.compile(
    r"(?i)\b(?:[a-z0-9]+[_-])*(?:password|passwd|pwd|secret|secret[_-]?key|api[_-]?key|access[_-]?key"
    r"|access[_-]?token|auth[_-]?token|client[_-]?secret|private[_-]?key|token)"
    r"""\s*[:=]\s*["']?(?P<value>[^\s"'`,;]{8,})"""
)


@dataclass(frozen=True)
class Finding:
    kind: str
    start: int
    end: int
    line: int


def _placeholder(value: str) -> bool:
    """Values that are not secrets: variables, placeholders, masks, and plain words."""
    plain_word = value.isalpha() and len(value) < 20
    return plain_word or value[0] in "$<{%[(" or len(set(value.strip("*x."))) <= 1 or value.lower().startswith(
        ("example", "changeme", "redacted", "your")
    )


def scan(text: str) -> list[Finding]:
    """Everything in ``text`` that looks like a secret, in order of position."""
    found: list[Finding] = []
    taken: list[tuple[int, int]] = []
    for kind, pattern in _PATTERNS:
        for m in pattern.finditer(text):
            if not any(s < m.end() and m.start() < e for s, e in taken):
                taken.append((m.start(), m.end()))
                found.append(Finding(kind, m.start(), m.end(), text.count("\n", 0, m.start()) + 1))
    for m in _ASSIGNMENT.finditer(text):
        start, end = m.span("value")
        if _placeholder(m.group("value")) or any(s < end and start < e for s, e in taken):
            continue
        taken.append((start, end))
        found.append(Finding("password or key assignment", start, end, text.count("\n", 0, start) + 1))
    return sorted(found, key=lambda f: f.start)


def describe(findings: list[Finding]) -> str:
    kinds = sorted({f"{f.kind} (line {f.line})" for f in findings})
    return ", ".join(kinds)


def redact(text: str) -> tuple[str, int]:
    """``text`` with every finding replaced by ``[REDACTED:<kind>]``, and how many there were."""
    findings = scan(text)
    for f in reversed(findings):
        text = text[: f.start] + f"[REDACTED:{f.kind}]" + text[f.end :]
    return text, len(findings)
