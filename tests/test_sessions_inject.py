"""Conversations, checkpoint, recover and inject with a budget that holds."""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memcli.capture import extract

from memcli.recall import block as inject

from memcli.storage import vault
from memcli.storage.paths import Layout
from memcli.storage.checkpoints import DAY_MS, save_checkpoint
from memcli.storage.store import Store
from memcli.storage.vault import Entry

from .conftest import FIXTURES, conversation_files, conversation_text, run

FOUR = [
    {"role": "user", "text": "fix the login redirect"},
    {"role": "assistant", "text": "We decided to use a middleware guard for the redirect loop."},
    {"role": "user", "text": "ok"},
    {"role": "assistant", "text": "Note: the cookie must be set before the redirect or it is lost."},
]


def conversation_lines(mem: Path, agent: str = "dev") -> list[dict]:
    """The message lines of the agent's conversation files (not the line closing a session)."""
    lines = [json.loads(line) for line in conversation_text(mem, agent).splitlines()]
    return [m for m in lines if m != {"session": "closed"}]


# ------------------------------------------------------------------ checkpoint
def test_checkpointing_the_same_messages_twice_keeps_four_lines(mem: Path):
    payload = json.dumps(FOUR)
    run("checkpoint", "dev", "-", cwd=mem, input=payload, check=True)
    run("checkpoint", "dev", "-", cwd=mem, input=payload, check=True)
    lines = conversation_lines(mem)
    assert len(lines) == 4
    assert [m["role"] for m in lines] == ["user", "agent", "user", "agent"]
    # A longer save of the same conversation adds only the new message.
    run("checkpoint", "dev", "-", cwd=mem, input=json.dumps(FOUR + [{"role": "user", "text": "ok"}]), check=True)
    assert len(conversation_lines(mem)) == 5


def test_every_input_format_is_accepted(mem: Path, tmp_path: Path):
    jsonl = tmp_path / "c.jsonl"
    jsonl.write_text("\n".join(json.dumps(m) for m in FOUR) + "\n")
    run("checkpoint", "a1", str(jsonl), cwd=mem, check=True)
    assert len(conversation_lines(mem, "a1")) == 4
    run("checkpoint", "a2", str(FIXTURES / "conversation.legacy.json"), cwd=mem, check=True)
    assert [m["text"] for m in conversation_lines(mem, "a2")] == [
        "where do the backups go?",
        "to the cold bucket, nightly",
    ]
    run("checkpoint", "a3", str(FIXTURES / "cursor-transcript.jsonl"), cwd=mem, check=True)
    texts = [m["text"] for m in conversation_lines(mem, "a3")]
    assert texts[0] == "rode os testes" and texts[-1].startswith("We decided to pin the Node version")
    run("checkpoint", "a4", str(FIXTURES / "checkpoint.legacy.json"), cwd=mem, check=True)
    saved = json.loads((mem / ".memory" / ".vault" / "checkpoints" / "a4.json").read_text())
    assert saved["chatId"] == "chat_ops_7" and saved["modelId"] == "model-x-2"


def test_internal_messages_are_never_stored(mem: Path):
    msgs = FOUR + [{"role": "agent", "text": "internal chatter", "internal": True}]
    run("checkpoint", "dev", "-", cwd=mem, input=json.dumps(msgs), check=True)
    assert "internal chatter" not in conversation_text(mem, "dev")


def test_bad_input_is_one_line_and_writes_nothing(mem: Path, tmp_path: Path):
    before = sorted(str(p) for p in (mem / ".memory").rglob("*"))
    for payload in ["not json at all", '{"messages": 5}', '[{"role": "user"}]', "[1, 2]", "", '"text"']:
        result = run("checkpoint", "dev", "-", cwd=mem, input=payload)
        assert result.returncode == 1, payload
        assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr
    result = run("checkpoint", "dev", str(tmp_path / "missing.json"), cwd=mem)
    assert result.returncode == 1 and "missing.json" in result.stderr
    assert sorted(str(p) for p in (mem / ".memory").rglob("*")) == before


def test_secrets_in_messages_are_redacted(mem: Path):
    token = "ghp_" + "Z9y8" * 9
    msgs = [{"role": "user", "text": f"use token {token} please"}, {"role": "agent", "text": "done"}]
    result = run("checkpoint", "dev", "-", cwd=mem, input=json.dumps(msgs), check=True)
    assert "redacted 1 secret" in result.stderr
    stored = conversation_text(mem, "dev")
    assert token not in stored and "[REDACTED:GitHub token]" in stored
    assert token not in (mem / ".memory" / ".vault" / "checkpoints" / "dev.json").read_text()


