"""Detect (and redact) text that looks like a secret: keys and tokens must not land in git or prompts."""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator


class _Lazy:
    """A regular expression compiled when first used: most texts pass the needle test and never
    need most of them (compiling them all costs about 10 ms per process)."""

    def __init__(self, pattern: str, flags: int = 0):
        self._args = (pattern, flags)
        self._compiled: re.Pattern[str] | None = None

    def __getattr__(self, name: str):
        if self._compiled is None:
            self._compiled = re.compile(*self._args)
        return getattr(self._compiled, name)


_KEY_HEADER = _Lazy(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")
_KEY_END = r"-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"  # (compiled only where a header is)
_KEY_BODY = _Lazy(r"(?:[ \t]*\r?\n?[ \t]*[A-Za-z0-9+/=:,\-]+)*")  # a block with no end line: its base64 lines
_PATTERNS: list[tuple[str, _Lazy]] = [
    ("private key block", _KEY_HEADER),  # the header: _key_blocks finds where the block ends
    ("AWS access key id", _Lazy(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b")),
    ("GitHub token", _Lazy(r"\bgh[pousr]_[A-Za-z0-9]{36,}\b|\bgithub_pat_[A-Za-z0-9_]{22,}")),
    ("GitLab token", _Lazy(r"\bglpat-[A-Za-z0-9_\-]{20,}")),
    ("Slack token", _Lazy(r"\bxox[abposr]-[A-Za-z0-9-]{10,}")),
    ("Slack webhook", _Lazy(r"https://hooks\.slack\.com/services/[A-Za-z0-9/]{20,}")),
    ("Anthropic API key", _Lazy(r"\bsk-ant-[A-Za-z0-9_\-]{20,}")),
    ("OpenAI-style API key", _Lazy(r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}")),
    ("npm token", _Lazy(r"\bnpm_[A-Za-z0-9]{36}\b")),
    ("PyPI token", _Lazy(r"\bpypi-AgE[A-Za-z0-9_\-]{50,}")),
    ("Hugging Face token", _Lazy(r"\bhf_[A-Za-z0-9]{30,}\b")),
    ("Stripe key", _Lazy(r"\b(?:[rs]k|whsec)_(?:live_|test_)?[0-9A-Za-z]{20,}")),
    ("Google API key", _Lazy(r"\bAIza[0-9A-Za-z_\-]{35}")),
    ("Google OAuth secret", _Lazy(r"\bGOCSPX-[A-Za-z0-9_\-]{20,}|\bya29\.[0-9A-Za-z_\-]{10,}")),
    (
        "Azure key",
        _Lazy(
            r"(?i)\b(?:AccountKey|SharedAccessKey)=[A-Za-z0-9+/]{30,}={0,2}"
            r"|\b[A-Za-z0-9_~.\-]{3}\dQ~[A-Za-z0-9_~.\-]{31,34}\b"
            r"|[?&]sig=[A-Za-z0-9%+/]{30,}={0,2}"
        ),
    ),
    # (a header's characters run to its dot but not past another "eyJ": tried from each eyJ of a run
    # of them, the header read the whole run each time)
    ("JSON web token", _Lazy(r"\beyJ(?:(?!eyJ)[A-Za-z0-9_-]){10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}")),
    # scheme://user:password@host -- the password part is the secret.
    ("credentials in a URL", _Lazy(r"\b[a-zA-Z][a-zA-Z0-9+.\-]{0,31}://[^\s:/@'\"`]*:(?P<value>[^\s@/'\"`]+)@[^\s/]")),
    ("bearer token", _Lazy(r"(?i)\bbearer\s+(?P<value>[A-Za-z0-9\-._~+/]{8,}=*)")),
    ("basic auth credentials", _Lazy(r"(?i)\bauthorization\s*:\s*basic\s+(?P<value>[A-Za-z0-9+/]{8,}={0,2})")),
]
# What must appear in a text for each pattern to match: a plain substring test (fast) spares the
# regular expression on text that cannot hold that kind of secret.  Lower-case needles are looked
# for in the lower-cased text.
_NEEDLES: dict[str, tuple[str, ...]] = {
    "private key block": ("-----BEGIN",),
    "AWS access key id": ("AKIA", "ASIA", "AGPA", "AIDA", "AROA", "ANPA", "ANVA", "AIPA"),
    "GitHub token": ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    "GitLab token": ("glpat-",),
    "Slack token": ("xox",),
    "Slack webhook": ("hooks.slack.com",),
    "Anthropic API key": ("sk-ant-",),
    "OpenAI-style API key": ("sk-",),
    "npm token": ("npm_",),
    "PyPI token": ("pypi-AgE",),
    "Hugging Face token": ("hf_",),
    "Stripe key": ("sk_", "rk_", "whsec_"),
    "Google API key": ("AIza",),
    "Google OAuth secret": ("GOCSPX-", "ya29."),
    "Azure key": ("accountkey=", "sharedaccesskey=", "q~", "sig="),
    "JSON web token": ("eyJ",),
    "credentials in a URL": ("://",),
    "bearer token": ("bearer",),
    "basic auth credentials": ("authorization",),
}
_LOWER_NEEDLES = {"Azure key", "bearer token", "basic auth credentials"}
_KEY_WORD_GATE = _Lazy(r"(?i)pass|pwd|secret|key|token|credential")  # in every key word below
_ENV_GATE = _Lazy(r"(?i)_(?:pass|pwd)")  # in every name _ENV_ASSIGNMENT takes

_KEY_WORDS = (
    r"password|passwd|pwd|secret|secret[_-]?key|api[_-]?key|access[_-]?key|access[_-]?token"
    r"|auth[_-]?token|authtoken|client[_-]?secret|private[_-]?key|token|credentials?"
)
# `password = "…"`, `API_KEY: …`, `aws_secret_access_key=…`, `//registry/:_authToken=…`: the value is the secret.
_ASSIGNMENT = _Lazy(
    r"(?i)(?<![A-Za-z0-9_.\-])[A-Za-z0-9_.\-]*?(?:" + _KEY_WORDS + r")[\"']?"
    r"""\s*[:=]\s*(?:"(?P<dq>[^"\n]+)"|'(?P<sq>[^'\n]+)'|(?P<value>[^\s"'`,;]+))"""
)
# DB_PASS=…, SMTP_PASS: … -- an environment-style name alone says "secret" where prose would not.
_ENV_ASSIGNMENT = _Lazy(
    r"""(?i)(?<![A-Za-z0-9_])(?P<name>[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_(?:PASS|PWD))["']?\s*[:=]\s*"""
    r"""(?:"(?P<dq>[^"\n]+)"|'(?P<sq>[^'\n]+)'|(?P<value>[^\s"'`,;]+))"""
)
# A name that ends in a key word after something else: db_password, PGPASSWORD, client_secret, SMTP_PASS.
_COMPOUND = _Lazy(
    r"(?i)[A-Za-z0-9][_.\-]?(?:password|passwd|pass|pwd|secret|token|api[_-]?key|access[_-]?key"
    r"|private[_-]?key|credentials?)$"
)
# The secret half of an AWS key pair: 40 characters of base64 with both cases and a digit, next to an AKIA id.
_AWS_SECRET = _Lazy(
    r"(?<![A-Za-z0-9/+])(?=[A-Za-z0-9/+]*[a-z])(?=[A-Za-z0-9/+]*[A-Z])(?=[A-Za-z0-9/+]*\d)"
    r"[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+])"
)


class Finding:
    """One thing that looks like a secret: what kind, where (characters), on which line."""

    __slots__ = ("kind", "start", "end", "line")

    def __init__(self, kind: str, start: int, end: int, line: int):
        self.kind, self.start, self.end, self.line = kind, start, end, line

    def __repr__(self) -> str:
        return f"Finding({self.kind!r}, {self.start}, {self.end}, line {self.line})"


def _placeholder(value: str, strict: bool = False) -> bool:
    """Values that are not secrets: variables, placeholders, masks, code, and (unless ``strict``) plain words."""
    value = value.strip()
    if not value:
        return True
    plain_word = not strict and value.replace("-", "").replace(" ", "").isalpha() and len(value) < 20
    code = "(" in value or value.endswith(")") or value.startswith(("os.", "process.", "env.", "self.", "config."))
    return (
        plain_word
        or code
        or value[0] in "$<{%[("
        or len(set(value.strip("*x.•"))) <= 1
        or value.lower().startswith(
            ("example", "changeme", "redacted", "your", "none", "null", "true", "false", "[redacted", "***")
        )
    )


def _assignments(text: str) -> list[re.Match[str]]:
    """Matches of the assignment patterns, looked for only in windows around lines that name a key
    word: the line and the lines after it through the second one that is not blank (the separator
    and the value may each follow line breaks, as the patterns' ``\\s*`` allows).  Each window is
    searched in place (``pos``/``endpos``), so positions and look-behinds are those of the text."""
    if not _KEY_WORD_GATE.search(text):
        return []
    out: list[re.Match[str]] = []
    seen: set[tuple[int, int]] = set()
    lines = text.split("\n")
    offset = 0
    for n, line in enumerate(lines):
        if _KEY_WORD_GATE.search(line):
            last, filled, end = n + 1, 0, offset + len(line)
            while last < len(lines) and filled < 2:  # a separator line, then a value line, may follow
                filled += bool(lines[last].strip())
                end += 1 + len(lines[last])
                last += 1
            window = text[offset:end]
            if "=" in window or ":" in window:
                for gate, pattern in ((_KEY_WORD_GATE, _ASSIGNMENT), (_ENV_GATE, _ENV_ASSIGNMENT)):
                    pos, line_end = offset, offset + len(line)
                    # matches that start on this line (a later line's are its own window's); a match's
                    # name, key word included, is on the line it starts on, so none is left on this
                    # line once the rest of it names no key word
                    while (
                        gate.search(text, pos, line_end)
                        and (m := pattern.search(text, pos, end))
                        and m.start() <= line_end
                    ):
                        if m.span() not in seen:  # found once
                            seen.add(m.span())
                            out.append(m)
                        pos = max(m.end(), m.start() + 1)
        offset += len(line) + 1
    return out


class _Taken:
    """The spans already claimed by a finding: disjoint, kept in order, so whether a new span overlaps
    one is a binary search, not a walk over every earlier finding (a log with a token on each of its
    24,000 lines made that walk quadratic: 52 s for 2.5 MB)."""

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []

    def claim(self, start: int, end: int) -> bool:
        """Claim ``start:end`` unless it overlaps a span already claimed; whether it was claimed."""
        i = bisect.bisect_left(self.starts, end) - 1  # the last span starting before ``end``
        if i >= 0 and self.ends[i] > start:  # disjoint spans in order: its end is the furthest
            return False
        i = bisect.bisect_left(self.starts, start)
        self.starts.insert(i, start)
        self.ends.insert(i, end)
        return True


def _key_blocks(text: str) -> Iterator[tuple[int, int]]:
    """Private key blocks: from a header to the first end line after it, or, with none, to the end of
    the base64 lines that follow.  The end lines are looked for with ``NextMatch``, so a text of many
    headers and no end line is read once, not once per header."""
    from memcli.patterns import NextMatch

    pos, end_lines = 0, NextMatch(re.compile(_KEY_END), text)
    while header := _KEY_HEADER.search(text, pos):
        end_line = end_lines.at_or_after(header.end())
        pos = end_line.end() if end_line is not None else _KEY_BODY.match(text, header.end()).end()
        yield header.start(), pos


def _spans(kind: str, pattern: _Lazy, text: str) -> Iterator[tuple[int, int]]:
    """Where ``pattern`` finds a secret of its kind: the match, or its ``value`` group when it has one
    (which is then not a placeholder: ``Bearer <token>``, ``https://user:$PASSWORD@host``)."""
    if kind == "private key block":
        yield from _key_blocks(text)
        return
    for m in pattern.finditer(text):
        if "value" not in pattern.groupindex:
            yield m.span()
            continue
        value = m.group("value")
        if _placeholder(value, strict=True):
            continue
        if kind == "bearer token" and len(value) < 20 and not any(c.isdigit() for c in value):
            continue  # "Bearer authentication" is prose; a short token has digits
        yield m.span("value")


def scan(text: str) -> list[Finding]:
    """Everything in ``text`` that looks like a secret, in order of position."""
    spans: list[tuple[int, int, str]] = []
    taken = _Taken()
    lower = text.lower()
    for kind, pattern in _PATTERNS:
        haystack = lower if kind in _LOWER_NEEDLES else text
        if any(needle in haystack for needle in _NEEDLES[kind]):
            spans += ((start, end, kind) for start, end in _spans(kind, pattern, text) if taken.claim(start, end))
    if any(kind == "AWS access key id" for _, _, kind in spans):
        for m in _AWS_SECRET.finditer(text):
            if taken.claim(*m.span()):
                spans.append((m.start(), m.end(), "AWS secret access key"))
    for m in _assignments(text):
        group = next(g for g in ("dq", "sq", "value") if m.group(g) is not None)
        start, end = m.span(group)
        name = m.group(0)[: m.start(group) - m.start()].rstrip(" \t:=\"'").lstrip("\"'")
        value = m.group(group)
        compound = bool(_COMPOUND.search(name))  # db_password, PGPASSWORD, client_secret: not a bare word
        strict = compound and name == name.upper()  # DB_PASSWORD="pw": short and plain still counts
        if _placeholder(value, strict):
            continue
        if not strict and not (compound and len(value) >= 4 and not value.isalpha()) and len(value) < 8:
            continue
        if taken.claim(start, end):
            spans.append((start, end, "password or key assignment"))
    spans.sort()
    found: list[Finding] = []
    line, counted = 1, 0  # line numbers counted once, walking forward through the sorted spans
    for start, end, kind in spans:
        line += text.count("\n", counted, start)
        counted = start
        found.append(Finding(kind, start, end, line))
    return found


def describe(findings: list[Finding]) -> str:
    kinds = sorted({f"{f.kind} (line {f.line})" for f in findings})
    return ", ".join(kinds)


def redact(text: str) -> tuple[str, int]:
    """``text`` with every finding replaced by ``[REDACTED:<kind>]``, and how many there were."""
    findings = scan(text)
    if not findings:
        return text, 0
    parts: list[str] = []
    kept = 0
    for f in findings:
        parts += (text[kept : f.start], f"[REDACTED:{f.kind}]")
        kept = f.end
    parts.append(text[kept:])
    return "".join(parts), len(findings)
