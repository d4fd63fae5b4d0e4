"""The secret scanner (memcli/storage/secrets.py) against a plain reading of its own rules.

The scanner avoids work that grows with the square of a text's size (a pasted log with a token on
each line; a long run of ``x-x-x-`` before a key word; many key headers with no end line): claimed
spans are kept in order and searched, line numbers are counted walking forward, a key block's end
line is looked for once, an assignment's name starts where its run of name characters starts.  The
reference below does it the plain way (every span against every earlier one, the key block as one
expression with a lazy ``.*?``, each key line's window searched whole); whatever text hypothesis
builds from secret-shaped pieces, both must find the same things at the same places.
"""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from memcli.storage import secrets

_REFERENCE_PATTERNS = {
    "private key block": re.compile(
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
        r"(?:.*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|(?:[ \t]*\r?\n?[ \t]*[A-Za-z0-9+/=:,\-]+)*)",
        re.S,
    ),
    # a header that may run past another "eyJ"
    "JSON web token": re.compile(r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}"),
    # any start a word may have, not only where a run of name characters starts
    "assignment": re.compile(
        r"(?i)(?<![A-Za-z0-9])[A-Za-z0-9_.\-]*?(?:" + secrets._KEY_WORDS + r")[\"']?"
        r"""\s*[:=]\s*(?:"(?P<dq>[^"\n]+)"|'(?P<sq>[^'\n]+)'|(?P<value>[^\s"'`,;]+))"""
    ),
}


def _reference_assignments(text: str) -> list[re.Match[str]]:
    out, seen = [], set()
    lines = text.split("\n")
    offset = 0
    for n, line in enumerate(lines):
        if re.search(r"(?i)pass|pwd|secret|key|token|credential", line):
            last, filled, end = n + 1, 0, offset + len(line)
            while last < len(lines) and filled < 2:
                filled += bool(lines[last].strip())
                end += 1 + len(lines[last])
                last += 1
            window = text[offset:end]
            if "=" in window or ":" in window:
                for pattern in (_REFERENCE_PATTERNS["assignment"], secrets._ENV_ASSIGNMENT):
                    for m in pattern.finditer(text, offset, end):
                        if m.start() <= offset + len(line) and m.span() not in seen:
                            seen.add(m.span())
                            out.append(m)
        offset += len(line) + 1
    return out


def reference_scan(text: str) -> list[tuple[str, int, int, int]]:
    found: list[tuple[str, int, int, int]] = []
    taken: list[tuple[int, int]] = []

    def claim(kind: str, start: int, end: int) -> None:
        if not any(s < end and start < e for s, e in taken):
            taken.append((start, end))
            found.append((kind, start, end, text.count("\n", 0, start) + 1))

    for kind, lazy in secrets._PATTERNS:
        pattern = _REFERENCE_PATTERNS.get(kind) or re.compile(*lazy._args)
        for m in pattern.finditer(text):
            if "value" not in pattern.groupindex:
                claim(kind, *m.span())
                continue
            value = m.group("value")
            if secrets._placeholder(value, strict=True):
                continue
            if kind == "bearer token" and len(value) < 20 and not any(c.isdigit() for c in value):
                continue
            claim(kind, *m.span("value"))
    if any(f[0] == "AWS access key id" for f in found):
        for m in secrets._AWS_SECRET.finditer(text):
            claim("AWS secret access key", *m.span())
    for m in _reference_assignments(text):
        group = next(g for g in ("dq", "sq", "value") if m.group(g) is not None)
        start, end = m.span(group)
        name = m.group(0)[: m.start(group) - m.start()].rstrip(" \t:=\"'").lstrip("\"'")
        value = m.group(group)
        compound = bool(secrets._COMPOUND.search(name))
        strict = compound and name == name.upper()
        if secrets._placeholder(value, strict):
            continue
        if not strict and not (compound and len(value) >= 4 and not value.isalpha()) and len(value) < 8:
            continue
        claim("password or key assignment", start, end)
    return sorted(found, key=lambda f: f[1])


def reference_redact(text: str) -> str:
    for kind, start, end, _ in reversed(reference_scan(text)):
        text = text[:start] + f"[REDACTED:{kind}]" + text[end:]
    return text


# fmt: off
PIECES = [
    " ", "\n", "\t", "x", "x.", "x-", "_", "=", ":", '"', "'", ",", ";", "!", "/", "@", "a1B2c3D4e5", "hunter22",
    "token", "password", "api_key", "DB_PASS", "SMTP_PWD", "client_secret", "secret", "Token", "pass",
    "-----BEGIN RSA PRIVATE KEY-----", "-----BEGIN PRIVATE KEY-----", "-----END RSA PRIVATE KEY-----",
    "-----END PRIVATE KEY-----", "MIIEvQIBADANBgkqhkiG9w0B+/=", "AKIAABCDEFGHIJKLMNOP",
    "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "https://", "user:", "p4ssw0rd@db",
    "postgres://admin:s3cr3tpw@db.internal", "Bearer ",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abcdefghij12", "ghp_" + "a" * 36, "sk-" + "Ab1" * 8,
    "Authorization: Basic ", "dXNlcjpwYXNzd29yZA==", "AccountKey=" + "Ab1+" * 9, "$SECRET", "<your-token>",
    "changeme", "os.environ['X']",
]
# fmt: on


# the pieces secrets are made of, drawn as often as all the others together
STRUCTURE = [
    "token",
    "DB_PASS",
    "password",
    "=",
    ":",
    '"',
    "\n",
    " ",
    "-----BEGIN PRIVATE KEY-----",
    "-----END PRIVATE KEY-----",
]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(STRUCTURE), st.sampled_from(PIECES)), max_size=40))
@example(["-----BEGIN PRIVATE KEY-----", " x ", "-----END PRIVATE KEY-----", "!", "-----BEGIN PRIVATE KEY-----", "!"])
@example(["token", "=", '"', "a1B2c3D4e5", '"', "password", "=", "hunter22"])
def test_the_scanner_finds_what_the_plain_reading_of_its_rules_finds(pieces: list[str]):
    text = "".join(pieces)
    got = [(f.kind, f.start, f.end, f.line) for f in secrets.scan(text)]
    assert got == reference_scan(text)
    assert secrets.redact(text) == (reference_redact(text), len(got))


def test_the_shapes_that_were_quadratic_are_still_found_whole():
    """The shapes a hostile round timed (a log with a token per line, a run of x- before a key word,
    key headers with no end line): every secret in them is still found, each on its own line."""
    jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
    log = "".join(f"GET /api/x 200 token={jwt}{i}\n" for i in range(300))
    redacted, count = secrets.redact(log)
    assert count == 300 and jwt not in redacted
    assert [f.line for f in secrets.scan(log)] == list(range(1, 301))
    run = "x-" * 3000 + " token=abcdefgh123"
    assert [(f.kind, run[f.start : f.end]) for f in secrets.scan(run)] == [
        ("password or key assignment", "abcdefgh123")
    ]
    headers = "-----BEGIN PRIVATE KEY----- abc ! " * 200
    assert len(secrets.scan(headers)) == 200