def test_close_writes_handoff_and_insights_once(mem: Path):
    payload = json.dumps(FOUR)
    run("checkpoint", "dev", "-", "--close", cwd=mem, input=payload, check=True)
    store = Store(Layout(mem))
    handoffs = store.read("dev", "handoffs")
    assert len(handoffs) == 1
    assert handoffs[0].body.splitlines()[0] == "Asked: fix the login redirect"
    assert handoffs[0].tags == ["auto-handoff", "session-close"]
    decisions, lessons = store.read("dev", "decisions"), store.read("dev", "lessons")
    assert [d.body for d in decisions] == ["We decided to use a middleware guard for the redirect loop."]
    assert [x.body for x in lessons] == ["Note: the cookie must be set before the redirect or it is lost."]
    assert decisions[0].tags == ["auto-extract", "session-close"]
    run("checkpoint", "dev", "-", "--close", cwd=mem, input=payload, check=True)
    assert len(store.read("dev", "handoffs")) == 1
    assert len(store.read("dev", "decisions")) == 1 and len(store.read("dev", "lessons")) == 1


def test_handoff_is_last_six_messages_of_200_chars(mem: Path):
    msgs = [{"role": "user" if i % 2 else "assistant", "text": f"message {i} " + "x" * 300} for i in range(10)]
    run("checkpoint", "dev", "-", "--close", cwd=mem, input=json.dumps(msgs), check=True)
    body = Store(Layout(mem)).read("dev", "handoffs")[0].body
    lines = body.splitlines()
    assert lines[0].startswith("Asked: message 1 ") and len(lines[0]) == len("Asked: ") + 200
    assert lines[1] == "Where it stopped:"
    assert len(lines[2:]) == 6 and lines[2].startswith("[Agent]: message 4 ")
    assert all(len(line.split(": ", 1)[1]) == 200 and line.endswith("…") for line in lines[2:])


def test_extractor_cases():
    cases = json.loads((FIXTURES / "extractor-cases.json").read_text())["cases"]
    for case in cases:
        got = extract.extract([{"role": case["role"], "text": case["text"]}])
        expected = case["expected"]
        for key in ("decisions", "lessons"):
            if key in expected:
                assert len(getattr(got, key)) == expected[key], case["name"]
        if "decisionsContains" in expected:
            assert any(expected["decisionsContains"] in d.lower() for d in got.decisions), case["name"]
        if "lessonsContains" in expected:
            assert any(expected["lessonsContains"] in x.lower() for x in got.lessons), case["name"]


def test_extractor_dedupes_and_ignores_user_messages():
    msgs = [
        {"role": "user", "text": "We decided to use Redis for the cache layer in production."},
        {
            "role": "agent",
            "text": "We decided to use Redis for the cache layer in production!\n"
            "we decided to use redis for the cache layer in production.",
        },
    ]
    assert len(extract.extract(msgs).decisions) == 1


# ------------------------------------------------------------------ recover
def test_recover_valid_stale_and_corrupt(mem: Path):
    result = run("recover", "dev", cwd=mem)
    assert result.returncode == 3 and "no valid checkpoint" in result.stderr
    run("checkpoint", "dev", "-", cwd=mem, input=json.dumps(FOUR), check=True)
    result = run("recover", "dev", "--json", cwd=mem, check=True)
    data = json.loads(result.stdout)
    assert data["agentId"] == "dev" and len(data["messages"]) == 4
    layout = Layout(mem)
    save_checkpoint(layout, "dev", FOUR, 50, now_ms=int(time.time() * 1000) - 8 * DAY_MS)
    assert run("recover", "dev", cwd=mem).returncode == 3
    (mem / ".memory" / ".vault" / "checkpoints" / "dev.json").write_text("{corrupt")
    assert run("recover", "dev", cwd=mem).returncode == 3
    for saved_at in ("1e999", "-1e999", "NaN"):  # JSON that Python reads as infinity or NaN
        (mem / ".memory" / ".vault" / "checkpoints" / "dev.json").write_text(
            '{"savedAt": %s, "messages": [{"role": "user", "text": "hi"}]}' % saved_at
        )
        result = run("recover", "dev", cwd=mem)
        assert result.returncode == 3 and "no valid checkpoint" in result.stderr, (saved_at, result.stderr)
        result = run("status", "dev", cwd=mem)
        assert result.returncode == 0 and "error" not in result.stderr, (saved_at, result.stderr)
        assert "hi" not in run("inject", "dev", "x", cwd=mem, check=True).stdout


