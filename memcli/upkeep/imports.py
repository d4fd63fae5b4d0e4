"""`memcli import`: the memory agents already keep, moved in.

Sources (``SOURCES``): ``CLAUDE.md``, ``.claude/CLAUDE.md`` and ``.claude/rules/**/*.md``;
``AGENTS.md``; ``.cursor/rules/**/*.mdc`` and ``.cursorrules``; Cline's ``memory-bank/*.md``;
``.github/copilot-instructions.md``; and Claude Code's auto memory folder (``MEMORY.md`` and its
topic files, outside the repository: ``claude_memory_folder``).  With no source named, every one of
them found in the repository is imported into the project's memory (``memcli import --dry-run``
first shows what), but the auto memory: by Claude Code's own docs it is machine-local and "only
you", so it is left out, with a line saying so.  ``memcli import --user`` imports into the
developer's personal memory, and with no source named reads what is theirs alone: the auto memory
and the user-level ``CLAUDE.md`` of Claude Code's folder (``personal_sources``).  Named, any source
goes where it is told (the auto memory folder into the project's memory too: the user asked).

**Units.**  A rule file (``.mdc``, ``.claude/rules``, an auto-memory topic file with front matter)
is one entry.  Any other file is split (``split_markdown``): each list item is an entry (with its
nested lines), and the prose of each section (the text under a heading that is not a list) is one
entry; a lead-in line that ends with ``:`` heads each item of the list after it.  Headings give a tag
(``## Code style`` -> ``#code-style``), and every entry is tagged with where it came from
(``#from-claude-md``).  memcli's own sections (``memcli setup``'s, ``memcli export``'s) and HTML
comments are never read, nor the link lines of ``MEMORY.md`` that point at its topic files (those
files are read themselves).

**The category rule** (``category``), first match wins:

1. a checkbox item (``- [ ]``, ``- [x]``) is a task;
2. the nearest heading that names a kind decides: tasks (todo, next steps, what's left, backlog,
   roadmap, open questions, tasks), lessons (lessons, learned, gotchas, pitfalls, caveats,
   troubleshooting, known issues, debugging, mistakes, warnings, quirks, feedback), decisions
   (decisions, architecture, design, conventions, style, rules, guidelines, patterns, standards,
   principles, ADRs, policies, preferences, do's and don'ts), projects (overview, about, context,
   project, product, purpose, structure, layout, setup, commands, build, environment, stack, tech,
   dependencies, workflow, deployment, brief); a list item under a tasks heading is stored as an
   open task (``- [ ] …``);
3. else the source decides: a rule file, and a list item of an instruction file, is a decision (a
   standing rule); the prose of an instruction file is project context; Cline's files by name
   (``systemPatterns`` decisions, the others projects); an auto-memory file by its ``type``
   (feedback: lessons; project, reference: projects; user: decisions), else a lesson.

A Cursor rule with ``alwaysApply: true`` is pinned (memcli's standing rules).

**Idempotent.**  An entry an import adds keeps a mark of the source text (``import_tag``), which
edits, supersede, archive and compaction summaries keep: a unit whose mark the agent's memory
holds is not added again.  Nor is a unit that the memory already holds (the same text, or nearly:
``capture.copies.is_copy``, one word changed in a sentence of twenty), archived entries included.
An entry you do not want back, archive (``memcli archive``): one removed with ``rm`` comes back
with the next import of its source.  A source line that changed more than that is a new memory:
it is added beside the old entry, which stays until you remove it.

**Checks.**  Every source is read, split and checked before the first write; a missing file, a
folder or device, a file above ``MAX_SOURCE_BYTES``, one that is not UTF-8 text, a symlink out of the
repository (or out of the auto memory folder), a malformed front matter, or an invisible character
anywhere (text its reader never saw: U+E0000 tag characters spell whole sentences) refuses the
whole import in one line.  Each unit then goes through ``add``'s own checks (``api.add``: size,
secrets, the content rules): a unit one of them refuses is reported in one line and skipped.

**Provenance.**  What an import adds is the user's own write, so nothing holds it back later: the
check happens here.  A unit of a file in the repository that holds a line nobody reviewed (a line
a foreign commit added and the trusted branch's version of the file lacks:
``provenance.foreign_lines``, the memory's own rule applied to the source) is skipped with the
commit and its author, and so is a unit that their version of the file holds and the trusted
branch's does not (taking a line out or moving one adds nothing of theirs, yet a lead-in "Never:"
gone makes the items below it rules); it comes in once the change is on the trusted branch, whichever
memory it goes into (``--user`` too).  Files outside the repository (Claude Code's auto memory,
``~/.claude/CLAUDE.md``) are the user's own.
"""

from __future__ import annotations

import contextlib
import os
import re
import textwrap
from pathlib import Path

from memcli.errors import MemcliError
from memcli.storage.injected_block import without_comments
from memcli.storage.paths import INSTRUCTION_SOURCES, expand_home, home_folder

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memcli.api import Memory
    from memcli.capture.personal import Finder
    from memcli.storage.paths import Layout
    from memcli.storage.store import Store

MAX_SOURCE_BYTES = 1_048_576  # an instruction file is a page or two; 1 MB is a log, a dump, not memory
MAX_FILES = 500  # files one import reads at most (a folder of thousands is not an agent's memory)

# kind -> (tag, what it is)
KINDS = {
    "claude-md": ("from-claude-md", "Claude Code's CLAUDE.md"),
    "claude-rules": ("from-claude-rules", "a Claude Code rule (.claude/rules)"),
    "agents-md": ("from-agents-md", "AGENTS.md"),
    "cursor-rules": ("from-cursor-rules", "a Cursor rule (.mdc)"),
    "cursorrules": ("from-cursorrules", "Cursor's .cursorrules"),
    "memory-bank": ("from-memory-bank", "Cline's memory bank"),
    "copilot": ("from-copilot-instructions", "GitHub Copilot's instructions"),
    "claude-memory": ("from-claude-memory", "Claude Code's auto memory"),
    "markdown": ("from-markdown", "a Markdown file"),
}
RULE_KINDS = {"claude-rules", "cursor-rules"}  # one file, one entry
# Formats whose files may open with front matter; in the others a leading "---" is a thematic break
# and "Warning: never force-push" below it is a rule, not a key.
FRONT_MATTER_KINDS = {*RULE_KINDS, "claude-memory", "markdown"}
INSTRUCTION_KINDS = {"claude-md", "agents-md", "cursorrules", "copilot", "markdown"}

