"""Defaults, overridable in ``.memory/config.toml``.

Every key, its section and its default (README "Configuration" lists the same)::

    [vault]       categories = ["decisions", "lessons", "tasks", "projects", "handoffs"]
                  lock_timeout = 10          # seconds to wait for the memory lock
                  max_entry_bytes = 65536    # an entry's text (UTF-8): a larger one is refused
    [inject]      budget = 2000              # tokens, estimated as ceil(characters / 4)
                  decisions = 3
                  lessons = 2
                  snapshot_messages = 3      # messages of the recovery snapshot
    [search]      limit = 10
                  fuzzy = 0.2                # fraction of a term's length that may be mistyped
                  prefix = true
    [checkpoint]  max_age_days = 7
                  messages = 50
                  max_message_chars = 16000  # a longer message is stored cut, with a marker
    [handoff]     messages = 6
                  chars = 200
                  min_messages = 6           # a session with fewer, no tool use and no insight: no handoff
    [compact]     keep_messages = 20
                  category_cap = 30          # more entries than this ...
                  category_keep = 20         # ... keeps this many, the rest summarised
                  used_days = 30             # entries used (injected, shown) this recently are kept first
                  interval_minutes = 10      # `compact --if-due`
                  tombstone_days = 30        # a removed entry's emptied file is deleted once its removal is this old
    [extract]     max_items = 10
                  chars = 300
"""

from __future__ import annotations

import sys

from pathlib import Path

from memcli.errors import MemcliError

DEFAULT_CATEGORIES = ("decisions", "lessons", "tasks", "projects", "handoffs")


class Config:
    """The settings: these class attributes are the defaults; an instance holds overrides."""

    vault_categories: tuple[str, ...] = DEFAULT_CATEGORIES
    vault_lock_timeout: float = 10.0
    vault_max_entry_bytes: int = 65_536  # an entry's text, in UTF-8 bytes: larger is refused
    inject_budget: int = 2000
    inject_decisions: int = 3
    inject_lessons: int = 2
    inject_snapshot_messages: int = 3
    search_limit: int = 10
    search_fuzzy: float = 0.2
    search_prefix: bool = True
    checkpoint_max_age_days: float = 7.0
    checkpoint_messages: int = 50
    checkpoint_max_message_chars: int = 16_000  # a longer message is cut, with a marker
    handoff_messages: int = 6
    handoff_chars: int = 200
    handoff_min_messages: int = 6  # a session with fewer, no tool use and no insight writes no handoff
    compact_keep_messages: int = 20
    compact_category_cap: int = 30
    compact_category_keep: int = 20
    compact_used_days: float = 30.0  # an entry injected or shown within this many days is kept first
    compact_interval_minutes: float = 10.0
    compact_tombstone_days: float = 30.0  # a removal's emptied file (tombstone) is deleted once committed this long
    extract_max_items: int = 10
    extract_chars: int = 300

    def __init__(self, **overrides: object):
        for name, value in overrides.items():
            if name not in DEFAULTS:
                raise TypeError(f"unknown setting {name}")
            setattr(self, name, value)

    def __repr__(self) -> str:
        return f"Config({ {k: getattr(self, k) for k in DEFAULTS} })"


DEFAULTS = {k: v for k, v in vars(Config).items() if not k.startswith("_") and not callable(v)}


_SECTIONS = ("vault", "inject", "search", "checkpoint", "handoff", "compact", "extract")


def _check(name: str, value: object, default: object, path: Path) -> object:
    where = f"{path}: {name.replace('_', '.', 1)}"
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise MemcliError(f"{where} must be true or false")
        return value
    if isinstance(default, tuple):
        if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
            raise MemcliError(f"{where} must be a non-empty list of names")
        from memcli.storage.paths import validate_agent  # categories follow the same naming rule

        try:
            for v in value:
                validate_agent(v)
        except MemcliError:
            raise MemcliError(f"{where}: {v!r} is not a valid category name") from None
        missing = [c for c in DEFAULT_CATEGORIES if c not in value]
        if missing:
            raise MemcliError(f"{where} may add categories but must keep {', '.join(missing)}")
        return tuple(value)
    if isinstance(default, (int, float)):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise MemcliError(f"{where} must be a number")
        if isinstance(default, int) and not isinstance(value, int):
            raise MemcliError(f"{where} must be a whole number")
        if value < 0 or (value == 0 and name != "search_fuzzy"):
            raise MemcliError(f"{where} must be greater than 0")
        return value
    return value


def load_config(memory_dir: Path) -> Config:
    """The defaults, with what ``config.toml`` in ``memory_dir`` overrides."""
    path = memory_dir / "config.toml"
    from memcli.storage.fsutil import read_inside

    try:
        raw = read_inside(path, memory_dir)
    except IsADirectoryError:
        raise MemcliError(f"{path} is a folder, not a TOML file") from None
    except OSError as exc:
        raise MemcliError(f"cannot read {path}: {exc.strerror}") from None
    if raw is None:
        return Config()
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # Python 3.10
        import tomli as tomllib
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise MemcliError(f"{path} is not valid TOML: {exc}") from None
    defaults = DEFAULTS
    values: dict[str, object] = {}
    for section, table in data.items():
        if section not in _SECTIONS or not isinstance(table, dict):
            raise MemcliError(f"{path}: unknown section [{section}]; known: {', '.join(_SECTIONS)}")
        for key, value in table.items():
            name = f"{section}_{key}"
            if name not in defaults:
                raise MemcliError(f"{path}: unknown key {section}.{key}")
            values[name] = _check(name, value, defaults[name], path)
    return Config(**values)