def test_old_checkpoint_is_not_injected(mem: Path):
    save_checkpoint(
        Layout(mem), "dev", [{"role": "user", "text": "stale hello"}], 50, now_ms=int(time.time() * 1000) - 8 * DAY_MS
    )
    assert "stale hello" not in run("inject", "dev", "x", cwd=mem, check=True).stdout
    save_checkpoint(Layout(mem), "dev", [{"role": "user", "text": "fresh hello"}], 50)
    assert "[user]: fresh hello" in run("inject", "dev", "x", cwd=mem, check=True).stdout


# ------------------------------------------------------------------ inject
def test_inject_reproduces_the_original_block(mem: Path):
    # The block as the original's buildTextBlock lays it out (reference/aiteam-x-format.md, "Inject").
    expected_block = (FIXTURES / "inject-expected.txt").read_text()
    project = expected_block.split("Project:\n", 1)[1].split("\n\nLast Session:")[0]
    (mem / ".memory" / "_project.md").write_text(project + "\n")
    store = Store(Layout(mem))
    store.add("ops-lead", "decisions", "Name agents in kebab-case #naming #conventions (see ticket #17, colour #abc)")
    store.add("ops-lead", "decisions", "Guardar valores em centavos — float perde precisão nas somas.")
    store.add("ops-lead", "tasks", "- [ ] Ship the export\n- [x] done already\n  - [ ] nested open step")
    store.add("ops-lead", "handoffs", "[User]: fix the invoice totals\n[Agent]: rounding now happens once, at the end")
    save_checkpoint(
        Layout(mem),
        "ops-lead",
        [
            {"role": "user", "text": "good morning"},
            {"role": "agent", "text": "morning"},
            {"role": "user", "text": "continue the invoice fix"},
        ],
        50,
    )
    out = run("inject", "ops-lead", cwd=mem, check=True).stdout
    assert out == expected_block.rstrip("\n") + "\n"
    with_instructions = run("inject", "ops-lead", "--instructions", cwd=mem, check=True).stdout
    assert with_instructions.endswith(
        "## MEMORY: When asked to save/learn/remember, WRITE to files (don't just say you will).\n"
        f"Shared: {mem}/.memory/_project.md | Personal: {mem}/.memory/ops-lead/"
        "{decisions,lessons,tasks,projects,handoffs}.md\n---\n<!-- memcli:end -->\n"
    )


def test_inject_picks_relevant_decisions_and_lessons(mem: Path):
    store = Store(Layout(mem))
    for i in range(6):
        store.add("dev", "decisions", f"unrelated decision {i} about the build pipeline")
    store.add("dev", "decisions", "Use SSE for streaming responses to the dashboard")
    store.add("dev", "lessons", "Streaming through nginx needs proxy_buffering off")
    store.add("dev", "lessons", "The build cache is keyed on the lockfile")
    data = json.loads(
        run("inject", "dev", "add streaming to the dashboard", "--format", "json", cwd=mem, check=True).stdout
    )
    assert data["sections"]["decisions"][0]["text"] == "Use SSE for streaming responses to the dashboard"
    assert data["sections"]["lessons"][0]["text"].startswith("Streaming through nginx")
    # Only entries that hold the task's words: "the" and "to" make none of the others relevant.
    assert len(data["sections"]["decisions"]) == 1 and len(data["sections"]["lessons"]) == 1
    assert data["tokens"] <= data["budget"] == 2000
    assert set(data) >= {"agent", "command", "budget", "tokens", "block", "sections", "cut"}


def test_inject_never_breaks_the_wrapper(tmp_path: Path, mem: Path):
    for cwd, args in [
        (tmp_path, ["inject", "dev", "x"]),
        (mem, ["inject", "nobody", "x"]),
        (mem, ["inject", "../evil", "x"]),
        (tmp_path, ["--dir", str(tmp_path / "no"), "inject", "dev"]),
    ]:
        result = run(*args, cwd=cwd)
        assert result.returncode == 0, (args, result.stderr)
        assert "Traceback" not in result.stderr
    assert run("inject", "dev", "x", cwd=tmp_path).stdout == ""
    # An unknown agent in an initialised memory gets the project text only (none while it is the template).
    assert run("inject", "nobody", "x", cwd=mem).stdout == ""
    (mem / ".memory" / "_project.md").write_text("# Shop\n\n**Stack:** Django\n")
    out = run("inject", "nobody", "x", cwd=mem).stdout
    assert "Project:\n# Shop\n\n**Stack:** Django" in out and "Relevant Decisions" not in out
    # A mangled vault file or config: warnings on stderr, a block on stdout, exit 0.
    (mem / ".memory" / "dev").mkdir()
    (mem / ".memory" / "dev" / "decisions.md").write_bytes(b"\xff\xfe\x00")
    (mem / ".memory" / "config.toml").write_text("not = [toml")
    result = run("inject", "dev", "x", cwd=mem)
    assert result.returncode == 0 and "Project:" in result.stdout and "warning" in result.stderr


