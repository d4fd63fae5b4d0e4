"""Where things live: finding the memory root, validating names, safe paths."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

from memcli.errors import InvalidName, NotInitialized

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

MEMORY_DIR = ".memory"
STATE_DIR = ".vault"
PROJECT_FILE = "_project.md"
CONVERSATIONS_DIR = "conversations"
REMOVED_FILE = ".removed"
PROJECT_NAME = "_project"  # how commands name _project.md where they take an agent

# The instruction files agents already read, in a repository (relative; globs for rule folders):
# what `memcli import` looks for when no source is named, and what provenance counts as reviewed
# text on the trusted branch.
INSTRUCTION_SOURCES = (
    "CLAUDE.md",
    ".claude/CLAUDE.md",
    ".claude/rules/**/*.md",
    "AGENTS.md",
    ".cursor/rules/**/*.mdc",
    ".cursorrules",
    "memory-bank/*.md",
    ".github/copilot-instructions.md",
)

_AGENT_RE = re.compile(r"[a-z0-9][a-z0-9._-]{0,63}")
RESERVED_AGENTS = {CONVERSATIONS_DIR}


def may_be_agent(name: str) -> bool:
    """Whether a name in ``.memory/`` can be an agent's folder: not memcli's own (``.vault``,
    ``_project.md``, ``.removed``, other dot and underscore names) nor the conversations folder.
    The one rule the store, the index's freshness check, the merge driver and provenance share;
    whether the name is a valid id is ``validate_agent``'s to say."""
    return not name.startswith((".", "_")) and name not in RESERVED_AGENTS


def validate_agent(agent: str) -> str:
    """Return the agent id, or raise InvalidName with a clear reason."""
    if agent in RESERVED_AGENTS:
        raise InvalidName(f"invalid agent id {agent!r}: {agent!r} is reserved")
    if not _AGENT_RE.fullmatch(agent or ""):
        raise InvalidName(
            f"invalid agent id {agent!r}: use 1-64 lower-case letters, digits, '.', '_' or '-',"
            " starting with a letter or digit"
        )
    return agent


def validate_category(category: str, categories: tuple[str, ...]) -> str:
    if category not in categories:
        raise InvalidName(f"unknown category {category!r}; valid categories: {', '.join(categories)}")
    return category


class Layout:
    """The paths of one memory tree.  ``root`` is the folder that holds ``.memory/``."""

    __slots__ = ("root",)
    personal = False  # the developer's own memory, outside every repository (``PersonalLayout``)

    def __init__(self, root: Path | str):
        self.root = Path(root)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Layout) and other.root == self.root

    def __hash__(self) -> int:
        return hash(self.root)

    def __repr__(self) -> str:
        return f"Layout({str(self.root)!r})"

    @property
    def memory(self) -> Path:
        return self.root / MEMORY_DIR

    @property
    def state(self) -> Path:
        return self.memory / STATE_DIR

    @property
    def index_dir(self) -> Path:
        return self.state / "index"

    @property
    def checkpoints(self) -> Path:
        return self.state / "checkpoints"

    @property
    def lock_path(self) -> Path:
        return self.state / "lock"

    @property
    def project_file(self) -> Path:
        return self.memory / PROJECT_FILE

    @property
    def conversations(self) -> Path:
        return self.memory / CONVERSATIONS_DIR

    def agent_dir(self, agent: str) -> Path:
        return self.memory / validate_agent(agent)

    def category_file(self, agent: str, category: str) -> Path:
        """The AITEAM-X category file (one file for the whole category): read, never given new entries."""
        return self.agent_dir(agent) / f"{category}.md"

    def category_dir(self, agent: str, category: str) -> Path:
        """The folder of the category's entry files, one file per memory."""
        return self.agent_dir(agent) / category

    def removed_file(self, agent: str) -> Path:
        return self.agent_dir(agent) / REMOVED_FILE

    def exists(self) -> bool:
        return self.memory.is_dir()

    def require(self) -> "Layout":
        if not self.exists():
            raise NotInitialized(f"no {MEMORY_DIR}/ in {self.root} — run `memcli init` first")
        return self


