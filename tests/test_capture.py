"""What agents' sessions leave in memory: conversation only, and handoffs that carry the work.

The transcripts in tests/fixtures are written as Claude Code, Codex and Cursor write them, with the
noise each puts around the conversation (slash commands and their output, interruption notices, a
compaction summary, system reminders, tool calls and results, environment context).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from .conftest import FIXTURES, conversation_files, conversation_text, run

NOISE = (
    "<command-name>",
    "/model",
    "local-command-stdout",
    "Set model to opus",
    "Request interrupted",
    "This session is being continued",
    "system-reminder",
    "opened the file",
    "environment_context",
    "[Tool call]",
    "[Thinking]",
    "user_query",
)


def memory_text(root: Path) -> str:
    """Everything memcli keeps in git."""
    return "".join(
        p.read_text() for p in sorted((root / ".memory").rglob("*")) if p.is_file() and ".vault" not in p.parts
    )


def hook(client: str, payload: dict, cwd: Path):
    return run("agent-hook", client, cwd=cwd, input=json.dumps(payload))


def handoffs(root: Path) -> list[dict]:
    return json.loads(run("list", "dev", "-c", "handoffs", "--json", cwd=root, check=True).stdout)


def last_session(root: Path) -> str:
    """The "Last Session" of the next session's block."""
    block = hook("claude-code", {"hook_event_name": "SessionStart", "source": "startup", "cwd": str(root)}, root).stdout
    return block.split("Last Session:\n", 1)[1].split("\n\n", 1)[0] if "Last Session:" in block else ""


def claude_session(root: Path, tmp_path: Path, event: str = "SessionEnd", session: str = "7f3e2a10-claude") -> Path:
    transcript = tmp_path / f"{session}.jsonl"
    if not transcript.exists():
        shutil.copy(FIXTURES / "claude-code-session.jsonl", transcript)
    payload = {"session_id": session, "transcript_path": str(transcript), "cwd": str(root), "hook_event_name": event}
    assert hook("claude-code", payload, root).returncode == 0
    return transcript


def test_a_claude_code_session_keeps_only_the_conversation(mem: Path, tmp_path: Path):
    claude_session(mem, tmp_path, "PreCompact")
    claude_session(mem, tmp_path, "SessionEnd")
    stored = memory_text(mem)
    assert not [n for n in NOISE if n in stored], [n for n in NOISE if n in stored]
    texts = [json.loads(line).get("text") for line in conversation_text(mem, "dev").splitlines()]
    assert texts[0] == "the login test is flaky on CI, fix it"  # the reminder beside it is gone
    assert "keep going, but leave the fixtures alone" in texts
    assert texts[-1] is None  # the closing line


def test_the_handoff_says_what_was_asked_what_was_done_and_where_it_stopped(mem: Path, tmp_path: Path):
    claude_session(mem, tmp_path)
    [handoff] = handoffs(mem)
    lines = handoff["body"].splitlines()
    assert lines[0] == "Asked: the login test is flaky on CI, fix it"
    assert lines[1] == "Done: changed src/auth.py, tests/conftest.py; ran `pytest -q tests/test_auth.py`"
    assert lines[2] == "Where it stopped:"
    assert lines[-1].startswith("[Agent]: The login test passes ten runs in a row now. Left to do:")
    decisions = json.loads(run("list", "dev", "-c", "decisions", "--json", cwd=mem, check=True).stdout)
    lessons = json.loads(run("list", "dev", "-c", "lessons", "--json", cwd=mem, check=True).stdout)
    assert any("retries a login once on a 502" in d["body"] for d in decisions)
    assert any("closes idle connections after 30 seconds" in x["body"] for x in lessons)


def test_a_trivial_session_keeps_the_substantive_handoff(mem: Path, tmp_path: Path):
    claude_session(mem, tmp_path)
    assert last_session(mem).startswith("Asked: the login test is flaky on CI, fix it")
    question = tmp_path / "q.jsonl"
    question.write_text(
        "".join(
            json.dumps({"type": kind, "message": {"role": kind, "content": text}, "uuid": f"q{n}"}) + "\n"
            for n, (kind, text) in enumerate(
                [("user", "what does the --verbose flag of pytest do?"), ("assistant", "It prints each test's name.")]
            )
        )
    )
    payload = {"session_id": "q-1", "transcript_path": str(question), "cwd": str(mem), "hook_event_name": "SessionEnd"}
    hook("claude-code", payload, mem)
    assert len(handoffs(mem)) == 1, "a two-message question writes no handoff"
    assert "what does the --verbose flag" in conversation_text(mem, "dev"), "its conversation is still saved"
    assert last_session(mem).startswith("Asked: the login test is flaky on CI, fix it")


