"""Regular expressions compiled when first used.

Compiling a pattern costs 50-300 us (``re``'s parser is Python).  A module that compiles its
patterns at import pays for all of them on every run, even one that needs none of them: the vault
format's eleven patterns were 9.5 M instructions (about 2 ms) of every search, which parses no
file while the index is current.  ``Patterns`` compiles each on first use; after that it is a plain
attribute (no lookup through a cache on every match, which an index build makes millions of).
"""

from __future__ import annotations

import re


class Patterns:
    """Named patterns (``NAME=SOURCE`` or ``NAME=(SOURCE, FLAGS)``), each compiled on first access."""

    def __init__(self, **sources: str | tuple[str, int]):
        self._sources = sources

    def __getattr__(self, name: str) -> re.Pattern[str]:
        try:
            source = self.__dict__["_sources"][name]
        except KeyError:
            raise AttributeError(name) from None
        text, flags = (source, 0) if isinstance(source, str) else source
        compiled = re.compile(text, flags)
        setattr(self, name, compiled)  # found as an ordinary attribute from now on
        return compiled


class NextMatch:
    """The first match of ``pattern`` in ``text`` at or after a position, asked for positions in
    order: the match found is kept while it is still ahead (and so is there being none further on),
    so a text of many positions asked and few matches is read once, not once per position."""

    __slots__ = ("pattern", "text", "_found", "_searched")

    def __init__(self, pattern: re.Pattern[str], text: str):
        self.pattern, self.text = pattern, text
        self._found: re.Match[str] | None = None
        self._searched = False

    def at_or_after(self, pos: int) -> re.Match[str] | None:
        if not self._searched or (self._found is not None and self._found.start() < pos):
            self._found, self._searched = self.pattern.search(self.text, pos), True
        return self._found