def test_inject_reads_the_command_from_stdin_and_explains(mem: Path):
    Store(Layout(mem)).add("dev", "decisions", "Adopt SSE for streaming")
    result = run("inject", "dev", "-", "--explain", cwd=mem, input="streaming please\n", check=True)
    assert "Adopt SSE for streaming" in result.stdout
    assert "inject:" in result.stderr and "tokens" in result.stderr and "inject:" not in result.stdout


def test_inject_budget_cuts_in_order(mem: Path):
    store = Store(Layout(mem))
    (mem / ".memory" / "_project.md").write_text("P" * 3000)
    store.add("dev", "decisions", "decision about streaming " + "d" * 300)
    store.add("dev", "lessons", "lesson about streaming " + "l" * 300)
    store.add("dev", "tasks", "- [ ] task one\n- [ ] task two")
    store.add("dev", "handoffs", "[User]: the handoff survives")
    data = json.loads(run("inject", "dev", "streaming", "-b", "200", "-f", "json", cwd=mem, check=True).stdout)
    assert data["tokens"] <= 200
    s = data["sections"]
    assert s["lessons"] == [] and s["decisions"] == [] and s["project"]["truncated"]
    assert inject.TRUNCATED in data["block"]
    assert s["handoff"]["text"] == "[User]: the handoff survives" and len(s["tasks"]) == 2


@pytest.mark.parametrize("budget", ["10000001", "1000000000000000", str(10**40)])
def test_inject_takes_any_budget_however_large_and_exits_0(mem: Path, budget: str):
    """inject promises exit 0 and what it can print: a budget larger than any block never cuts it.
    What is not a budget at all stays a usage error (exit 2, stdout empty), as for every command."""
    Store(Layout(mem)).add("dev", "decisions", "Adopt SSE for streaming")
    for process in (False, True):
        result = run("inject", "dev", "streaming", "--budget", budget, cwd=mem, process=process)
        assert result.returncode == 0 and "Adopt SSE for streaming" in result.stdout and result.stderr == ""
    data = json.loads(run("inject", "dev", "streaming", "-b", budget, "-f", "json", cwd=mem, check=True).stdout)
    assert data["budget"] == int(budget) and "Adopt SSE" in data["block"]
    for bad in ("0", "-5", "1e9", "lots"):
        result = run("inject", "dev", "streaming", "--budget", bad, cwd=mem)
        assert result.returncode == 2 and result.stdout == "" and len(result.stderr.splitlines()) == 1, bad
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    assert "however large its `--budget`" in readme and "for `inject` too (`--budget 0`" in readme