USER_ENV = "MEMCLI_USER_DIR"  # where the personal memory lives, if not in the user's data folder


class PersonalLayout(Layout):
    """The developer's personal memory: a memory tree of its own outside every repository (its
    own lock, index and compaction), in a git repository of its own.  It is made on its first
    write (``upkeep.personal``), so ``require`` never refuses it: what a write needs it makes."""

    __slots__ = ()
    personal = True

    def __repr__(self) -> str:
        return f"PersonalLayout({str(self.root)!r})"

    def require(self) -> "Layout":
        return self


def home_folder() -> str:
    """The home folder: ``$HOME`` (an empty one is no home folder, not ``/`` as Python reads it: "",
    which ``not_personal`` and ``setup --user`` refuse as relative), else the user's entry."""
    home = os.environ.get("HOME")
    if home is not None:
        return home
    return os.path.expanduser("~")


def expand_home(text: str) -> str | None:
    """``text`` with a leading ``~`` or ``~user`` read as the home folder; None when it names the
    home folder and there is none (``home_folder``: Python reads ``~/x`` with an empty HOME as ``/x``)."""
    if text == "~" or text.startswith("~/"):
        home = home_folder()
        return os.path.join(home, text[2:]) if os.path.isabs(home) else None
    return os.path.expanduser(text)


def personal_root() -> Path:
    """The folder that holds the personal ``.memory/``: ``$MEMCLI_USER_DIR``, else ``memcli/personal``
    in the user's data folder (``$XDG_DATA_HOME``, default ``~/.local/share``; on macOS
    ``~/Library/Application Support``).  Computed from the environment alone: no file is looked at."""
    given = os.environ.get(USER_ENV)
    if given:
        path = Path(expand_home(given) or given)  # (no home folder: "~/x" stays relative, which is refused)
        if not path.is_absolute():  # the same folder from every folder: a relative one is under HOME
            path = Path(home_folder()) / path
        return path.parent if path.name == MEMORY_DIR else path  # (relative only when HOME is: not_personal)
    home = home_folder()
    if sys.platform == "darwin":
        base = os.path.join(home, "Library", "Application Support")
    else:
        xdg = os.environ.get("XDG_DATA_HOME", "")
        base = xdg if os.path.isabs(xdg) else os.path.join(home, ".local", "share")  # the XDG spec: relative is invalid
    return Path(base) / "memcli" / "personal"


def personal_layout() -> PersonalLayout:
    return PersonalLayout(personal_root())


def not_personal(root: Path) -> str | None:
    """Why the folder ``root`` must not be used as the personal memory, which lives outside every
    repository (None: it may be): it is a project's (its ``.memory/`` holds ``_project.md``, which
    ``memcli init`` writes and personal memory never has), or it lies inside a project (a folder
    above it holds ``.memory/``) or inside a ``.memory/`` folder, or it is the home folder or a
    folder above it (its git repository would take in every file there: ``git add -A`` and a push
    of the personal memory would publish them), or it is a relative path (``HOME`` is one: the
    memory would be made in each folder a command runs in).  Used as personal memory, a
    project's unreviewed memory would count as the developer's own writing, and ``--user`` writes
    would land in it.  A few ``stat`` calls, made only when a personal memory is there."""
    if not root.is_absolute():  # a relative HOME: a folder of whichever folder a command runs in
        return f"{root} is a relative path (HOME is {os.environ.get('HOME', '')!r}, not an absolute path)"
    real = Path(os.path.realpath(root))
    home = Path(os.path.realpath(home_folder() or "/"))
    if real == home or real in home.parents:  # its git repository would hold everything in the home folder
        return f"{root} is your home folder or above it (name a folder of its own, such as ~/.memcli-personal)"
    if os.path.lexists(real / MEMORY_DIR / PROJECT_FILE):
        return f"{root} is a project's folder (its {MEMORY_DIR}/ holds {PROJECT_FILE})"
    if not os.path.lexists(real / MEMORY_DIR):  # not made yet: the folder must not be somebody's repository
        try:
            names = set(os.listdir(real))
        except OSError:
            names = set()
        if os.path.isfile(real / ".git"):
            return f"{root} is a work tree of another git repository (a linked work tree or a submodule)"
        own = {".git", ".gitignore", ".gitattributes", MEMORY_DIR}  # what a first write makes (and its temp files)
        others = {n for n in names if n not in own and not n.lstrip(".").startswith(("gitignore.", "gitattributes."))}
        if ".git" in names and others:
            return f"{root} is a git repository with files of its own (its next `git add -A` would commit your notes)"
        if {"HEAD", "objects", "refs"} <= names:
            return f"{root} is a bare git repository"
    for folder in (real, *real.parents):
        if folder.name == MEMORY_DIR:
            return f"{root} is inside {folder}"
        if folder != real and os.path.isdir(folder / MEMORY_DIR):
            return f"{root} is inside the project {folder}"
    return None


