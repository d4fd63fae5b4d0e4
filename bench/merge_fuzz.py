#!/usr/bin/env python3
"""A randomized git-history fuzzer for memcli: the real CLI and real git, no mocks.

    python bench/merge_fuzz.py --trials N --seed S [--steps K] [--keep] [--verbose]

Each trial makes a bare remote and two clones, A and B (``memcli init`` with hooks in
both), then takes K random steps on a random clone: ``memcli add`` / ``edit`` / ``rm`` /
``checkpoint`` (a quarter of them ``--close``: the session ends), ``git commit`` (sometimes ``--amend`` of an unpushed, non-merge commit),
``git pull`` (merge, rebase or rebase=merges, set per call), ``git push`` (pull and
retry when rejected), a local side branch integrated by merge, rebase or cherry-pick,
a ``git stash`` / ``stash pop`` of uncommitted memory changes, now and then a
deliberately concurrent change of one entry in both clones (edit/edit, edit/rm, rm/rm,
the same edit twice), and an edit against a removal of one entry on purpose (``op_edit_rm``:
in the two clones, or on a side branch against main).  Edits and removals otherwise touch only *settled* entries (both
clones show the latest text).  A model tracks what every entry and message should be;
at the end both clones are synced, compared with the model and with each other,
compacted, synced again and compared again.

Trial modes, drawn from the seed unless forced: half of the trials merge *as a hosting service
does* (``* merge=text`` in both clones' ``.git/info/attributes``: no merge driver, no union, plain
text merges for every pull, rebase, side branch and stash pop; there a concurrent change of one
entry -- edit/edit, edit/rm -- is the documented same-entry conflict, settled with ``memcli
resolve`` as a user would, and any other conflict is a violation); a third of trials are *compaction-heavy*
(a committed ``.memory/config.toml`` with tiny caps and a near-zero interval, so the
pre-commit hook compacts on every commit: trimmed conversations and summaries meet
merges); a quarter skip ``memcli init`` in B (its first write must register the driver).

Invariants (any breach is a *violation*; the command exits 1):

* no git conflict (``CONFLICT`` in git's output, or a pull/merge/rebase/cherry-pick/
  stash pop that fails), no failed git or memcli command;
* after every pull no tracked file is modified and nothing is unmerged; after every
  commit nothing is left unstaged (the pre-commit hook stages what it compacts);
* every added entry that was not removed is present exactly once, with its latest
  text, in its agent/category (``summarised`` into a compaction summary is allowed);
* an entry edited on both sides concurrently shows at least one of the edited texts
  (memcli keeps both, one tagged ``merge-conflict``); an edit beats a concurrent rm;
* every removed entry stays removed; no entry has an empty body;
* every checkpointed message is in the agent's conversation (or recorded as trimmed
  by compaction);
* a clone that never ran ``memcli init`` gets the merge driver registered by its first
  memcli write; memcli says nothing is wrong from a hook or the driver (a ``memcli: …
  could not …`` / ``… hook: …`` line in git's output is a violation);
* after the final sync both clones have identical memory files, and after
  ``memcli compact`` (then another sync) all of the above still holds.

Entries and messages carry unique tokens (``fzE<n>``, ``fzM<n>``) so they can be
found again whatever ids merges give them.  The engine is importable:
``run_trial(seed, steps, workdir)`` returns a ``TrialResult``; tests/test_merge_fuzz.py
runs a few small trials.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from memcli.storage.conversations import _jsonl, assign_ids, read_conversation  # noqa: E402
from memcli.storage.paths import Layout  # noqa: E402
from memcli.storage.store import Store  # noqa: E402

AGENTS = ("dev", "qa")
CATEGORIES = ("decisions", "lessons", "tasks")
WORDS = (
    "alpine",
    "bridge",
    "cobalt",
    "delta",
    "ember",
    "fjord",
    "granite",
    "harbor",
    "indigo",
    "juniper",
    "kettle",
    "lantern",
    "meadow",
    "nickel",
    "orchid",
    "pepper",
    "quarry",
    "ribbon",
    "saddle",
    "timber",
    "umber",
    "velvet",
    "willow",
    "yarrow",
    "zephyr",
    "parser",
    "cache",
    "schema",
    "router",
    "widget",
)
ENTRY_RE = re.compile(r"\bfzE(\d+)\b")
MESSAGE_RE = re.compile(r"\bfzM(\d+)\b")
# What memcli prints from a git hook or the merge driver when something went wrong (its merge notes,
# "kept both" / "kept the edit", are expected and not counted).
HOOK_TROUBLE = re.compile(r" hook: |could not|cannot|internal error|error:", re.I)
GIT_TIMEOUT = 60
COMPACT_OFTEN = """\
# merge_fuzz: compaction-heavy trial -- every commit compacts, with tiny caps
[compact]
keep_messages = 3
category_cap = 6
category_keep = 4
interval_minutes = 0.0001
"""
MEMCLI_TIMEOUT = 60

# Counters printed per trial and in total; the VIOLATIONS must all stay 0.
INFO = (
    "entries_added",
    "edits",
    "removals",
    "concurrent_edit_edit",
    "concurrent_edit_rm",
    "concurrent_rm_rm",
    "concurrent_same_edit",
    "messages_checkpointed",
    "commits",
    "amends",
    "pulls_merge",
    "pulls_rebase",
    "pushes",
    "push_rejected",
    "side_merge",
    "side_rebase",
    "side_cherry_pick",
    "stashes",
    "conflict_copies",
    "summarised_entries",
    "summarised_twice",
    "trimmed_messages",
    "sessions_closed",
    "resolved_conflicts",
    "empty_picks_skipped",
    "init_changed_tracked",
)
VIOLATIONS = (
    "conflicts",
    "failed_git",
    "failed_memcli",
    "dirty_after_pull",
    "dirty_after_commit",
    "lost_entries",
    "stale_texts",
    "duplicated_entries",
    "resurrected_removals",
    "empty_bodies",
    "lost_messages",
    "clones_differ",
    "driver_missing",
    "hook_errors",
)
COUNTERS = INFO + VIOLATIONS


class TrialAborted(Exception):
    """A failure that leaves a clone in a state the trial cannot go on from (a conflict, a failed command)."""


@dataclass
class EntryModel:
    n: int
    agent: str
    category: str
    text: str
    version: int = 1
    removed: bool = False
    wild: bool = False  # changed concurrently in both clones: checked with the looser rule
    # The same edit made in both clones: one text, but two changes that no merge has joined yet, so a
    # later edit would meet the other clone's copy of it as a concurrent edit.  Checked strictly, never
    # changed again.
    frozen: bool = False
    acceptable: set[str] = field(default_factory=set)  # wild: any of these may be present, at least one must

    @property
    def token(self) -> str:
        return f"fzE{self.n}"


@dataclass
class MessageModel:
    agent: str
    text: str
    id: str


@dataclass
class TrialResult:
    seed: int
    steps: int
    compact_often: bool
    b_init: bool
    counts: dict[str, int]
    violations: list[str]
    seconds: float
    log_path: Path | None = None
    workdir: Path | None = None
    server: bool = False

    @property
    def ok(self) -> bool:
        return not self.violations and not any(self.counts[k] for k in VIOLATIONS)

    def line(self) -> str:
        """Three lines: the trial, what it did, what it checked."""
        c = self.counts
        mode = (
            (" (merged as a server: no driver)" if self.server else "")
            + (" (compact often)" if self.compact_often else "")
            + ("" if self.b_init else " (B without init)")
        )
        return (
            f"seed {self.seed}{mode}: {'ok' if self.ok else 'VIOLATIONS'} in {self.seconds:.1f}s, {self.steps} steps\n"
            f"  did: added {c['entries_added']}, edits {c['edits']}, removals {c['removals']}, concurrent "
            f"edit/edit {c['concurrent_edit_edit']} edit/rm {c['concurrent_edit_rm']} rm/rm {c['concurrent_rm_rm']} "
            f"same-edit {c['concurrent_same_edit']}, messages checkpointed {c['messages_checkpointed']}, "
            f"commits {c['commits']} (+{c['amends']} amends), pulls merge {c['pulls_merge']} rebase {c['pulls_rebase']}, "
            f"pushes {c['pushes']} (rejected {c['push_rejected']}), side branches merge {c['side_merge']} "
            f"rebase {c['side_rebase']} cherry-pick {c['side_cherry_pick']}, stashes {c['stashes']}; seen: "
            f"conflict copies {c['conflict_copies']}, summarised entries {c['summarised_entries']} (in two "
            f"summaries {c['summarised_twice']}), trimmed "
            f"messages {c['trimmed_messages']}, sessions closed {c['sessions_closed']}, same-entry conflicts "
            f"resolved {c['resolved_conflicts']}, empty picks skipped {c['empty_picks_skipped']}\n"
            f"  violations: conflicts {c['conflicts']}, lost entries {c['lost_entries']}, stale texts "
            f"{c['stale_texts']}, duplicated {c['duplicated_entries']}, lost messages {c['lost_messages']}, "
            f"resurrected removals {c['resurrected_removals']}, empty bodies {c['empty_bodies']}, failed git "
            f"{c['failed_git']}, failed memcli {c['failed_memcli']}, dirty after pull {c['dirty_after_pull']}, "
            f"dirty after commit {c['dirty_after_commit']}, clones differ {c['clones_differ']}, driver missing "
            f"{c['driver_missing']}, hook errors {c['hook_errors']}"
        )


class Clone:
    def __init__(self, name: str, path: Path):
        self.name, self.path = name, path

    def __repr__(self) -> str:
        return self.name


class Trial:
    def __init__(
        self,
        seed: int,
        steps: int,
        workdir: Path,
        verbose: bool = False,
        compact_often: bool | None = None,
        b_init: bool | None = None,
        server: bool | None = None,
    ):
        self.seed, self.steps, self.workdir, self.verbose = seed, steps, Path(workdir), verbose
        self.rng = random.Random(seed)
        # Merges as a hosting service makes them (no driver, plain text merges): half of the trials.
        as_server = random.Random(f"server-{seed}").random() < 1 / 2  # its own draw: the other modes stay
        self.server = as_server if server is None else server
        # Compaction-heavy trials: tiny caps and every commit compacts (pre-commit hook), so trimmed
        # conversations and summarised categories meet merges.  A third of trials unless told.
        often, with_init = self.rng.random() < 1 / 3, self.rng.random() < 3 / 4  # drawn either way
        self.compact_often = often if compact_often is None else compact_often
        # B runs `memcli init` (hooks and all) in three trials out of four; otherwise its first memcli
        # write must register the merge driver on its own, and B has no hooks.
        self.b_init = with_init if b_init is None else b_init
        self.counts = dict.fromkeys(COUNTERS, 0)
        self.violations: list[str] = []
        self.log: list[str] = []
        self.entries: dict[int, EntryModel] = {}
        self.messages: list[MessageModel] = []
        self.next_entry = 1
        self.next_message = 1
        self.next_branch = 1
        self.env = self._environment()
        self.remote = self.workdir / "remote.git"
        self.a = Clone("A", self.workdir / "A")
        self.b = Clone("B", self.workdir / "B")
        self.clones = (self.a, self.b)

    # ------------------------------------------------------------ processes
    def _environment(self) -> dict[str, str]:
        """git and memcli isolated from the user's config; `memcli` on PATH is this checkout's."""
        shim = self.workdir / "bin"
        shim.mkdir(parents=True, exist_ok=True)
        (shim / "memcli").write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -m memcli "$@"\n')
        (shim / "memcli").chmod(0o755)
        (self.workdir / "gitconfig").write_text("")
        env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMCLI_", "GIT_"))}
        pythonpath = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
        env.update(
            PATH=f"{shim}{os.pathsep}{os.environ.get('PATH', '')}",
            PYTHONPATH=pythonpath,
            NO_COLOR="1",
            GIT_CONFIG_NOSYSTEM="1",
            GIT_CONFIG_GLOBAL=str(self.workdir / "gitconfig"),
            GIT_TERMINAL_PROMPT="0",
            GIT_EDITOR="true",
            EDITOR="false",
            VISUAL="",
            LC_ALL="C",
            LANG="C",
        )
        return env

    def _record(self, where: Path, argv: list[str], result, input: str | None, seconds: float) -> None:
        rel = os.path.relpath(where, self.workdir)
        shown = shlex.join(argv)
        if input is not None:
            shown = f"printf '%s' {shlex.quote(input)} | {shown}"
        line = f"(cd {rel} && {shown})  # rc={result.returncode if result else 'timeout'} {seconds:.2f}s"
        self.log.append(line)
        if result is not None:
            for stream in (result.stdout, result.stderr):
                for out in stream.splitlines()[:12]:
                    self.log.append(f"    | {out}")
        if self.verbose:
            print(line, flush=True)

    def _run(self, argv: list[str], where: Path, input: str | None, timeout: float) -> subprocess.CompletedProcess:
        start = time.monotonic()
        try:
            result = subprocess.run(
                argv, cwd=where, env=self.env, input=input, capture_output=True, text=True, timeout=timeout
            )
        except subprocess.TimeoutExpired:
            self._record(where, argv, None, input, time.monotonic() - start)
            self.violate(
                "failed_git" if argv[0] == "git" else "failed_memcli",
                f"{shlex.join(argv)} timed out after {timeout}s in {where.name}",
            )
            raise TrialAborted("timeout") from None
        display = ["python", "-m", "memcli", *argv[3:]] if argv[0] == sys.executable else argv
        self._record(where, display, result, input, time.monotonic() - start)
        return result

    def git(
        self, clone: Clone | Path, *args: str, check: bool = True, integrate: bool = False, input: str | None = None
    ) -> subprocess.CompletedProcess:
        """Run git; `integrate` marks commands that merge (a failure there is a conflict)."""
        where = clone.path if isinstance(clone, Clone) else clone
        result = self._run(["git", *args], where, input, GIT_TIMEOUT)
        output = result.stdout + result.stderr
        for line in output.splitlines():  # memcli in a hook or the merge driver saying something failed
            if line.startswith("memcli:") and HOOK_TROUBLE.search(line) or "Traceback" in line:
                self.violate("hook_errors", f"[{getattr(clone, 'name', where.name)}] git {' '.join(args)}: {line}")
        if ("CONFLICT" in output or (integrate and result.returncode != 0)) and self._settle(clone, args):
            return result
        if "CONFLICT" in output or (integrate and result.returncode != 0):
            self.violate(
                "conflicts",
                f"[{getattr(clone, 'name', where.name)}] git {' '.join(args)} "
                f"(rc={result.returncode}):\n{output.strip()}",
            )
            raise TrialAborted("conflict")
        if check and result.returncode != 0:
            self.violate(
                "failed_git",
                f"[{getattr(clone, 'name', where.name)}] git {' '.join(args)} "
                f"(rc={result.returncode}):\n{output.strip()}",
            )
            raise TrialAborted("git failed")
        return result

    def _settle(self, clone: Clone | Path, args: tuple[str, ...]) -> bool:
        """With no driver (server trials), the one conflict memcli allows: one entry changed on both
        sides (edited on both, edited on one and removed or folded into a summary on the other),
        in that entry's file.  Settled as a user would: `memcli resolve`, then the merge, rebase,
        cherry-pick or stash pop carried on.  False for anything else (a violation)."""
        if not self.server or not isinstance(clone, Clone):
            return False
        for _round in range(20):  # a rebase or cherry-pick may stop once per commit
            unmerged = self.git(clone, "diff", "--name-only", "--diff-filter=U").stdout.split()
            if not unmerged:
                return True
            if not all(p.startswith(".memory/") and p.endswith(".md") and p.count("/") == 3 for p in unmerged):
                return False  # only entry files: never a conversation, never a category file
            self.memcli(clone, "resolve")
            self.counts["resolved_conflicts"] += len(unmerged)
            git_dir = clone.path / ".git"
            if (git_dir / "rebase-merge").exists() or (git_dir / "rebase-apply").exists():
                step = self.git(clone, "-c", "core.editor=true", "rebase", "--continue", check=False)
            elif (git_dir / "CHERRY_PICK_HEAD").exists():
                step = self.git(clone, "-c", "core.editor=true", "cherry-pick", "--continue", check=False)
                if (
                    step.returncode != 0
                    and not self.git(clone, "diff", "--name-only", "--diff-filter=U").stdout.split()
                ):
                    return self._skip_empty_picks(clone, step) is not None  # resolved to what HEAD holds: empty
            elif (git_dir / "MERGE_HEAD").exists():
                step = self.git(clone, "commit", "-q", "--no-edit", check=False)
            else:  # a stash pop: the stash stays when it did not apply cleanly
                if "stash" in args:
                    self.git(clone, "reset", "-q")
                    self.git(clone, "stash", "drop", "-q")
                return True
            if step.returncode == 0 and not self.git(clone, "diff", "--name-only", "--diff-filter=U").stdout.split():
                if not any((git_dir / n).exists() for n in ("rebase-merge", "rebase-apply", "CHERRY_PICK_HEAD")):
                    return True
        return False

    def _skip_empty_picks(self, clone: Clone, result: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
        """A cherry-pick that stopped only because a picked commit has nothing left to change (a
        removal whose entry the other side edited: the edit wins, so the removal commit is empty) is
        skipped, as git's message says and a user would; anything else that stops it is a conflict."""
        git_dir = clone.path / ".git"
        for _round in range(50):
            if not (git_dir / "CHERRY_PICK_HEAD").exists() and not (git_dir / "sequencer").exists():
                return result
            output = result.stdout + result.stderr
            unmerged = self.git(clone, "diff", "--name-only", "--diff-filter=U").stdout.split()
            if unmerged or not any(m in output for m in ("now empty", "nothing to commit", "allow-empty")):
                break
            self.counts["empty_picks_skipped"] += 1
            result = self.git(clone, "cherry-pick", "--skip", check=False)
        self.violate("conflicts", f"[{clone}] cherry-pick stopped:\n{(result.stdout + result.stderr).strip()}")
        raise TrialAborted("cherry-pick")

    def memcli(self, clone: Clone, *args: str, input: str | None = None) -> subprocess.CompletedProcess:
        result = self._run([sys.executable, "-m", "memcli", *args], clone.path, input, MEMCLI_TIMEOUT)
        if result.returncode != 0:
            self.violate(
                "failed_memcli",
                f"[{clone.name}] memcli {' '.join(args)} (rc={result.returncode}):\n"
                f"{result.stdout}{result.stderr}".strip(),
            )
            raise TrialAborted("memcli failed")
        return result

    def violate(self, counter: str, message: str) -> None:
        self.counts[counter] += 1
        self.violations.append(f"{counter}: {message}")
        self.log.append(f"!!! VIOLATION {counter}: {message}")
        if self.verbose:
            print(f"!!! VIOLATION {counter}: {message}", flush=True)

    # ------------------------------------------------------------ reading a clone
    def status(self, clone: Clone) -> list[str]:
        return self.git(clone, "status", "--porcelain", "--untracked-files=all").stdout.splitlines()

    def snapshot(self, clone: Clone) -> tuple[dict[int, list[tuple[str, str, object]]], set[int]]:
        """Entries of a clone by token (in-process, memcli's own reader), and tokens inside compaction summaries."""
        found: dict[int, list[tuple[str, str, object]]] = {}
        summarised: set[int] = set()
        store = Store(Layout(clone.path))
        for located in store.iter_entries():
            e = located.entry
            if is_summary(e.tags, e.body):
                summarised.update(int(n) for n in ENTRY_RE.findall(e.body))
                continue
            for n in set(int(x) for x in ENTRY_RE.findall(e.body)):
                found.setdefault(n, []).append((located.agent, located.category, e))
        return found, summarised

    def settled(self) -> list[EntryModel]:
        """Entries whose latest text both clones show, once: safe to edit or remove without a concurrent change."""
        snaps = [self.snapshot(c)[0] for c in self.clones]
        out = []
        for model in self.entries.values():
            if model.removed or model.wild or model.frozen:
                continue
            if all(
                len(s.get(model.n, [])) == 1
                and s[model.n][0][2].body == model.text
                and s[model.n][0][:2] == (model.agent, model.category)
                for s in snaps
            ):
                out.append(model)
        return out

    def entry_id(self, clone: Clone, model: EntryModel) -> int:
        hits = self.snapshot(clone)[0].get(model.n, [])
        assert len(hits) == 1, f"{model.token} seen {len(hits)} times in {clone}"
        return hits[0][2].id

    # ------------------------------------------------------------ text
    def words(self, k: int | None = None) -> str:
        return " ".join(self.rng.choice(WORDS) for _ in range(k or self.rng.randint(2, 5)))

    # ------------------------------------------------------------ memcli operations
    def op_add(self, clone: Clone, agent: str | None = None, category: str | None = None) -> EntryModel:
        agent = agent or self.rng.choice(AGENTS)
        category = category or self.rng.choice(CATEGORIES)
        n = self.next_entry
        self.next_entry += 1
        text = f"fzE{n} v1 {self.words()}"
        if category == "tasks" and self.rng.random() < 0.5:
            text = f"- [ ] {text}"
        self.memcli(clone, "add", agent, category, text)
        model = EntryModel(n, agent, category, text)
        self.entries[n] = model
        self.counts["entries_added"] += 1
        return model

    def _edit(self, clone: Clone, model: EntryModel, suffix: str = "") -> str:
        model.version += 1
        text = f"fzE{model.n} v{model.version}{suffix} {self.words()}"
        self.memcli(clone, "edit", model.agent, str(self.entry_id(clone, model)), text)
        self.counts["edits"] += 1
        return text

    def no_candidate(self, clone: Clone) -> None:
        """Nothing settled to edit or remove: sync a little (so that something settles), or add."""
        if self.rng.random() < 0.5:
            self.push(clone)
            self.pull(self.other(clone))
        else:
            self.op_add(clone)

    def other(self, clone: Clone) -> Clone:
        return self.b if clone is self.a else self.a

    def op_edit(self, clone: Clone) -> None:
        candidates = self.settled()
        if not candidates:
            return self.no_candidate(clone)
        model = self.rng.choice(candidates)
        model.text = self._edit(clone, model)

    def op_rm(self, clone: Clone) -> None:
        candidates = self.settled()
        if not candidates:
            return self.no_candidate(clone)
        model = self.rng.choice(candidates)
        self.memcli(clone, "rm", model.agent, str(self.entry_id(clone, model)), "--yes")
        model.removed = True
        self.counts["removals"] += 1

    def op_checkpoint(self, clone: Clone, agent: str | None = None) -> None:
        agent = agent or self.rng.choice(AGENTS)
        batch = []
        for i in range(self.rng.randint(2, 4)):
            batch.append({"role": "user" if i % 2 == 0 else "agent", "text": f"fzM{self.next_message} {self.words()}"})
            self.next_message += 1
        close = self.rng.random() < 0.25  # the session ends: its handoff, and its file may be trimmed
        self.memcli(
            clone, "checkpoint", agent, "-", "--quiet", *(["--close"] if close else []), input=json.dumps(batch)
        )
        self.counts["sessions_closed"] += close
        for m in assign_ids([dict(m) for m in batch]):
            self.messages.append(MessageModel(agent, m["text"], m["id"]))
        self.counts["messages_checkpointed"] += len(batch)

    def op_concurrent(self, _clone: Clone, kind: str | None = None) -> None:
        """One settled entry changed in both clones before either syncs.

        edit/edit (different texts: memcli keeps both, so at least one must be there), edit/rm
        (the edit wins), rm/rm (gone), or the same edit on both sides (there once).  With no driver
        (server trials) edit/edit and edit/rm are the documented same-entry conflict, which
        ``_settle`` settles with ``memcli resolve`` as a user would.
        """
        candidates = self.settled()
        if not candidates:
            return self.no_candidate(_clone)
        model = self.rng.choice(candidates)
        first, second = self.rng.sample(self.clones, 2)
        kind = kind or self.rng.choice(("edit/edit", "edit/edit", "edit/rm", "rm/rm", "same edit"))
        if kind == "edit/rm" and self.rng.random() < 0.5:
            kind = "rm/edit"  # the removal made first
        self.log.append(f"# concurrent {kind} of {model.token}: {first} then {second}")
        if kind == "rm/edit":
            entry_id = self.entry_id(first, model)
            self.memcli(first, "rm", model.agent, str(entry_id), "--yes")
            self.counts["removals"] += 1
            model.wild = True
            model.text = self._edit(second, model, "a")
            model.acceptable = {model.text}  # the edit wins over the removal
            self.counts["concurrent_edit_rm"] += 1
            return
        if kind == "rm/rm":
            for clone in (first, second):
                self.memcli(clone, "rm", model.agent, str(self.entry_id(clone, model)), "--yes")
            model.removed = True
            self.counts["removals"] += 2
            self.counts["concurrent_rm_rm"] += 1
            return
        if kind == "same edit":
            old_id = {c.name: self.entry_id(c, model) for c in self.clones}
            model.version += 1
            model.text = f"fzE{model.n} v{model.version}s {self.words()}"
            for clone in (first, second):
                self.memcli(clone, "edit", model.agent, str(old_id[clone.name]), model.text)
                self.counts["edits"] += 1
            model.frozen = True
            self.counts["concurrent_same_edit"] += 1
            return  # strict rule: exactly once, that text
        edited = self._edit(first, model, "a")
        model.wild = True
        if kind == "edit/edit":
            other = self._edit(second, model, "b")
            model.acceptable = {edited, other}
            self.counts["concurrent_edit_edit"] += 1
        else:
            self.memcli(second, "rm", model.agent, str(self.entry_id(second, model)), "--yes")
            self.counts["removals"] += 1
            model.acceptable = {edited}  # the edit wins over the removal
            self.counts["concurrent_edit_rm"] += 1
        model.text = edited

    def op_edit_rm(self, clone: Clone) -> None:
        """An edit against a removal of the same entry: in the two clones, or on a local side branch
        against main (the issue's history: git calls no driver for a modify/delete, so memcli must
        not delete a tracked file outright)."""
        if self.rng.random() < 0.5:
            return self.op_concurrent(clone, "edit/rm")
        self.op_side_branch(clone, edit_rm=True)

    # ------------------------------------------------------------ git operations
    def commit(self, clone: Clone, message: str = "memory", amend: bool = False) -> bool:
        if not self.status(clone):
            return False
        self.git(clone, "add", "-A")
        if amend:  # post-rewrite hook
            self.git(clone, "commit", "-q", "--amend", "--no-edit")
            self.counts["amends"] += 1
        else:
            self.git(clone, "commit", "-q", "-m", message)
            self.counts["commits"] += 1
        left = self.status(clone)
        if left:
            self.violate("dirty_after_commit", f"[{clone}] after `git commit`: {left}")
        return True

    def op_commit(self, clone: Clone) -> None:
        """A commit; now and then an amend of the last commit, when it is not pushed yet.

        Never of a merge commit: what is amended into a merge is an "evil merge" change, and any later
        `pull --rebase` drops merge commits with such changes (git's doing, not memcli's).
        """
        unpushed = self.git(clone, "rev-list", "--count", "origin/main..HEAD", check=False)
        parents = self.git(clone, "rev-list", "--parents", "-n", "1", "HEAD").stdout.split()
        amend = (
            unpushed.returncode == 0
            and unpushed.stdout.strip() not in ("", "0")
            and len(parents) == 2
            and self.rng.random() < 0.4
        )
        self.commit(clone, "memory", amend=amend)

    def pull(self, clone: Clone, rebase: bool | None = None) -> None:
        self.commit(clone, "before pull")  # a pull with a dirty tree is the user's problem, not memcli's
        rebase = self.rng.random() < 0.5 if rebase is None else rebase
        style = self.rng.random() < 0.5  # -c pull.rebase=… or the flag
        if rebase:
            args = self.rng.choice(
                (
                    ["-c", "pull.rebase=true", "pull", "-q"],
                    ["-c", "pull.rebase=false", "pull", "-q", "--rebase"],
                    ["-c", "pull.rebase=merges", "pull", "-q"],  # keeps local side-branch merges
                )
            )
            self.counts["pulls_rebase"] += 1
        else:
            args = ["-c", "pull.rebase=false", "pull", "-q", "--no-edit"]
            if not style:
                args.append("--no-rebase")
            self.counts["pulls_merge"] += 1
        self.git(clone, *args, "origin", "main", integrate=True)
        self.check_clean(clone, "pull")

    def check_clean(self, clone: Clone, what: str) -> None:
        left = self.status(clone)
        if left:
            self.violate("dirty_after_pull", f"[{clone}] after {what}: {left}")

    def push(self, clone: Clone) -> None:
        self.commit(clone, "before push")
        for _attempt in range(4):
            result = self.git(clone, "push", "-q", "origin", "main", check=False)
            if result.returncode == 0:
                self.counts["pushes"] += 1
                return
            output = result.stdout + result.stderr
            if "rejected" not in output and "fetch first" not in output:
                self.violate("failed_git", f"[{clone}] git push (rc={result.returncode}):\n{output.strip()}")
                raise TrialAborted("push failed")
            self.counts["push_rejected"] += 1
            self.pull(clone)
        self.violate("failed_git", f"[{clone}] git push still rejected after 4 pulls")
        raise TrialAborted("push")

    def op_side_branch(self, clone: Clone, edit_rm: bool = False) -> None:
        """A local branch with some memory work, integrated into main by merge, rebase or cherry-pick;
        with ``edit_rm``, an entry edited on the branch is removed on main meanwhile (or removed on the
        branch and edited on main): the edit must win."""
        self.commit(clone, "before branch")
        branch = f"side-{self.next_branch}"
        self.next_branch += 1
        self.git(clone, "checkout", "-q", "-b", branch)
        for i in range(self.rng.randint(1, 2)):
            for _ in range(self.rng.randint(1, 2)):
                self.op_add(clone)
            if self.rng.random() < 0.3:
                self.op_checkpoint(clone)
            self.commit(clone, f"{branch} work {i}")
        edited = None
        edit_on_branch = self.rng.random() < 0.5
        if edit_rm or self.rng.random() < 0.4:
            candidates = self.settled()
            if (
                candidates
            ):  # an edit on the branch; main below only adds (unless edit_rm), so nothing edits it concurrently
                edited = self.rng.choice(candidates)
                if edit_rm and not edit_on_branch:
                    self.memcli(clone, "rm", edited.agent, str(self.entry_id(clone, edited)), "--yes")
                    self.counts["removals"] += 1
                    self.commit(clone, f"{branch} removal")
                else:
                    edited.text = self._edit(clone, edited)
                    self.commit(clone, f"{branch} edit")
        self.git(clone, "checkout", "-q", "main")
        if edit_rm and edited is not None:
            self.log.append(
                f"# side-branch edit/rm of {edited.token}: the {'edit' if edit_on_branch else 'removal'} on {branch}"
            )
            if edit_on_branch:
                self.memcli(clone, "rm", edited.agent, str(self.entry_id(clone, edited)), "--yes")
                self.counts["removals"] += 1
            else:
                edited.text = self._edit(clone, edited)
            edited.wild, edited.acceptable = True, {edited.text}  # the edit wins over the removal
            self.counts["concurrent_edit_rm"] += 1
            self.commit(clone, "main edits or removes")
        if self.rng.random() < 0.6:  # main moves on meanwhile
            self.op_add(clone)
            self.commit(clone, "main meanwhile")
        how = self.rng.choice(("merge", "rebase", "cherry-pick"))
        if how == "merge":
            self.git(clone, "merge", "-q", "--no-edit", branch, integrate=True)
            self.counts["side_merge"] += 1
        elif how == "rebase":
            self.git(clone, "rebase", "-q", "main", branch, integrate=True)
            self.git(clone, "checkout", "-q", "main")
            self.git(clone, "merge", "-q", "--ff-only", branch, integrate=True)
            self.counts["side_rebase"] += 1
        else:
            result = self.git(clone, "cherry-pick", f"main..{branch}", check=False)
            self._skip_empty_picks(clone, result)
            self.counts["side_cherry_pick"] += 1
        self.check_clean(clone, f"side branch {how}")
        self.git(clone, "branch", "-q", "-D", branch)

    def op_stash(self, clone: Clone) -> None:
        """An uncommitted edit of a tracked entry file stashed, something else done, then popped.

        (A new entry is a new, untracked file: it stays out of a plain stash.)"""
        self.commit(clone, "before stash")
        candidates = self.settled()
        if not candidates:
            return self.op_add(clone)
        model = self.rng.choice(candidates)
        model.text = self._edit(clone, model)
        self.git(clone, "stash", "push", "-q", "-m", "fuzz")
        self.counts["stashes"] += 1
        if self.rng.random() < 0.6:
            self.pull(clone)
        else:
            self.op_add(clone)
            self.commit(clone, "while stashed")
        self.git(clone, "stash", "pop", "-q", integrate=True)
        unmerged = self.git(clone, "ls-files", "-u").stdout.strip()
        if unmerged:
            self.violate("conflicts", f"[{clone}] stash pop left unmerged files:\n{unmerged}")
            raise TrialAborted("stash pop")

    # ------------------------------------------------------------ setup, steps, final checks
    def setup(self) -> None:
        self.git(self.workdir, "init", "-q", "--bare", "-b", "main", str(self.remote))
        self.git(self.workdir, "init", "-q", "-b", "main", str(self.a.path))
        self.configure(self.a)
        self.git(self.a, "remote", "add", "origin", str(self.remote))
        self.memcli(self.a, "init", "--quiet")
        if self.compact_often:
            (self.a.path / ".memory" / "config.toml").write_text(COMPACT_OFTEN)
        self.git(self.a, "add", "-A")
        self.git(self.a, "commit", "-q", "-m", "memcli init")
        self.git(self.a, "push", "-q", "-u", "origin", "main")
        self.git(self.workdir, "clone", "-q", str(self.remote), str(self.b.path))
        self.configure(self.b)
        if not self.b_init:  # no init: the first write registers the driver
            self.op_add(self.b)
            driver = self.git(self.b, "config", "--local", "--get", "merge.memcli.driver", check=False)
            if driver.returncode != 0 or not driver.stdout.strip():
                self.violate("driver_missing", "[B] `memcli add` in a clone without the driver did not register it")
            return
        self.memcli(self.b, "init", "--quiet")
        changed = [line for line in self.status(self.b)]
        if changed:  # init in a fresh clone should change no tracked file; commit whatever it did change
            self.counts["init_changed_tracked"] += 1
            self.log.append(f"# memcli init in B changed: {changed}")
            self.commit(self.b, "memcli init in B")

    def configure(self, clone: Clone) -> None:
        self.git(clone, "config", "user.name", f"fuzzer {clone.name}")
        self.git(clone, "config", "user.email", f"{clone.name.lower()}@fuzz.invalid")
        if self.server:  # overrides .gitattributes: no driver, no union, as GitHub and GitLab merge
            info = clone.path / ".git" / "info"
            info.mkdir(parents=True, exist_ok=True)
            (info / "attributes").write_text("* merge=text\n")

    OPS = (
        ("op_add", 24),
        ("op_edit", 12),
        ("op_rm", 6),
        ("op_checkpoint", 11),
        ("op_commit", 11),
        ("pull", 13),
        ("push", 9),
        ("op_side_branch", 5),
        ("op_stash", 5),
        ("op_concurrent", 4),
        ("op_edit_rm", 4),
    )

    def step(self, i: int) -> None:
        names, weights = zip(*self.OPS)
        name = self.rng.choices(names, weights)[0]
        clone = self.rng.choice(self.clones)
        self.log.append(f"# step {i}: {name} on {clone}")
        getattr(self, name)(clone)

    def sync(self) -> None:
        """Commit everything, then pull and push until both clones hold the same commit."""
        for clone in self.clones:
            self.commit(clone, "final")
        self.pull(self.a)
        self.push(self.a)
        self.pull(self.b)
        self.push(self.b)
        self.pull(self.a)
        heads = [self.git(c, "rev-parse", "HEAD").stdout.strip() for c in self.clones]
        if heads[0] != heads[1]:
            self.violate("clones_differ", f"HEADs differ after the final sync: {heads}")

    def memory_files(self, clone: Clone) -> dict[str, bytes]:
        memory = clone.path / ".memory"
        return {
            str(p.relative_to(memory)): p.read_bytes()
            for p in sorted(memory.rglob("*"))
            if p.is_file() and ".vault" not in p.relative_to(memory).parts
        }

    def check_identical(self, when: str) -> None:
        a, b = self.memory_files(self.a), self.memory_files(self.b)
        if a != b:
            differ = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
            self.violate("clones_differ", f"{when}: memory files differ: {differ}")

    def check_model(self, clone: Clone, when: str) -> None:
        """Every invariant on one clone, read through the CLI (`list --json`) and memcli's conversation reader."""
        listed = json.loads(self.memcli(clone, "list", "--json").stdout)
        found: dict[int, list[dict]] = {}
        summarised: set[int] = set()
        in_summaries: dict[int, int] = {}
        for e in listed:
            if not e["body"].strip():
                self.violate(
                    "empty_bodies",
                    f"[{clone}] {when}: entry {e['id']} ({e['agent']}/{e['category']}) has an empty body",
                )
            if is_summary(e["tags"], e["body"]):
                for n in set(int(x) for x in ENTRY_RE.findall(e["body"])):
                    summarised.add(n)
                    in_summaries[n] = in_summaries.get(n, 0) + 1
                continue
            for n in set(int(x) for x in ENTRY_RE.findall(e["body"])):
                found.setdefault(n, []).append(e)
        # Not a loss, so not a violation: both clones capping one category on their own each write a
        # summary of the same older entries, and the merge keeps both.
        self.counts["summarised_twice"] = max(
            self.counts["summarised_twice"], sum(1 for k in in_summaries.values() if k > 1)
        )
        conflict_copies = summarised_ok = trimmed_ok = 0
        for model in self.entries.values():
            hits = found.get(model.n, [])
            where = f"[{clone}] {when}: {model.token} ({model.agent}/{model.category})"
            if model.wild:
                texts = [h["body"] for h in hits]
                conflict_copies += sum("merge-conflict" in h["tags"] for h in hits)
                if not any(t in model.acceptable for t in texts) and model.n not in summarised:
                    self.violate(
                        "lost_entries",
                        f"{where}: changed concurrently, none of {sorted(model.acceptable)} present; found {texts}",
                    )
                stray = [t for t in texts if t not in model.acceptable]
                if stray:
                    self.violate("stale_texts", f"{where}: changed concurrently, unexpected texts {stray}")
                if len(texts) != len(set(texts)):
                    self.violate("duplicated_entries", f"{where}: the same text more than once: {texts}")
                continue
            if model.removed:
                if hits:
                    self.violate(
                        "resurrected_removals", f"{where}: removed, but present: {[(h['id'], h['body']) for h in hits]}"
                    )
                continue
            if not hits:
                if model.n in summarised:
                    summarised_ok += 1
                else:
                    self.violate("lost_entries", f"{where}: expected {model.text!r}, absent")
                continue
            if len(hits) > 1:
                self.violate(
                    "duplicated_entries", f"{where}: present {len(hits)} times: {[(h['id'], h['body']) for h in hits]}"
                )
            if not any(h["body"] == model.text for h in hits):
                self.violate("stale_texts", f"{where}: expected {model.text!r}, found {[h['body'] for h in hits]}")
            elif any((h["agent"], h["category"]) != (model.agent, model.category) for h in hits):
                self.violate("stale_texts", f"{where}: found in {[(h['agent'], h['category']) for h in hits]}")
        layout = Layout(clone.path)
        for agent in AGENTS:
            stored = {m["text"] for m in read_conversation(layout, agent)}
            trimmed = _jsonl(layout, agent)[1]  # the ids a compaction trimmed
            for m in (m for m in self.messages if m.agent == agent):
                if m.text in stored:
                    continue
                if m.id in trimmed:
                    trimmed_ok += 1
                else:
                    self.violate(
                        "lost_messages",
                        f"[{clone}] {when}: message {m.text!r} ({agent}, id {m.id}) not in conversations/{agent}.jsonl",
                    )
        for key, value in (
            ("conflict_copies", conflict_copies),
            ("summarised_entries", summarised_ok),
            ("trimmed_messages", trimmed_ok),
        ):
            self.counts[key] = max(self.counts[key], value)  # the most seen by any one check

    def final(self) -> None:
        self.log.append("# final sync")
        self.sync()
        for clone in self.clones:
            self.check_clean(clone, "the final sync")
        self.check_identical("after the final sync")
        for clone in self.clones:
            self.check_model(clone, "after the final sync")
        self.log.append("# compact in both clones, then sync again")
        for clone in self.clones:
            self.memcli(clone, "compact", "--quiet")
            self.check_model(clone, "after memcli compact")
        self.sync()
        for clone in self.clones:
            self.check_clean(clone, "the sync after compact")
        self.check_identical("after compact and a sync")
        for clone in self.clones:
            self.check_model(clone, "after compact and a sync")

    def run(self) -> None:
        try:
            self.setup()
            for i in range(self.steps):
                self.step(i)
            self.final()
        except TrialAborted as exc:
            self.log.append(f"# trial aborted: {exc}")


