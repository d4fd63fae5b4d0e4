"""Paths of the repository that an entry names, and which of them are gone from the work tree.

A memory that says "the retry lives in src/app/auth.py" is stale once that file is deleted: the
agent should not trust it as it trusts the rest.  A path is a token with at least one ``/`` whose
last part has a file extension with a letter in it (``src/app/auth.py``, ``docs/setup.md``,
``memcli/store.py:120`` -- the line number is dropped); URLs, absolute paths, ``~`` and ``..``
paths, ``a/b`` phrases, dates and version numbers are not paths.  Only the few paths of the
entries shown are looked up (one ``lstat`` each).
"""

from __future__ import annotations

import os
import re

# Compiled when first needed (0.85 ms at import, on every inject: most texts cite no path).
_URL = r"\b[a-z][a-z0-9+.-]*://\S+|\bwww\.\S+"
_PATH = (
    r"(?<![\w/.~:@$%-])"  # not the tail of a longer token, an absolute path, ~ or a URL
    r"((?:\./)?(?:\.?[\w-]+(?:\.[\w-]+)*/)+"  # folders: src/, ./scripts/, .github/, docs.v2/
    r"[\w.-]*\.[A-Za-z][A-Za-z0-9]{0,7})"  # a file with an extension that has a letter: auth.py, ci.yml
    r"(?::\d+(?::\d+)?)?"  # :120 or :120:5
    r"(?![\w/])"
)
_DOMAIN = r"^[\w-]+(\.[\w-]+)*\.(com|org|net|io|dev|ai|co|edu|gov|app|me|info)$"
MAX_PATHS = 8  # paths looked up per entry, at most


def cited_paths(text: str) -> list[str]:
    """The repository paths ``text`` names, in order, each once."""
    if "/" not in text:
        return []
    text = re.sub(_URL, " ", text, flags=re.I)
    found: list[str] = []
    for match in re.finditer(_PATH, text):
        path = match.group(1)
        first = path.split("/", 1)[0]
        if re.match(_DOMAIN, first, re.I) or ".." in path.split("/"):
            continue  # example.com/x.html; ../elsewhere
        path = path[2:] if path.startswith("./") else path
        if path not in found:
            found.append(path)
        if len(found) >= MAX_PATHS:
            break
    return found


def missing(root: str, paths: list[str]) -> list[str]:
    """The paths that do not exist under ``root`` (the folder holding ``.memory/``)."""
    return [p for p in paths if not os.path.lexists(os.path.join(root, p))]


def stale_note(paths: list[str]) -> str:
    """What the block and the listings say of an entry citing ``paths`` that are gone."""
    shown = ", ".join(paths[:3]) + (f" and {len(paths) - 3} more" if len(paths) > 3 else "")
    return f"(cites {shown}, which no longer exist{'s' if len(paths) == 1 else ''})"
