"""Defaults, overridable in ``.memory/config.toml``: ``Config``'s attributes, with ``NOTES`` on
what they mean.  This is their one home: the README's "Configuration" block is made from it
(``python -m memcli.cli.docs``, checked by ``tests/test_docs.py``)."""

from __future__ import annotations

import sys

from pathlib import Path

from memcli.errors import MemcliError

DEFAULT_CATEGORIES = ("decisions", "lessons", "tasks", "projects", "handoffs")


class Config:
    """The settings: these class attributes are the defaults; an instance holds overrides."""

    vault_categories: tuple[str, ...] = DEFAULT_CATEGORIES
    vault_lock_timeout: float = 10.0
    vault_max_entry_bytes: int = 65_536
    inject_budget: int = 2000
    inject_decisions: int = 3
    inject_lessons: int = 2
    inject_snapshot_messages: int = 3
    search_limit: int = 10
    search_fuzzy: float = 0.2
    search_prefix: bool = True
    checkpoint_max_age_days: float = 7.0
    checkpoint_messages: int = 50
    checkpoint_max_message_chars: int = 16_000
    handoff_messages: int = 6
    handoff_chars: int = 200
    handoff_min_messages: int = 6
    compact_keep_messages: int = 20
    compact_category_cap: int = 30
    compact_category_keep: int = 20
    compact_used_days: float = 30.0
    compact_interval_minutes: float = 10.0
    compact_tombstone_days: float = 30.0
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
SECTIONS = ("vault", "inject", "search", "checkpoint", "handoff", "compact", "extract")
NOTES = {
    "vault_categories": "may add more, not remove",
    "vault_lock_timeout": "seconds",
    "vault_max_entry_bytes": "an entry's text (UTF-8); a larger one is refused",
    "inject_budget": "tokens, ceil(characters / 4)",
    "inject_snapshot_messages": "messages of the recovery snapshot",
    "search_fuzzy": "share of a word's length that may be mistyped (at most 2 edits)",
    "checkpoint_max_message_chars": "a longer message is stored cut, with a marker",
    "handoff_min_messages": "a session with fewer messages, no tool use and no insight writes no handoff",
    "compact_category_cap": "a category with more entries than this ...",
    "compact_category_keep": "... keeps this many, the rest summarised",
    "compact_used_days": "entries injected or shown this recently are kept first when a category is capped",
    "compact_interval_minutes": "`compact --if-due`",
    "compact_tombstone_days": "a removed entry's emptied file is deleted once its removal is committed this long",
}


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
        if section not in SECTIONS or not isinstance(table, dict):
            raise MemcliError(f"{path}: unknown section [{section}]; known: {', '.join(SECTIONS)}")
        for key, value in table.items():
            name = f"{section}_{key}"
            if name not in defaults:
                raise MemcliError(f"{path}: unknown key {section}.{key}")
            values[name] = _check(name, value, defaults[name], path)
    return Config(**values)