def is_summary(tags: list[str], body: str) -> bool:
    return "compacted" in tags and body.startswith("Compacted ")


def run_trial(
    seed: int,
    steps: int = 40,
    workdir: Path | str | None = None,
    verbose: bool = False,
    keep: bool = False,
    compact_often: bool | None = None,
    b_init: bool | None = None,
    server: bool | None = None,
) -> TrialResult:
    """One trial in ``workdir`` (a fresh temporary folder if None; removed afterwards unless ``keep``
    or a violation).  The command log goes to ``<workdir>/commands.log`` when the folder is kept."""
    own = workdir is None
    path = Path(tempfile.mkdtemp(prefix=f"memcli-fuzz-{seed}-")) if own else Path(workdir)
    path.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    trial = Trial(seed, steps, path, verbose, compact_often, b_init, server)
    trial.run()
    result = TrialResult(
        seed,
        steps,
        trial.compact_often,
        trial.b_init,
        trial.counts,
        trial.violations,
        time.monotonic() - start,
        workdir=path,
        server=trial.server,
    )
    if not result.ok or keep or not own:
        result.log_path = path / "commands.log"
        result.log_path.write_text("\n".join(trial.log) + "\n")
    else:
        shutil.rmtree(path, ignore_errors=True)
        result.workdir = None
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--trials", type=int, default=5, help="how many trials (default 5)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the first trial; trial i uses seed+i (default 1)")
    parser.add_argument("--steps", type=int, default=40, help="random steps per trial (default 40)")
    parser.add_argument("--keep", action="store_true", help="keep every trial's folder and command log")
    parser.add_argument("--verbose", action="store_true", help="print every command as it runs")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--compact-often",
        dest="compact_often",
        action="store_true",
        default=None,
        help="every trial compaction-heavy (default: a random third of them)",
    )
    mode.add_argument("--compact-rarely", dest="compact_often", action="store_false", help="no compaction-heavy trials")
    merges = parser.add_mutually_exclusive_group()
    merges.add_argument(
        "--server",
        dest="server",
        action="store_true",
        default=None,
        help="every trial merges as a hosting service does: no driver (default: a random half)",
    )
    merges.add_argument("--driver", dest="server", action="store_false", help="every trial merges with the driver")
    args = parser.parse_args(argv)
    totals = dict.fromkeys(COUNTERS, 0)
    failed = []
    start = time.monotonic()
    for i in range(args.trials):
        result = run_trial(
            args.seed + i,
            args.steps,
            verbose=args.verbose,
            keep=args.keep,
            compact_often=args.compact_often,
            server=args.server,
        )
        print(result.line(), flush=True)
        for key in COUNTERS:
            totals[key] += result.counts[key]
        if not result.ok:
            failed.append(result)
            for v in result.violations:
                print("    " + v.replace("\n", "\n    "))
        if result.log_path:
            print(f"    commands: {result.log_path}")
    print(f"total: {args.trials} trials x {args.steps} steps in {time.monotonic() - start:.1f}s")
    print("  " + ", ".join(f"{k} {totals[k]}" for k in INFO))
    print("  violations: " + ", ".join(f"{k} {totals[k]}" for k in VIOLATIONS))
    if failed:
        print(
            f"FAILED: {len(failed)} of {args.trials} trials broke an invariant (seeds "
            f"{', '.join(str(r.seed) for r in failed)})"
        )
        return 1
    print("OK: every invariant held")
    return 0


if __name__ == "__main__":
    sys.exit(main())
