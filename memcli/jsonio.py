"""JSON in bulk.  orjson reads and writes JSON several times faster than the standard library, but
importing it costs about 20 ms here (the standard library's json: about 2 ms), so it pays only
for large volumes: measured, reading 20,000 conversation lines takes 76 ms with json and 18 ms
with orjson, and printing 20,000 entries as indented JSON 81 ms and 2 ms.  Below ``BULK`` items
the standard library is used; ``search`` and ``inject`` never import orjson.  Output is the same
either way (UTF-8, two-space indent); anything orjson refuses (lone surrogates, integers beyond
64 bits, which it would read as floats) goes through the standard library.
"""

from __future__ import annotations

import json
import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

BULK = 5_000  # items from which orjson's speed pays for its import
_LONG_NUMBER = re.compile(rb"\d{19}")  # orjson reads integers beyond 64 bits as floats: not those lines


def _orjson():
    try:
        import orjson
    except ImportError:  # an install without it: the standard library does everything
        return None
    return orjson


def loads_lines(lines: list[bytes]) -> list[Any]:
    """Each line's JSON value, or None where a line is not JSON."""
    fast = _orjson() if len(lines) >= BULK else None
    out: list[Any] = []
    for line in lines:
        value = None
        if fast is not None and not _LONG_NUMBER.search(line):
            try:
                out.append(fast.loads(line))
                continue
            except (fast.JSONDecodeError, RecursionError):
                pass  # lone surrogates, huge numbers: the standard library decides
        try:
            value = json.loads(line)
        except (ValueError, RecursionError):
            value = None
        out.append(value)
    return out


def pretty(data: Any) -> str:
    """``data`` as indented JSON text (non-ASCII kept)."""
    if isinstance(data, list) and len(data) >= BULK:
        fast = _orjson()
        if fast is not None:
            try:
                return fast.dumps(data, option=fast.OPT_INDENT_2).decode("utf-8")
            except (TypeError, fast.JSONEncodeError):
                pass
    return json.dumps(data, indent=2, ensure_ascii=False)