SOURCES = INSTRUCTION_SOURCES  # the sources looked for when none is named
SETUP_FILE_MARK = "<!-- written by `memcli "  # a file memcli setup owns whole (the Cursor rule)

CLINE = {"systempatterns": "decisions"}  # the other memory-bank files: projects

_HEADING_KINDS = (
    (
        "tasks",
        r"to-?dos?|to do|next steps?|what'?s left|remaining|backlog|roadmap|open questions?|tasks?|pending"
        r"|in progress|follow-?ups?",
    ),
    (
        "lessons",
        r"lessons?|learn(?:ed|ings?|t)?|gotchas?|pitfalls?|caveats?|troubleshoot(?:ing)?|known issues?|debug(?:ging)?"
        r"|mistakes?|warnings?|quirks?|feedback|traps?",
    ),
    (
        "decisions",
        r"decisions?|architecture|design|conventions?|style|rules?|guidelines?|patterns?|standards?|principles?"
        r"|adrs?|polic(?:y|ies)|preferences?|do'?s|don'?ts?|must",
    ),
    (
        "projects",
        r"overview|about|context|projects?|product|purpose|structure|layout|setup|commands?|build(?:ing)?"
        r"|environment|stack|tech(?:nolog(?:y|ies))?|dependenc(?:y|ies)|workflows?|deploy(?:ment|ing)?|brief",
    ),
)
_KIND_RES = [(cat, re.compile(rf"\b(?:{words})\b")) for cat, words in _HEADING_KINDS]
MEMORY_TYPES = {"feedback": "lessons", "project": "projects", "reference": "projects", "user": "decisions"}

_FENCE = re.compile(r"^[ \t]{0,3}(```+|~~~+)")
_HEADING = re.compile(r"^[ \t]{0,3}(#{1,6})[ \t]+(.*?)[ \t#]*$")
_SETEXT = re.compile(r"^[ \t]{0,3}(=+|-+)[ \t]*$")
_ITEM = re.compile(r"^([ \t]*)([-*+]|\d{1,9}[.)])([ \t]+|$)(.*)$")
_CHECKBOX = re.compile(r"^\[([ xX])\][ \t]+")
_RULE_LINE = re.compile(r"^[ \t]{0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")  # a thematic break, not an item
_LINK_ITEM = re.compile(r"^\[[^\]]*\]\(([^)\s]+\.md)\)")


class Unit:
    """One memory found in a source: its text, the line it starts on, its category and tags."""

    __slots__ = ("path", "shown", "line", "text", "category", "tags", "whole", "kind")

    def __init__(
        self,
        path: Path,
        shown: str,
        line: int,
        text: str,
        category: str,
        tags: list[str],
        whole: bool = False,
        kind: str = "markdown",
    ):
        self.path, self.shown, self.line, self.text, self.category, self.tags = path, shown, line, text, category, tags
        self.whole = whole  # the whole file is this one memory (a rule file)
        self.kind = kind  # the source's kind (``KINDS``)

    @property
    def says(self) -> tuple[str, str, tuple[str, ...]]:
        """What the unit would store (text, category, tags), wherever in its file it stands."""
        return self.text, self.category, tuple(self.tags)

    @property
    def where(self) -> str:
        return f"{self.shown}:{self.line}"


class Piece:
    """What ``split_markdown`` finds: a list item or the prose of a section, with its headings."""

    __slots__ = ("kind", "line", "text", "headings", "checkbox")

    def __init__(self, kind: str, line: int, text: str, headings: list[tuple[int, str]], checkbox: bool = False):
        self.kind, self.line, self.text, self.headings, self.checkbox = kind, line, text, headings, checkbox

    def __repr__(self) -> str:
        return f"Piece({self.kind!r}, {self.line}, {self.text!r}, {self.headings!r})"


# ---------------------------------------------------------------------------------- splitting


def split_markdown(text: str) -> list[Piece]:
    """Markdown split at its natural units: each list item (with its nested lines and any code block
    inside it), and each section's prose.  ``headings``: the headings above, outermost first.
    Never raises; every list item's text is in some piece."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    pieces: list[Piece] = []
    headings: list[tuple[int, str]] = []
    prose: list[tuple[int, str]] = []  # (line number, text) of the current section's prose
    item: list[str] = []
    item_line = item_indent = 0
    lead = ""  # a line ending with ':' right before a list: it heads each item of that list
    fence: str | None = None
    blank_before = True

    def flush_item() -> None:
        nonlocal item
        body = _dedent("\n".join(item).strip("\n")) if item else ""
        if body.strip():
            checkbox = bool(_CHECKBOX.match(body))
            shown = body if checkbox or not lead else f"{lead} {body}"
            pieces.append(Piece("item", item_line, shown, headings, checkbox))
        item = []

    def flush_prose() -> None:
        nonlocal prose
        body = "\n".join(t for _, t in prose).strip("\n")
        if any(t.strip() and not _RULE_LINE.match(t) for _, t in prose):  # not only rules (---)
            first = next(n for n, t in prose if t.strip())
            pieces.append(Piece("prose", first, textwrap.dedent(body).strip("\n"), headings))
        prose = []

    def new_heading(level: int, title: str) -> None:
        nonlocal headings, lead
        flush_item()
        flush_prose()
        lead = ""
        headings = [(lv, h) for lv, h in headings if lv < level] + [(level, title.strip())]

    for number, line in enumerate(lines, 1):
        indent = len(line.expandtabs(4)) - len(line.expandtabs(4).lstrip())
        if fence is not None:  # inside a fenced code block: its lines belong to what holds it
            if item:
                item.append(line)
            else:
                prose.append((number, line))
            if line.strip().startswith(fence) and not line.strip().lstrip(fence[0]).strip():
                fence = None
            continue
        opened = _FENCE.match(line)
        if opened:
            fence = opened.group(1)
            if item and (indent > item_indent or not blank_before):
                item.append(line)
            else:
                flush_item()
                lead = ""
                prose.append((number, line))
            blank_before = False
            continue
        heading = _HEADING.match(line)
        if heading and not (item and indent > item_indent):
            new_heading(len(heading.group(1)), heading.group(2))
            blank_before = True
            continue
        if not item and prose and not blank_before and _SETEXT.match(line) and prose[-1][1].strip():
            _, title = prose.pop()
            new_heading(1 if line.strip()[0] == "=" else 2, title)
            blank_before = True
            continue
        found = _ITEM.match(line)
        if found and not _RULE_LINE.match(line):
            if item and indent > item_indent:  # a nested item: part of the one above
                item.append(line)
                blank_before = False
                continue
            if not item:  # a list starts: a lead-in line right above it heads its items
                lead = ""
                while prose and not prose[-1][1].strip():
                    prose.pop()
                if prose and prose[-1][1].rstrip().endswith(":") and not _CHECKBOX.match(found.group(4)):
                    lead = " ".join(prose.pop()[1].split())
            flush_item()
            item = [line]
            item_line, item_indent = number, indent
            blank_before = False
            continue
        if not line.strip():
            if item:
                item.append(line)
            elif prose:
                prose.append((number, line))
            blank_before = True
            continue
        if item:
            if indent > item_indent or not blank_before:  # a continuation (indented, or no blank line)
                item.append(line)
                blank_before = False
                continue
            flush_item()
            lead = ""
        prose.append((number, line))
        blank_before = False
    flush_item()
    flush_prose()
    pieces.sort(key=lambda p: p.line)
    return pieces


def _dedent(text: str) -> str:
    """A list item's text without its marker's indent: the item's own lines as written."""
    first, _, rest = text.partition("\n")
    first = first.strip()
    found = _ITEM.match(first)
    if found and not _RULE_LINE.match(first):
        first = found.group(4)
    return first + ("\n" + textwrap.dedent(rest) if rest else "") if found else textwrap.dedent(text).strip("\n")