def _as_personal(layout: Layout) -> Layout:
    """The layout, known as the personal memory when it is that (a command run in its folder; never
    a project's folder that ``MEMCLI_USER_DIR`` names: ``not_personal``)."""
    mine = personal_layout()
    if (
        mine.exists()
        and os.path.realpath(mine.root) == os.path.realpath(layout.root)
        and not_personal(mine.root) is None
    ):
        return mine
    return layout


def _linked_personal(folder: Path) -> PersonalLayout | None:
    """The personal memory, when ``folder``'s ``.memory`` is a symlink to it (it is the personal memory)."""
    if (folder / MEMORY_DIR).is_symlink():
        mine = personal_layout()
        if os.path.realpath(folder / MEMORY_DIR) == os.path.realpath(mine.memory) and mine.exists():
            return mine
    return None


def find_layout(dir_option: str | None = None, *, must_exist: bool = True, start: Path | None = None) -> Layout:
    """The memory tree for ``--dir``/``MEMCLI_DIR``, else the nearest ``.memory/`` upwards from
    ``start`` (default: the current folder), up to the top of the git work tree it is in."""
    explicit = dir_option or os.environ.get("MEMCLI_DIR")
    if explicit:
        path = Path(explicit).expanduser()
        if path.name == MEMORY_DIR and path.is_dir():
            path = path.parent
        layout = _linked_personal(path) or _as_personal(Layout(path.absolute()))
        if must_exist and not path.is_dir():
            source = "--dir" if dir_option else "MEMCLI_DIR"
            raise NotInitialized(f"{source} {explicit}: no such folder")
        return layout.require() if must_exist else layout
    cwd = start or Path.cwd()
    for folder in (cwd, *cwd.parents):
        if (folder / MEMORY_DIR).is_dir():
            return _linked_personal(folder) or _as_personal(Layout(folder))
        if os.path.lexists(folder / ".git"):
            break  # a repository's memory is in it: never one above it (a submodule's, a home folder's)
    if must_exist:
        raise NotInitialized(f"no {MEMORY_DIR}/ found in {cwd} or any folder above it — run `memcli init` first")
    return Layout(cwd)


PERSONAL_LEFT_OUT = "personal memory left out"  # how a warning about it begins (the session hooks say it)


def personal_memory(layout: Layout, warn: Callable[[str], None]) -> PersonalLayout | None:
    """The personal memory to add to a block, or None: none there (one ``stat``, the usual cost of
    all this), one memcli must not use (said once, as a warning), or the very memory the block is
    of (a command run inside the personal folder)."""
    mine = personal_layout()
    if not os.path.isdir(mine.memory) or layout.personal:
        return None
    if os.path.islink(mine.memory):
        warn(f"{PERSONAL_LEFT_OUT}: {mine.memory} is a symlink (memcli keeps memory in a real folder)")
        return None
    why = not_personal(mine.root)
    if why:  # the project's own memory, say: it would count as the developer's own writing
        warn(f"{PERSONAL_LEFT_OUT}: {why}; it must live outside every repository (MEMCLI_USER_DIR)")
        return None
    if os.path.realpath(mine.root) == os.path.realpath(layout.root):
        return None
    return mine