def test_a_session_ended_twice_or_resumed_has_one_handoff(mem: Path, tmp_path: Path):
    transcript = claude_session(mem, tmp_path)
    first = handoffs(mem)
    with transcript.open("a") as f:  # resumed: the same session goes on, and ends again
        f.write(
            json.dumps(
                {
                    "type": "assistant",
                    "sessionId": "7f3e2a10-claude",
                    "uuid": "c-16",
                    "message": {
                        "role": "assistant",
                        "content": [{"type": "text", "text": "Added the 502 retry test."}],
                    },
                }
            )
            + "\n"
        )
    claude_session(mem, tmp_path)
    after = handoffs(mem)
    assert len(first) == len(after) == 1
    assert after[0]["body"].endswith("[Agent]: Added the 502 retry test.")
    # resumed under a new session id (the transcript carries the same history): still one handoff
    shutil.copy(transcript, tmp_path / "fork.jsonl")
    claude_session(mem, tmp_path, session="fork")
    assert len(handoffs(mem)) == 1


def test_codex_stop_saves_and_summarises_once_and_leaves_the_session_open(mem: Path, tmp_path: Path):
    transcript = tmp_path / "rollout.jsonl"
    shutil.copy(FIXTURES / "codex-rollout.jsonl", transcript)
    payload = {
        "session_id": "codex-9a1",
        "transcript_path": str(transcript),
        "cwd": str(mem),
        "hook_event_name": "Stop",
    }
    for _ in range(3):  # a Stop after every turn
        assert hook("codex", payload, mem).returncode == 0
    [handoff] = handoffs(mem)
    assert handoff["body"].startswith(
        "Asked: add a CSV export to the report page\nDone: changed src/report.py, src/csv_export.py; ran `rg -n 'def report' src`"
    )
    decisions = json.loads(run("list", "dev", "-c", "decisions", "--json", cwd=mem, check=True).stdout)
    assert [d["body"] for d in decisions] == [
        "We decided to stream the CSV with a generator so that large reports never sit in memory."
    ]
    lines = conversation_text(mem, "dev").splitlines()
    assert len(conversation_files(mem, "dev")) == 1 and '{"session":"closed"}' not in lines
    assert [json.loads(x)["text"] for x in lines] == [
        "add a CSV export to the report page",
        "We decided to stream the CSV with a generator so that large reports never sit in memory.",
    ]


def test_a_cursor_plain_text_transcript_is_read(mem: Path, tmp_path: Path):
    transcript = tmp_path / "b7e1.txt"
    shutil.copy(FIXTURES / "cursor-transcript.txt", transcript)
    payload = {
        "conversation_id": "b7e1",
        "transcript_path": str(transcript),
        "workspace_roots": [str(mem)],
        "hook_event_name": "sessionEnd",
    }
    assert hook("cursor", payload, mem).returncode == 0
    texts = [json.loads(x).get("text") for x in conversation_text(mem, "dev").splitlines()]
    assert texts[:2] == ["rename the billing module to payments", "I'll rename the module and fix its imports."]
    assert not [n for n in NOISE if n in memory_text(mem)]
    [handoff] = handoffs(mem)
    assert handoff["body"].startswith(
        "Asked: rename the billing module to payments\n"
        "Done: changed src/app.py; ran `git mv src/billing.py src/payments.py`"
    )


def test_checkpoint_from_a_file_reads_the_same_formats(mem: Path):
    """`memcli checkpoint` given a transcript does what the hook does."""
    result = run("checkpoint", "dev", str(FIXTURES / "claude-code-session.jsonl"), "--close", "--json", cwd=mem)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["handoff"] is not None
    assert not [n for n in NOISE if n in memory_text(mem)]