# ---------------------------------------------------------------------------------- front matter


def front_matter(text: str, shown: str, strict: bool) -> tuple[dict[str, object], str, int]:
    """The YAML-ish front matter of a rule file (``key: value`` lines and ``- item`` lists), the text
    after it, and how many lines it took.  ``strict``: a front matter that does not parse is an error
    (else the text is read as it is: a ``---`` line is a thematic break)."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return {}, text, 0
    end = next((n for n in range(1, len(lines)) if lines[n].strip() == "---"), None)
    if end is None:
        if strict:
            raise MemcliError(
                f"{shown}: the front matter opened on line 1 is never closed with '---'; nothing imported"
            )
        return {}, text, 0
    data: dict[str, object] = {}
    key = None
    for n in range(1, end):
        raw = lines[n]
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        pair = re.match(r"^([A-Za-z_][\w-]*)[ \t]*:(?:[ \t]+(.*?))?[ \t]*$", raw)
        listed = re.match(r"^[ \t]+-[ \t]+(.*?)[ \t]*$", raw) or re.match(r"^-[ \t]+(.*?)[ \t]*$", raw)
        if pair:
            key = pair.group(1)
            value = _scalar(pair.group(2) or "")
            data[key] = [] if value == "" else value
        elif listed and key is not None and isinstance(data.get(key), list):
            items = data[key]
            assert isinstance(items, list)
            items.append(_scalar(listed.group(1)))
        else:
            if strict:
                raise MemcliError(
                    f"{shown}: malformed front matter on line {n + 1} (expected 'key: value'); nothing imported"
                )
            return {}, text, 0
    return data, "\n".join(lines[end + 1 :]), end + 1


def _scalar(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


def _truth(data: dict[str, object], key: str, shown: str) -> bool:
    value = data.get(key)
    if value is None:
        return False
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    raise MemcliError(f"{shown}: {key} in the front matter must be true or false, not {value!r}; nothing imported")


def _globs(data: dict[str, object], key: str) -> list[str]:
    value = data.get(key)
    if isinstance(value, list):
        return [str(v) for v in value if str(v).strip()]
    if isinstance(value, str) and value.strip():
        stripped = value.strip().strip("[]")
        return [g.strip().strip("'\"") for g in stripped.split(",") if g.strip()]
    return []


# ---------------------------------------------------------------------------------- categories


def slug(heading: str) -> str:
    """A heading as a tag: lower-case ASCII words joined by '-' (empty if none)."""
    heading = re.sub(r"[`*_\[\]()]", "", heading)
    return re.sub(r"[^a-z0-9]+", "-", heading.lower()).strip("-")[:40].strip("-")


def heading_category(headings: list[tuple[int, str]]) -> str | None:
    """The category the nearest heading that names one gives (rule 2)."""
    for _, heading in reversed(headings):
        lower = heading.lower().replace("\u2019", "'")
        for category, pattern in _KIND_RES:
            if pattern.search(lower):
                return category
    return None


def category(kind: str, stem: str, piece: Piece, memory_type: str | None = None) -> str:
    """The category of a piece of a source (the rule in this module's docstring)."""
    if piece.checkbox:
        return "tasks"
    found = heading_category(piece.headings)
    if found:
        return found
    if kind == "memory-bank":
        return CLINE.get(stem.lower(), "projects")
    if kind == "claude-memory":
        return MEMORY_TYPES.get((memory_type or "").lower(), "lessons")
    if kind in RULE_KINDS:
        return "decisions"
    return "decisions" if piece.kind == "item" else "projects"


# ---------------------------------------------------------------------------------- sources


def classify(path: Path) -> str | None:
    """The kind of source a file is, by its name and place; None if it is not one."""
    name, parts = path.name, path.parts
    if name in ("CLAUDE.md", "CLAUDE.local.md"):
        return "claude-md"
    if name == "AGENTS.md":
        return "agents-md"
    if name == "copilot-instructions.md":
        return "copilot"
    if name == ".cursorrules":
        return "cursorrules"
    if path.suffix == ".mdc":
        return "cursor-rules"
    if path.suffix == ".md":
        for n in range(len(parts) - 1):
            if parts[n] == ".claude" and parts[n + 1] == "rules":
                return "claude-rules"
        if path.parent.name == "memory-bank":
            return "memory-bank"
        if name == "MEMORY.md" or (path.parent / "MEMORY.md").exists():
            return "claude-memory"
        return "markdown"
    if path.suffix in (".markdown", ".txt"):
        return "markdown"
    return None


def sanitized(path: str) -> str:
    """A folder's name under ``~/.claude/projects/``: its absolute path with every character that is
    not an ASCII letter or digit written '-' (``/home/me/my_app`` -> ``-home-me-my-app``).  As
    Claude Code's JavaScript does it, by UTF-16 code unit: a character beyond U+FFFF (an emoji) is
    two of them, so two '-'."""
    return re.sub(r"[^A-Za-z0-9]", lambda m: "--" if ord(m.group()) > 0xFFFF else "-", path)


CLAUDE_NAME_MAX = 200  # longer names are cut here and given a hash suffix by Claude Code


def claude_config_dir() -> Path | None:
    """Claude Code's folder: ``$CLAUDE_CONFIG_DIR``, else ``.claude`` in the home folder; None when
    neither is an absolute path (an empty ``HOME`` is no home folder, not ``/``)."""
    given = os.environ.get("CLAUDE_CONFIG_DIR")
    folder = given if given else os.path.join(home_folder(), ".claude")
    return Path(folder) if os.path.isabs(folder) else None


def claude_memory_folder(root: Path) -> Path | None:
    """Claude Code's auto memory folder for the repository at ``root``, found as Claude Code finds it:
    ``autoMemoryDirectory`` in ``.claude/settings.local.json`` (unless git tracks it: then a commit
    chose it, not the reader) or the user's ``settings.json`` if set,
    else ``<config>/projects/<sanitized>/memory`` where ``<config>`` is ``$CLAUDE_CONFIG_DIR`` or
    ``~/.claude`` and ``<sanitized>`` is the repository's absolute path (the main work tree's, so
    every worktree shares one folder; else the folder's own) with each non-alphanumeric character
    written '-'.  None if there is none."""
    import json

    config = claude_config_dir()
    local = root / ".claude" / "settings.local.json"
    for settings in (local, config / "settings.json") if config is not None else (local,):
        if settings is local and local.exists() and _committed(root, local):
            continue  # a local settings file a commit brought is somebody's, not the reader's choice
        try:
            data = json.loads(settings.read_text(encoding="utf-8"))
        except (OSError, ValueError, UnicodeDecodeError):
            continue
        chosen = data.get("autoMemoryDirectory") if isinstance(data, dict) else None
        if isinstance(chosen, str) and chosen.strip():
            expanded = expand_home(chosen.strip())
            if expanded is None:
                return None  # no home folder to find it in
            folder = Path(expanded)
            folder = folder if folder.is_absolute() else root / folder
            return folder if folder.is_dir() else None
    if config is None:
        return None
    projects = config / "projects"
    if not projects.is_dir():
        return None
    candidates: list[str] = []
    from memcli.git.repo import git

    done = git(root, "rev-parse", "--path-format=absolute", "--git-common-dir", "--show-toplevel")
    if done is not None and done.returncode == 0:
        lines = done.stdout.splitlines()
        if lines and os.path.basename(lines[0].rstrip("/")) == ".git":
            candidates.append(os.path.dirname(lines[0].rstrip("/")))  # the main work tree
        candidates.extend(lines[1:2])
    candidates.append(str(root))
    for found in list(candidates):
        candidates.append(os.path.realpath(found))
    for where in dict.fromkeys(os.path.abspath(c) for c in candidates):
        name = sanitized(where)
        if len(name) <= CLAUDE_NAME_MAX:
            folder = projects / name / "memory"
            if folder.is_dir():
                return folder
        else:
            cut = name[:CLAUDE_NAME_MAX]
            for entry in sorted(os.listdir(projects)):
                if entry.startswith(cut + "-") and (projects / entry / "memory").is_dir():
                    return projects / entry / "memory"
    return None


def _committed(root: Path, local: Path) -> bool:
    """Whether a commit put ``.claude/settings.local.json`` there: git tracks it, the file it
    resolves to in the repository, or a symlink on the way (``.claude -> cc`` with a tracked
    ``cc/settings.local.json``: git lists nothing under a symlink's name)."""
    from memcli.git.repo import tracked

    names = {".claude/settings.local.json", ".claude"}
    real, top = os.path.realpath(local), os.path.realpath(root)
    if real.startswith(top + os.sep):
        names.add(os.path.relpath(real, top).replace(os.sep, "/"))
    return bool((tracked(root, *sorted(names)) or set()) & names)


def _is_memory_folder(folder: Path) -> bool:
    return (folder / "MEMORY.md").is_file()


class Source:
    """A file to import, where it may lead (``base``: the folder it must resolve inside), its kind."""

    __slots__ = ("path", "kind", "base", "shown", "within")

    def __init__(self, path: Path, kind: str, base: Path, shown: str, within: str = "the repository"):
        self.path, self.kind, self.base, self.shown, self.within = path, kind, base, shown, within


def personal_sources(root: Path) -> tuple[Path | None, list[Source]]:
    """What is the user's alone (Claude Code's docs: machine-local, "only you"): Claude Code's
    auto memory folder for the repository at ``root`` and the user-level ``CLAUDE.md`` in Claude
    Code's folder (``$CLAUDE_CONFIG_DIR``, else ``~/.claude``): the folder (None if there is none,
    or it holds no file to read) and their sources."""
    out: list[Source] = []
    folder = claude_memory_folder(root)
    found = _memory_folder(folder) if folder is not None else []
    out.extend(found)
    config = claude_config_dir()
    mine = config / "CLAUDE.md" if config is not None else None
    if mine is not None and os.path.lexists(mine):
        out.append(_own_file(mine, "claude-md", _home(mine)))
    return (folder if found else None), out


def _own_file(path: Path, kind: str, shown: str) -> Source:
    """A file of the developer's named outside the repository (``~/.claude/CLAUDE.md``, often a
    symlink into their dotfiles: GNU stow, home-manager): read where it leads.  Leading into the
    repository, it is judged there as the repository's file is (``_unreviewed``)."""
    real = Path(os.path.realpath(path))
    # the path as named: its links are followed to where they lead for reading, and one at a time
    # for judging (``_place_in_git``: a link a commit made in a repository holds what it shows)
    return Source(Path(os.path.abspath(path)), kind, real.parent, shown, "its folder")


def find_sources(root: Path, given: list[str], cwd: Path | None = None, user: bool = False) -> list[Source]:
    """The files to import: those named (files or folders), or every known source in the
    repository (``SOURCES``), or, for the personal memory (``user``), what is the user's alone
    (``personal_sources``).  Raises MemcliError (one line) for a missing path, a file that is no
    source, a folder with none."""
    cwd = cwd or Path.cwd()
    out: list[Source] = []
    if not given:
        if user:
            return _unique(personal_sources(root)[1])
        for pattern in SOURCES:
            out.extend(_known(root, pattern))
        return _unique(out)
    for text in given:
        expanded = expand_home(text)
        if expanded is None:
            raise MemcliError(f"no home folder to find {text} in (HOME is {home_folder()!r}); nothing imported")
        path = Path(expanded)
        path = path if path.is_absolute() else cwd / path
        if not os.path.lexists(path):
            raise MemcliError(f"no such file or folder: {text}; nothing imported")
        if path.is_dir():
            if os.path.realpath(path) == os.path.realpath(root):
                found = [s for pattern in SOURCES for s in _known(root, pattern)]
            elif _is_memory_folder(path):
                found = _memory_folder(path)
            else:
                found = _folder(root, path, text)
            if not found:
                raise MemcliError(
                    f"{text} holds no file memcli can import (see `memcli import --help`); nothing imported"
                )
            out.extend(found)
            continue
        kind = classify(path)
        if kind is None:
            raise MemcliError(
                f"{text} is not a source memcli can import (CLAUDE.md, AGENTS.md, .mdc, .cursorrules, memory-bank/*.md,"
                " copilot-instructions.md, Markdown); nothing imported"
            )
        # A file named outside the repository (Claude Code's memory, your own ~/.claude/CLAUDE.md) is
        # read where it is; a symlink must not lead it further (inside the repository: out of it).
        if _inside(path, root):
            out.append(Source(path, kind, root, _shown(path, root, cwd)))
        else:
            out.append(_own_file(path, kind, _shown(path, root, cwd)))
    return _unique(out)


def repository(dir_option: str | None) -> Layout:
    """Where ``memcli import --user`` looks for and judges its sources: the project's folder
    (``--dir``, ``MEMCLI_DIR``, else the nearest ``.memory/`` upwards), else the git work tree the
    command runs in (a repository without memcli), else the folder itself."""
    from memcli.errors import NotInitialized
    from memcli.git.repo import toplevel
    from memcli.storage.paths import Layout, find_layout

    try:
        return find_layout(dir_option)
    except NotInitialized:
        here = find_layout(dir_option, must_exist=False)
        if not here.root.is_dir():
            raise
    return Layout(toplevel(here.root) or here.root)


def _inside(path: Path, root: Path) -> bool:
    from memcli.storage.fsutil import is_inside

    return is_inside(path.parent, root)


def _shown(path: Path, root: Path, cwd: Path) -> str:
    for base in (cwd, root):
        try:
            return str(path.relative_to(base))
        except ValueError:
            continue
    return _home(path)


def _home(path: Path) -> str:
    """A path outside the repository as a person reads it (``~/.claude/…``)."""
    home = home_folder().rstrip(os.sep)
    text = str(path)
    return "~" + text[len(home) :] if os.path.isabs(home) and home and text.startswith(home + os.sep) else text


def _known(root: Path, pattern: str) -> list[Source]:
    out = []
    matches = sorted(root.glob(pattern)) if "*" in pattern else [root / pattern]
    for path in matches:
        if not os.path.lexists(path) or (path.is_dir() and not path.is_symlink()):
            continue
        kind = classify(path.relative_to(root))
        if kind is not None:
            out.append(Source(path, kind, root, str(path.relative_to(root))))
    return out


SKIPPED_FOLDERS = {".git", ".memory", "node_modules", ".venv", "venv", "__pycache__"}
MAX_WALK = 20_000  # files and folders looked at in one folder given, at most


def _folder(root: Path, folder: Path, text: str) -> list[Source]:
    """The sources in a folder of the repository (hidden folders but .claude, .cursor and .github,
    and .git, .memory, node_modules and virtual environments left out)."""
    if not _inside(folder / "x", root):
        raise MemcliError(
            f"{text} is outside the repository (only Claude Code's memory folder may be); nothing imported"
        )
    out: list[Source] = []
    seen = 0
    for where, dirs, files in os.walk(folder):
        dirs[:] = sorted(
            d
            for d in dirs
            if d not in SKIPPED_FOLDERS and (not d.startswith(".") or d in (".claude", ".cursor", ".github"))
        )
        seen += len(dirs) + len(files)
        if seen > MAX_WALK:
            raise MemcliError(f"{text} holds more than {MAX_WALK} files and folders: name the files; nothing imported")
        for name in sorted(files):
            path = Path(where) / name
            kind = classify(path)
            if kind is not None:
                out.append(Source(path, kind, root, _shown(path, root, Path.cwd())))
    return out


def _memory_folder(folder: Path) -> list[Source]:
    names = sorted(p for p in folder.iterdir() if p.suffix == ".md" and not p.name.startswith("."))
    names.sort(key=lambda p: p.name != "MEMORY.md")  # the index first
    shown = _home(folder)
    return [Source(p, "claude-memory", folder, f"{shown}/{p.name}", "Claude Code's memory folder") for p in names]


def _unique(sources: list[Source]) -> list[Source]:
    """Each file once (``CLAUDE.md`` may be a link to ``AGENTS.md``), at most ``MAX_FILES``."""
    seen: set[str] = set()
    out = []
    for s in sources:
        key = os.path.realpath(s.path)
        if key not in seen:
            seen.add(key)
            out.append(s)
    if len(out) > MAX_FILES:
        raise MemcliError(f"{len(out)} files to import; memcli imports at most {MAX_FILES} at once; nothing imported")
    return out


# ---------------------------------------------------------------------------------- reading


def read_source(source: Source) -> str | None:
    """The text of a source, checked: None for a file memcli setup owns whole; MemcliError (one line,
    nothing imported) for anything that is not a small UTF-8 text file inside where it may be."""
    import stat

    from memcli.storage.fsutil import decode_text, is_inside

    shown = source.shown
    if not is_inside(source.path, source.base):
        raise MemcliError(f"refusing {shown}: a symlink leads it outside {source.within}; nothing imported")
    try:
        info = os.stat(source.path)
    except OSError as exc:
        raise MemcliError(f"cannot read {shown}: {exc.strerror}; nothing imported") from None
    if not stat.S_ISREG(info.st_mode):
        raise MemcliError(f"{shown} is not a regular file; nothing imported")
    if info.st_size > MAX_SOURCE_BYTES:
        raise MemcliError(
            f"{shown} is {_size(info.st_size)}: an instruction file memcli imports holds at most"
            f" {_size(MAX_SOURCE_BYTES)}; nothing imported"
        )
    try:
        with open(source.path, "rb") as handle:
            data = handle.read(MAX_SOURCE_BYTES + 1)
    except OSError as exc:
        raise MemcliError(f"cannot read {shown}: {exc.strerror}; nothing imported") from None
    if len(data) > MAX_SOURCE_BYTES:
        raise MemcliError(f"{shown} grew past {_size(MAX_SOURCE_BYTES)} while read; nothing imported")
    try:
        text = decode_text(data, shown)
    except MemcliError as exc:  # "not UTF-8 text (byte N)", "holds NUL bytes (binary data?)"
        raise MemcliError(f"{exc.message}; nothing imported") from None
    text = text.removeprefix("\ufeff").replace("\r\n", "\n")
    _refuse_invisible(text, shown)
    if any(line.startswith(SETUP_FILE_MARK) for line in text.split("\n")[:12]):
        return None  # memcli setup's own Cursor rule: memcli's advice, not the project's memory
    return text


def _refuse_invisible(text: str, shown: str) -> None:
    from memcli.storage import guard

    found = guard.invisible(text)
    if found:
        offset, char = found[0]
        line = text.count("\n", 0, offset) + 1
        column = offset - text.rfind("\n", 0, offset)
        raise MemcliError(
            f"refusing {shown}: invisible character U+{ord(char):04X} ({guard._char_name(char)}) at line {line},"
            f" column {column}: text its readers never saw; remove it, nothing imported"
        )


def _size(n: int) -> str:
    return f"{n / 1_048_576:.1f} MB" if n >= 1_048_576 else f"{n / 1024:.0f} KB"


def units_of(source: Source, text: str) -> list[Unit]:
    """The memories a source holds (see the module's docstring)."""
    from memcli.storage.sections import without_marked_sections

    shown, kind = source.shown, source.kind
    tag = KINDS[kind][0] if kind != "markdown" else f"from-{slug(source.path.stem) or 'markdown'}"
    strict = kind in RULE_KINDS or kind == "claude-memory"
    meta, body, skipped = front_matter(text, shown, strict) if kind in FRONT_MATTER_KINDS else ({}, text, 0)
    body = without_marked_sections(body)
    body = without_comments(body, keep_lines=True)
    stem = source.path.stem
    if kind in RULE_KINDS or (kind == "claude-memory" and meta.get("type")):
        pinned = _truth(meta, "alwaysApply", shown) if kind == "cursor-rules" else False
        globs = _globs(meta, "globs" if kind == "cursor-rules" else "paths")
        description = str(meta.get("description") or "").strip()
        content = body.strip("\n")
        if not content.strip():
            return []
        parts = [description] if description and description not in content else []
        parts.append(content)
        if globs:
            parts.append("(applies to " + ", ".join(globs) + ")")
        full = "\n\n".join(parts)
        name = slug(str(meta.get("name") or stem))
        name = "" if _is_state(name) else name
        piece = Piece("rule", skipped + 1, full, [])
        cat = category(kind, stem, piece, str(meta.get("type") or "") or None)
        tags = [tag] + ([name] if name else []) + (["pinned"] if pinned else [])
        line = skipped + 1 + (len(body) - len(body.lstrip("\n")))
        return [Unit(source.path, shown, line, full, cat, tags, whole=True, kind=kind)]
    out = []
    folder = source.path.parent
    for piece in split_markdown(body):
        if kind == "claude-memory" and piece.kind == "item":
            link = _LINK_ITEM.match(piece.text)
            if link and (folder / link.group(1)).is_file():
                continue  # MEMORY.md's pointer to a topic file: the file is imported itself
        cat = category(kind, stem, piece, str(meta.get("type") or "") or None)
        text_of = piece.text
        if cat == "tasks" and not piece.checkbox:
            text_of = "- [ ] " + text_of
        elif piece.checkbox:
            text_of = "- " + text_of
        near = next((slug(h) for level, h in reversed(piece.headings) if level >= 2 and slug(h)), "")
        near = "" if _is_state(near) else near  # "## Pinned" names a part of a file, it pins nothing
        tags = [tag] + ([near] if near and near != tag else [])
        out.append(Unit(source.path, shown, piece.line + skipped, text_of, cat, tags, kind=kind))
    return out


# ---------------------------------------------------------------------------------- the import


class Report:
    """What an import did (or, dry, would do): units added, already in memory, skipped (and why)."""

    def __init__(self, agent: str, dry_run: bool, personal: bool = False):
        self.agent, self.dry_run, self.personal = agent, dry_run, personal
        self.left_out: str | None = None  # Claude Code's auto memory, found and not imported (it is yours)
        self.files: list[str] = []
        self.added: list[tuple[Unit, int | None]] = []
        self.present: list[tuple[Unit, str]] = []  # and where it is
        self.skipped: list[tuple[Unit, str]] = []

    def to_json(self) -> dict[str, object]:
        def row(u: Unit) -> dict[str, object]:
            return {"source": u.shown, "line": u.line, "category": u.category, "tags": u.tags, "text": u.text}

        return {
            "agent": self.agent,
            "scope": "user" if self.personal else "project",
            "dry_run": self.dry_run,
            "files": self.files,
            "left_out": self.left_out,
            "added": [{**row(u), "id": i} for u, i in self.added],
            "already": [{**row(u), "as": w} for u, w in self.present],
            "skipped": [{**row(u), "reason": r} for u, r in self.skipped],
        }


def plan(
    root: Path, given: list[str], cwd: Path | None = None, user: bool = False, into: Path | None = None
) -> tuple[list[str], list[Unit], dict[str, str]]:
    """Every source read and split, before anything is written: the files (as shown), their units,
    and each file's text as read (by its path).  ``user``: with no source named, what is the
    user's alone (``find_sources``); ``into``: the folder of the memory imported into, when it is
    not the repository's (the personal memory's).  Raises MemcliError (one line) for the first
    source that cannot be imported."""
    from memcli.storage.fsutil import is_inside
    from memcli.storage.paths import MEMORY_DIR

    files, units, texts = [], [], {}
    for source in find_sources(root, given, cwd, user):
        if any(is_inside(source.path, r / MEMORY_DIR) for r in (root, into or root)):
            raise MemcliError(f"{source.shown} is memcli's own memory, not a source to import; nothing imported")
        if ".git" in Path(os.path.realpath(source.path)).parts:
            raise MemcliError(f"refusing {source.shown}: it leads into git's own folder; nothing imported")
        text = read_source(source)
        if text is None:
            continue
        files.append(source.shown)
        texts[str(source.path)] = text
        units.extend(units_of(source, text))
    return files, units, texts


def refusal(store: Store, unit: Unit, allow: set[str]) -> tuple[str | None, list[str]]:
    """Why ``add`` would refuse the unit (its own checks, in its order), and the ``--allow`` rules
    it needs (those of ``allow`` that it breaks)."""
    from memcli import api
    from memcli.storage import guard

    try:
        api.check_text(unit.text)
        store.check_size(unit.text)
        api.check_secrets(unit.text, False)
    except MemcliError as exc:
        return exc.message.replace("; nothing written", "").replace(
            " (the CLI's --allow-secret stores it anyway)", ""
        ), []
    needed: list[str] = []
    for finding in guard.scan(unit.text):
        if finding.rule in allow and finding.rule != "invisible":
            needed.append(finding.rule)
        else:
            return guard.message(unit.text, finding), []
    return None, list(dict.fromkeys(needed))


def run_import(
    mem: Memory,
    agent: str,
    given: list[str],
    dry_run: bool = False,
    allow: list[str] | None = None,
    cwd: Path | None = None,
    project: Layout | None = None,
) -> Report:
    """Import the sources into ``agent``'s memory through ``api.add``; ``dry_run``: only say what
    would be added.  With no source named, the repository's own sources (``SOURCES``) go into the
    project's memory, and Claude Code's auto memory is left out (``Report.left_out``: it is the
    user's alone); into the personal memory (``mem.personal``, ``memcli import --user``), the
    auto memory and the user-level ``CLAUDE.md`` (``personal_sources``).  ``project``: the
    repository the sources are looked for and judged in (default: the memory's own folder; for
    the personal memory, the repository the command runs in): a file of it is held back when
    nobody reviewed it, whichever memory it goes into."""
    from memcli import api

    store = mem.store
    personal = mem.personal
    where = project or store.layout
    chosen = mem.agent(agent, writing=True)
    allowed = {r.removeprefix("allow-") for r in api.allow_tags(allow)}
    into = store.layout.root if personal else None
    files, units, texts = plan(where.root, given, cwd, user=personal, into=into)
    store.layout.require()
    report = Report(chosen, dry_run, personal)
    report.files = files
    if not given and not personal:
        folder = personal_sources(where.root)[0]
        report.left_out = _home(folder) if folder is not None else None
    unreviewed = _unreviewed(where, units, texts)
    # One lock: a second import waits, then sees ours.  None when nothing would be written: a
    # personal memory not made yet stays unmade (taking the lock makes it).
    idle = dry_run or (
        not store.layout.exists() and all(u in unreviewed or refusal(store, u, allowed)[0] for u in units)
    )
    notes = None
    if not given and not personal and api.PERSONAL_RULE not in allowed:
        # found by looking, not named: what says a personal note again is left out, as add refuses it
        from memcli.capture.personal import Finder
        from memcli.capture.personal import notes as personal_notes

        notes = Finder(personal_notes(store.layout))
    with contextlib.nullcontext() if idle else store.batch():
        _import_units(mem, store, chosen, units, unreviewed, allowed, report, notes)
    return report


def _import_units(
    mem: Memory,
    store: Store,
    chosen: str,
    units: list[Unit],
    unreviewed: dict[Unit, str],
    allowed: set[str],
    report: Report,
    notes: Finder | None = None,
) -> None:
    from memcli import api
    from memcli.capture.copies import Seen
    from memcli.storage.store import IMPORTED

    dry_run = report.dry_run
    held: dict[str, Seen] = {}  # category -> the texts in memory or in this import
    brought: dict[str, str] = {}  # the units imported before (``import_tag``) -> where
    if chosen in store.agents():
        from memcli.git.provenance import provenance

        prov = provenance(store.layout)
        for located in store.iter_entries(chosen):
            name = f"{located.category} {located.entry.id}"
            held.setdefault(located.category, Seen()).add(located.entry.body, name)
            if prov.held(chosen, located.category, located.entry.id):
                continue  # an unreviewed entry's mark would keep a rule of the source out: theirs counts for nothing
            for tag in located.entry.tags:
                if tag.startswith(IMPORTED):
                    brought.setdefault(tag, name)
    for unit in units:
        mark = import_tag(unit.text)
        same = (brought.get(mark) if mark else None) or held.setdefault(unit.category, Seen()).find(unit.text)
        if same is not None:
            report.present.append((unit, same))
            continue
        if unit in unreviewed:
            report.skipped.append((unit, unreviewed[unit]))
            continue
        why, needs = refusal(store, unit, allowed)
        note = notes.said_in(unit.text) if notes and why is None else None
        if note is not None:
            why = (
                f"says your personal note {note} again, and the project's memory is committed for the whole team"
                f" (--allow {api.PERSONAL_RULE} brings it)"
            )
        if why is not None:
            report.skipped.append((unit, why))
            continue
        entry_id = None
        if not dry_run:
            try:
                tags = [*unit.tags, mark] if mark else unit.tags
                done = api.add(mem, chosen, unit.category, unit.text, tags, allow=needs, imported=True)
            except MemcliError as exc:
                report.skipped.append((unit, exc.message))
                continue
            if done.duplicate:
                report.present.append((unit, f"{done.located.category} {done.located.entry.id}"))
                continue
            entry_id = done.located.entry.id
        held[unit.category].add(unit.text, f"{unit.category} {entry_id or unit.where}")
        if mark:
            brought[mark] = f"{unit.category} {entry_id or unit.where}"
        report.added.append((unit, entry_id))


def import_tag(text: str) -> str:
    """The tag an imported entry keeps of the source text it came from: ``imported-`` and ten hex
    digits of its SHA-1, as ``same_text_key`` reads it ("" for a text that says nothing).  An entry
    edited since, or folded into a compaction summary (which keeps its entries' marks), still
    stands for that text, so the next import does not bring it back."""
    import hashlib

    from memcli.capture.copies import same_text_key
    from memcli.storage.store import IMPORTED

    key = same_text_key(text)
    return IMPORTED + hashlib.sha1(key.encode("utf-8", "surrogatepass")).hexdigest()[:10] if key else ""


def _is_state(tag: str) -> bool:
    """A tag that is memcli's state (pinned, archived, supersedes-N, allow-RULE), not a topic."""
    from memcli.storage.store import ARCHIVED_TAG, PINNED_TAG, SUPERSEDES

    return tag in (PINNED_TAG, ARCHIVED_TAG) or tag.startswith((SUPERSEDES, "allow-"))


def _unreviewed(layout: Layout, units: list[Unit], texts: dict[str, str]) -> dict[Unit, str]:
    """The units of files in the repository that hold a line nobody reviewed (a line a foreign
    commit added that the trusted branch lacks: ``provenance.foreign_lines``), and why each is
    skipped.  A unit holds the lines from its first to the line before the next unit of its file
    (what it says there, comments and markers included, whatever its text kept of them), and a
    heading of theirs holds every unit after it (it decides their category and tag); a rule file
    is one unit; a symlink a foreign commit made holds all it leads to.  Raises MemcliError
    when git does not answer (nothing is imported unjudged)."""
    import os

    from memcli.git import provenance
    from memcli.storage.fsutil import is_inside
    from memcli.storage.paths import Layout

    # A file of another repository (a ~/.claude/CLAUDE.md that links into another clone, a file
    # of one named, a file in a submodule) is judged in the repository it lives in, by the same
    # rule, at the first place its symlinks reach there (a link their commit made holds all).
    home = provenance.work_tree(os.path.realpath(layout.root))
    inside: list[Unit] = []
    elsewhere: dict[str, dict[str, list[Unit]]] = {}
    for u in units:
        place, top = _place_in_git(str(u.path))
        if top is not None and top != home:
            elsewhere.setdefault(top, {}).setdefault(place, []).append(u)
        elif is_inside(u.path, layout.root):
            inside.append(u)
    try:
        found = provenance.foreign_lines(layout, sorted({str(u.path) for u in inside}))
        for top, files in elsewhere.items():
            judged = provenance.foreign_lines(Layout(top), sorted(files))
            # A submodule's pointer is a line of the outer repository: a foreign commit's makes it all theirs.
            if home is not None and is_inside(Path(top), Path(home)):
                pointer = provenance.foreign_lines(layout, [top]).get(top)
                if pointer is not None:
                    judged = dict.fromkeys(files, pointer)
            for place, foreign in judged.items():
                for u in files[place]:
                    found[str(u.path)] = foreign
                    inside.append(u)
    except provenance.GitFailed as exc:
        if exc.refused:  # a reason the user can act on, whole
            raise MemcliError(f"{exc}; nothing imported") from None
        raise MemcliError(f"git did not say where the sources came from ({str(exc)[:120]}); nothing imported") from None
    out: dict[Unit, str] = {}
    for path, foreign in found.items():
        keys = foreign.keys
        mine = sorted((u for u in inside if str(u.path) == path), key=lambda u: u.line)
        why = foreign.hold.reason() + ": merge it to the trusted branch first, or add the text yourself"
        if keys is None or (keys and any(u.whole for u in mine)):
            out.update((u, why) for u in mine)
            continue
        numbered = list(enumerate(texts[path].split("\n"), 1))  # as read: the units' line numbers
        theirs = {n for n, line in numbered if provenance.source_key(line) in keys}
        heading = min((n for n, line in numbered if n in theirs and line.lstrip().startswith("#")), default=None)
        # A unit that reads as their version of the file has it and the trusted branch's does not:
        # they made it say so by taking a line out or moving one (a lead-in "Never:", a heading),
        # which adds no line of theirs.
        reviewed = _says(mine[0], foreign.trusted) if foreign.trusted is not None else set()
        reworded = {says: hold for text, hold in reversed(foreign.theirs) for says in _says(mine[0], text) - reviewed}
        for k, unit in enumerate(mine):
            end = mine[k + 1].line if k + 1 < len(mine) else len(numbered) + 1
            if any(unit.line <= n < end for n in theirs) or heading is not None and unit.line > heading:
                out[unit] = why  # (a heading of theirs names what follows it: its category and tag)
            elif unit.says in reworded:
                out[unit] = (
                    reworded[unit.says].reason() + ": merge it to the trusted branch first, or add the text yourself"
                )
    return out


def _place_in_git(path: str) -> tuple[str, str | None]:
    """Where ``path`` first lies in a git work tree, following its symlinks one at a time (the
    link's own place, so that a link a commit made is judged as theirs), and that work tree; the
    file's own place and None when no step of the way is in one."""
    import os

    from memcli.git import provenance

    seen: set[str] = set()
    here = os.path.abspath(path)
    while True:
        folder = os.path.realpath(os.path.dirname(here))
        here = os.path.join(folder, os.path.basename(here))
        top = provenance.work_tree(folder)
        if top is not None:
            return here, top
        if not os.path.islink(here) or here in seen or len(seen) > 40:
            return os.path.realpath(path), None
        seen.add(here)
        here = os.path.join(folder, os.readlink(here))


def _says(unit: Unit, text: str) -> set[tuple[str, str, tuple[str, ...]]]:
    """What the units of another version of ``unit``'s file would store (``Unit.says``), read as
    the file is read (a version that does not parse holds none)."""
    source = Source(unit.path, unit.kind, unit.path.parent, unit.shown)
    try:
        return {u.says for u in units_of(source, text.removeprefix("\ufeff").replace("\r\n", "\n"))}
    except MemcliError:
        return set()