_big_text = st.text(st.characters(blacklist_categories=("Cs",)), min_size=0, max_size=3000)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    project=st.one_of(_big_text, st.text(min_size=5000, max_size=20000)),
    n_entries=st.integers(0, 300),
    body_len=st.integers(1, 2000),
    handoff=_big_text,
    task_len=st.integers(1, 3000),
    budget=st.integers(50, 3000),
    command=st.sampled_from(["", "streaming", "fix the login redirect loop", "日本語"]),
)
def test_the_block_never_exceeds_the_budget(project, n_entries, body_len, handoff, task_len, budget, command):
    root = Path(tempfile.mkdtemp())
    try:
        layout = Layout(root)
        (root / ".memory" / "dev").mkdir(parents=True)
        (root / ".memory" / "_project.md").write_text(project)
        words = "streaming login redirect loop cache proxy token budget ".split()
        for c, cat in enumerate(["decisions", "lessons", "tasks", "handoffs"]):
            entries = []
            for i in range(n_entries if cat in ("decisions", "lessons") else 3):
                if cat == "tasks":
                    body = "\n".join(f"- [ ] task {j} " + "t" * task_len for j in range(5))
                elif cat == "handoffs":
                    body = handoff or "h"
                else:
                    body = " ".join(words[(i + k) % len(words)] for k in range(max(1, body_len // 8)))
                entries.append(Entry(1_700_000_000_000 + c * 10_000 + i, None, [], body))
            (root / ".memory" / "dev" / f"{cat}.md").write_text(vault.serialize(entries))
        save_checkpoint(layout, "dev", [{"role": "user", "text": "x" * 5000}] * 5, 50)
        sel, used = inject.build(layout, "dev", command, budget, True, lambda msg: None)
        assert used == budget
        assert inject.tokens(sel.render()) <= budget
    finally:
        shutil.rmtree(root, ignore_errors=True)  # tantivy may still be tidying its files


def test_a_malformed_conversation_line_is_kept_and_reported_never_dropped(mem: Path):
    run("checkpoint", "dev", "-", cwd=mem, input=json.dumps(FOUR[:2]), check=True)
    (path,) = conversation_files(mem, "dev")
    # a half-merged line, and a message appended by hand without an id
    path.write_text(path.read_text() + '{not json\n{"role": "user", "text": "typed by hand"}\n')
    result = run("checkpoint", "dev", "-", cwd=mem, input=json.dumps(FOUR), check=True)
    assert "1 line that is not a message" in result.stderr
    assert len([m for m in conversation_lines_tolerant(path)]) == 5
    report = json.loads(run("compact", "--json", cwd=mem, check=True).stdout)
    assert any("not a message" in p for p in report["problems"])
    assert "{not json" in path.read_text(), "compact keeps what it cannot read"
    texts = [m["text"] for m in json.loads(run("recover", "dev", "--json", cwd=mem, check=True).stdout)["messages"]]
    assert texts[-1] == FOUR[-1]["text"]
    from memcli.storage.conversations import read_conversation

    assert "typed by hand" in [m["text"] for m in read_conversation(Layout(mem), "dev")]


def conversation_lines_tolerant(path: Path) -> list[dict]:
    out = []
    for line in path.read_text().splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            continue
    return out


def test_allow_secret_keeps_messages_as_they_are(mem: Path):
    token = "ghp_" + "Q7w6" * 9
    msgs = [{"role": "user", "text": f"token {token}"}, {"role": "agent", "text": "ok"}]
    result = run("checkpoint", "dev", "-", "--allow-secret", cwd=mem, input=json.dumps(msgs), check=True)
    assert "redacted" not in result.stderr
    assert token in conversation_text(mem, "dev")


def test_the_injected_block_never_comes_back_into_memory(mem: Path, tmp_path: Path):
    """What a wrapper sends is the block plus the task; agents record it whole (issue: feedback loop)."""
    store = Store(Layout(mem))
    (mem / ".memory" / "_project.md").write_text("# Shop\n\nWe decided to use Postgres for everything.\n")
    store.add("dev", "decisions", "We decided to use SSE for the order feed because proxies drop sockets.")
    store.add("dev", "handoffs", "[User]: an older session\n[Agent]: done")
    for session, task in enumerate(["fix the login redirect loop", "add a retry to the payment webhook"]):
        block = run("inject", "dev", task, "--instructions", cwd=mem, check=True).stdout
        prompt = block.rstrip("\n") + task  # what "$(memcli inject dev "$task")$task" gives
        transcript = tmp_path / f"t{session}.jsonl"
        transcript.write_text(
            "\n".join(
                json.dumps(line)
                for line in [
                    {
                        "role": "user",
                        "message": {"content": [{"type": "text", "text": f"<user_query>\n{prompt}\n</user_query>"}]},
                    },
                    {
                        "role": "assistant",
                        "message": {
                            "content": [
                                {"type": "text", "text": f"Working on: {task}."},
                                {"type": "tool_use", "name": "Edit", "input": {"file_path": f"src/{session}.py"}},
                            ]
                        },
                    },
                ]
            )
            + "\n"
        )
        run("checkpoint", "dev", str(transcript), "--close", cwd=mem, check=True)
        stored = "".join(
            p.read_text()
            for p in (mem / ".memory").rglob("*")
            if p.is_file() and ".vault" not in str(p) and p.name != "_project.md"
        )
        assert "MEMORY CONTEXT" not in stored and "memcli:end" not in stored and "WRITE to files" not in stored
        assert stored.count("We decided to use SSE") == 1, "the block's decision was not extracted again"
        assert "We decided to use Postgres" not in stored
        handoff = store.read("dev", "handoffs")[0].body
        assert handoff.startswith(f"Asked: {task}\nDone: changed src/{session}.py\n"), handoff
        nxt = run("inject", "dev", "next", cwd=mem, check=True).stdout
        assert f"Asked: {task}" in nxt


def test_sections_are_true_after_compaction_and_close(mem: Path):
    store = Store(Layout(mem))
    assert run("inject", "dev", "anything", cwd=mem, check=True).stdout == "", "the unfilled template is not injected"
    msgs = [
        {"role": "user" if i % 2 == 0 else "agent", "text": f"message number {i} of the long session"}
        for i in range(30)
    ]
    msgs[-2] = {"role": "user", "text": "ship the export feature"}
    run("checkpoint", "dev", "-", "--close", cwd=mem, input=json.dumps(msgs), check=True)
    for i in range(35):
        store.add("dev", "handoffs", f"[User]: old session {i}\n[Agent]: done {i}")
    last_msgs = msgs + [
        {"role": "user", "text": "ship the export feature, part two"},
        {"role": "agent", "text": "part two is shipped"},
    ]
    run("checkpoint", "dev", "-", "--close", cwd=mem, input=json.dumps(last_msgs), check=True)  # the real last
    run("compact", cwd=mem, check=True)
    handoffs = store.read("dev", "handoffs")
    # The trimmed session's handoff is dated by its messages (older than the 35 added after it),
    # so the cap folds it into the summary.
    assert any("Session compacted" in e.body for e in handoffs)
    assert any(e.body.startswith("Compacted ") for e in handoffs)
    block = run("inject", "dev", "export", cwd=mem, check=True).stdout
    last = block.split("Last Session:\n", 1)[1].split("\n\n", 1)[0]
    assert "ship the export feature, part two" in last and "ompacted" not in last, last
    status = json.loads(run("status", "dev", "--json", cwd=mem, check=True).stdout)
    assert status["agents"]["dev"]["last_handoff"]["id"] == store.last_handoff("dev").id
    assert not store.last_handoff("dev").body.startswith(("Compacted", "Session compacted"))
    snapshot = block.split("Recovering previous session:\n", 1)[1] if "Recovering" in block else ""
    for line in snapshot.splitlines():
        if line.startswith("["):
            assert line.split("]: ", 1)[1][:40] not in last, "no message twice in one block"


def test_overlapping_windows_and_chat_ids_store_each_message_once(mem: Path):
    conversation = [{"role": "user" if i % 2 == 0 else "agent", "text": f"turn {i}"} for i in range(8)]
    conversation[5] = {"role": "agent", "text": "ok"}
    conversation[7] = {"role": "agent", "text": "ok"}  # the same short reply twice
    for start, end, chat in [
        (0, 3, None),
        (1, 4, "chat-1"),
        (2, 6, None),
        (0, 6, "chat-1"),
        (3, 8, "chat-2"),
        (0, 8, None),
    ]:
        window = conversation[start:end]
        args = ["checkpoint", "dev", "-"] + (["--chat-id", chat] if chat else [])
        run(*args, cwd=mem, input=json.dumps(window), check=True)
    texts = [m["text"] for m in conversation_lines(mem)]
    assert sorted(texts) == sorted(m["text"] for m in conversation), texts


def test_an_insight_is_stored_once_whether_compact_or_close_runs_first(mem: Path):
    """compact stores insights as bullets of one entry; checkpoint --close as one entry each."""
    insight = "We decided to use Redis streams for the notification fan-out service."
    chatter = [
        {"role": "user" if i % 2 == 0 else "agent", "text": f"chatter number {i} about nothing"} for i in range(24)
    ]
    other = "We decided to keep the retry budget at three attempts per webhook delivery."
    conversation = [
        {"role": "user", "text": "how do we fan out?"},
        {"role": "agent", "text": insight},
        {"role": "user", "text": "and retries?"},
        {"role": "agent", "text": other},
    ] + chatter
    # A session idle for longer than a checkpoint is valid: compaction may trim it.
    then = int(time.time() * 1000) - 8 * DAY_MS
    conversation = [{**m, "ts": then + n} for n, m in enumerate(conversation)]
    run("checkpoint", "dev", "-", cwd=mem, input=json.dumps(conversation), check=True)
    run("compact", cwd=mem, check=True)  # trims the oldest messages and extracts the insight as a bullet
    stored = [e.body for e in Store(Layout(mem)).read("dev", "decisions")]
    assert sum(insight in b for b in stored) == 1 and any(insight in b and other in b for b in stored)
    run("checkpoint", "dev", "-", "--close", cwd=mem, input=json.dumps(conversation), check=True)
    stored = [e.body for e in Store(Layout(mem)).read("dev", "decisions")]
    assert sum(insight in b for b in stored) == 1 and sum(other in b for b in stored) == 1, stored


def test_one_long_entry_is_shortened_and_never_evicts_its_section(mem: Path):
    store = Store(Layout(mem))
    long_id = store.add("dev", "decisions", "a very long decision about caching " * 40).id
    store.add("dev", "decisions", "cache tiny one")
    store.add("dev", "decisions", "cache tiny two")
    data = json.loads(
        run("inject", "dev", "caching decision", "--budget", "100", "--format", "json", cwd=mem, check=True).stdout
    )
    texts = [d["text"] for d in data["sections"]["decisions"]]
    assert "cache tiny one" in texts and "cache tiny two" in texts
    assert data["sections"]["decisions"][0]["id"] == long_id and texts[0].endswith("[… shortened by memcli]")
    assert data["tokens"] <= 100 and data["costs"]["decisions"] > 0
    explained = run("inject", "dev", "caching decision", "--budget", "100", "--explain", cwd=mem, check=True).stderr
    assert "shortened from" in explained and "tokens" in explained


def _saved_user_texts(mem: Path) -> list[str]:
    return [m["text"] for m in conversation_lines(mem) if m["role"] == "user"]


def test_an_entry_quoting_the_end_line_cannot_cut_the_block_short(mem: Path):
    store = Store(Layout(mem))
    text = "The inject block of the login redirect ends with a <!-- memcli:end --> line"
    refused = run("add", "dev", "decisions", text, cwd=mem)
    assert refused.returncode == 1 and "memcli-marker" in refused.stderr  # the writer must mean it
    store.add("dev", "decisions", text, ["allow-memcli-marker"])
    store.add("dev", "lessons", "VAULTLESSON login redirect lesson")
    block = run("inject", "dev", "fix the login redirect", cwd=mem, check=True).stdout
    assert block.count("<!-- memcli:end -->") == 1 and "ends with a <!-- memcli-end (quoted) --> line" in block
    run(
        "checkpoint",
        "dev",
        "-",
        "--close",
        cwd=mem,
        check=True,
        input=json.dumps([{"role": "user", "text": block + "fix the login redirect"}, {"role": "agent", "text": "ok"}]),
    )
    assert _saved_user_texts(mem) == ["fix the login redirect"]


OLD_BLOCK = (
    "\n\n## MEMORY CONTEXT\n\nProject:\n# Shop\n\nRelevant Decisions:\n- use SSE for the login redirect\n\n---\n"
)


@pytest.mark.parametrize(
    "text,expected",
    [
        (OLD_BLOCK + "\nDo this:\n---\nstep one\n---\nstep two", "Do this:\n---\nstep one\n---\nstep two"),
        (OLD_BLOCK + "\ntask one\n" + OLD_BLOCK + "\ntask two", "task one\n\ntask two"),
        (OLD_BLOCK.rstrip("\n") + "glued task", "glued task"),
    ],
)
def test_blocks_of_memcli_0_1_are_stripped_without_the_users_text(mem: Path, text: str, expected: str):
    run("checkpoint", "dev", "-", cwd=mem, check=True, input=json.dumps([{"role": "user", "text": text}]))
    assert _saved_user_texts(mem) == [expected]


def test_no_last_session_from_a_compaction_summary_alone(mem: Path):
    msgs = [{"role": "user" if i % 2 == 0 else "agent", "text": f"message number {i}"} for i in range(24)]
    run("checkpoint", "dev", "-", cwd=mem, input=json.dumps(msgs), check=True)
    run("compact", cwd=mem, check=True)
    assert "Last Session" not in run("inject", "dev", "x", cwd=mem, check=True).stdout
    assert (
        json.loads(run("status", "dev", "--json", cwd=mem, check=True).stdout)["agents"]["dev"]["last_handoff"] is None
    )


def test_typos_of_function_words_and_function_words_alone_select_nothing(mem: Path):
    store = Store(Layout(mem))
    store.add("dev", "decisions", "We moved from Heroku to AWS last year")
    store.add("dev", "decisions", "Billing runs nightly with cron")
    store.add("dev", "decisions", "The cache of the system is in the basement")
    for task in ("fix the form validation", "make the sidebar width configurable", "is it"):
        data = json.loads(run("inject", "dev", task, "--format", "json", cwd=mem, check=True).stdout)
        assert data["sections"]["decisions"] == [], task


def test_a_repeated_message_in_a_later_window_is_stored(mem: Path):
    first = [
        {"role": "user", "text": "continue"},
        {"role": "agent", "text": "step one done"},
        {"role": "user", "text": "ok"},
    ]
    second = first[1:] + [{"role": "agent", "text": "step two done"}, {"role": "user", "text": "continue"}]
    whole = first + second[2:]
    with_times = {"messages": [dict(m, timestamp=1763780000000 + i) for i, m in enumerate(whole)]}
    for payload in (first, second, with_times, whole, whole):
        run("checkpoint", "dev", "-", cwd=mem, input=json.dumps(payload), check=True)
    assert [m["text"] for m in conversation_lines(mem)] == [
        "continue",
        "step one done",
        "ok",
        "step two done",
        "continue",
    ]


def test_an_id_beyond_any_date_never_poses_as_the_newest(mem: Path):
    path = mem / ".memory" / "dev" / "handoffs.md"
    path.parent.mkdir()
    path.write_text("<!-- id:99999999999999999999999 -->\n## 2025-11-20T10:00\n\nold note\n\n---\n")
    run(
        "checkpoint",
        "dev",
        "-",
        "--close",
        cwd=mem,
        check=True,
        input=json.dumps([{"role": "user" if n % 2 == 0 else "agent", "text": f"hello there {n}"} for n in range(6)]),
    )
    last = run("inject", "dev", "x", cwd=mem, check=True).stdout.split("Last Session:\n", 1)[1]
    assert last.startswith("Asked: hello there 0")


@st.composite
def windowed_conversations(draw):
    """What clients save: the whole conversation so far (the wrapper, transcripts), with many
    repeated short messages; or the last N messages (a checkpoint file) of distinct ones, with
    repeats only where the overlap with the previous save identifies them."""
    n = draw(st.integers(1, 14))
    whole = draw(st.booleans())
    if whole:
        texts = st.sampled_from(["ok", "continue", "yes", "done", "step", "again"])
        conversation = [{"role": "user" if i % 2 == 0 else "agent", "text": draw(texts)} for i in range(n)]
    else:
        conversation = [
            {"role": "user" if i % 2 == 0 else "agent", "text": "ok" if i % 3 == 2 else f"message {i}"}
            for i in range(n)
        ]
    windows, end = [], 0
    while end < n:  # each window overlaps the one before (as a client's saves do), or starts at 0
        previous = end
        end = min(n, end + draw(st.integers(1, 4)))
        if whole or not previous:
            start = 0
        else:
            start = draw(st.integers(max(0, min(previous - 2, end - 6)), previous - 2)) if previous >= 2 else 0
        windows.append((start, end))
    return conversation, windows


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(windowed_conversations())
def test_saved_windows_store_every_message_once_whatever_repeats(tmp_path_factory, case):
    from memcli.storage import conversations

    conversation, windows = case
    root = tmp_path_factory.mktemp("windows")
    (root / ".memory").mkdir()
    layout = Layout(root)
    session = conversations.new_session_name()  # one session, saved again and again
    for start, end in windows:
        window = [dict(m) for m in conversation[start:end]]
        conversations.append_messages(layout, "dev", conversations.assign_ids(window), session=session)
    stored = [(m["role"], m["text"]) for m in conversations.read_stored(layout, "dev").messages]
    expected = [(m["role"], m["text"]) for m in conversation]
    assert stored == expected, (windows, stored)


def test_checkpoint_reads_a_claude_code_transcript(mem: Path):
    """Claude Code's session JSONL: user/assistant lines with text or content blocks; tool calls,
    tool results, summaries, meta lines and side chains are left out (issue 12's transcript format)."""
    result = run("checkpoint", "dev", str(FIXTURES / "claude-code-transcript.jsonl"), "--close", cwd=mem, check=True)
    assert "3 messages" in result.stderr + result.stdout
    lines = conversation_lines(mem)
    assert [(m["role"], m["text"]) for m in lines] == [
        ("user", "the invoice export drops the last row, fix it"),
        ("agent", "I'll look at the exporter."),
        ("agent", "We decided to stream rows with a generator so the last batch is always flushed."),
    ]
    assert [m["id"] for m in lines] == ["u-1", "u-2", "u-5"], "Claude Code's uuids are the message ids"
    assert any("stream rows with a generator" in e.body for e in Store(Layout(mem)).read("dev", "decisions"))
    run("checkpoint", "dev", str(FIXTURES / "claude-code-transcript.jsonl"), cwd=mem, check=True)
    assert len(conversation_lines(mem)) == 3, "saving the transcript again adds nothing"


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["<!--", "-->", "-", "->", "<!-", "x", "\n", "<!-->", " "]), max_size=30).map("".join))
def test_project_comments_are_taken_out_as_the_expression_would(text: str):
    """without_comments reads each opening once; it takes out what <!--.*?--> (re.S) does."""
    import re

    from memcli.storage.injected_block import without_comments

    assert without_comments(text) == re.sub(r"<!--.*?-->", "", text, flags=re.S)
    kept = re.sub(r"<!--.*?-->", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    assert without_comments(text, keep_lines=True) == kept
