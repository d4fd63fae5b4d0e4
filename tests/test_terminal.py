"""What a new user sees at a terminal, item by item, through the real CLI."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import clean_env, entry_files, git, run

HOUR_AGO = time.time() - 3600


def ids(result) -> list[int]:
    return [e["id"] for e in json.loads(result.stdout)]


def age(path: Path, seconds: float = 3600) -> None:
    """As if the file were written a while ago (a cache trusts only files older than a moment)."""
    then = time.time() - seconds
    os.utime(path, (then, then))


def test_list_n_is_the_head_of_the_full_listing_even_with_hand_ordered_files_and_a_cache(mem: Path):
    rng = random.Random(7)
    for agent in ("dev", "qa"):
        for category in ("decisions", "lessons"):
            folder = mem / ".memory" / agent
            folder.mkdir(exist_ok=True)
            entries = [
                f"<!-- id:{1_700_000_000_000 + rng.randrange(10**9)} -->\n## 2023-11-14T22:13\n\nnote {n}\n\n---\n"
                for n in range(30)
            ]
            (folder / f"{category}.md").write_text("\n".join(entries))  # not newest-first: written by hand
            age(folder / f"{category}.md")
    time.sleep(2.1)  # the cache trusts a file only once its change time is older than that
    full = ids(run("list", "--json", cwd=mem, check=True))
    for n in (1, 5, 20, 25):
        assert ids(run("list", "-n", str(n), "--json", cwd=mem, check=True)) == full[:n]
    assert (mem / ".memory" / ".vault" / "summary.json").is_file()
    # A file changed since the cache was made is read again: never a stale listing.
    path = mem / ".memory" / "qa" / "lessons.md"
    path.write_text(path.read_text() + "\n<!-- id:1999999999999 -->\n## 2033-05-18T03:33\n\nnewest of all\n\n---\n")
    age(path, 1800)
    assert ids(run("list", "-n", "1", "--json", cwd=mem, check=True)) == [1999999999999]
    assert (
        ids(run("list", "qa", "-c", "decisions", "-n", "3", "--json", cwd=mem, check=True))
        == ids(run("list", "qa", "-c", "decisions", "--json", cwd=mem, check=True))[:3]
    )


def test_status_counts_follow_hand_edits(mem: Path):
    run("add", "dev", "tasks", "- [ ] one", cwd=mem, check=True)
    (path,) = entry_files(mem, "dev", "tasks")  # edited in place below: its folder does not change
    age(path)
    first = run("status", "dev", cwd=mem, check=True).stdout
    assert "1 entry, 1 open task," in first
    path.write_text(
        path.read_text() + "\n<!-- id:1700000000001 -->\n## 2023-11-14T22:13\n\n- [ ] two\n- [ ] three\n\n---\n"
    )
    age(path, 1000)
    again = json.loads(run("status", "dev", "--json", cwd=mem, check=True).stdout)
    assert again["agents"]["dev"]["entries"] == 2 and again["agents"]["dev"]["open_tasks"] == 3
    assert "2 entries, 3 open tasks," in run("status", "dev", cwd=mem, check=True).stdout


def test_status_of_an_unknown_agent_says_so_and_lists_agents_with_only_a_checkpoint(mem: Path):
    result = run("status", "nobody", cwd=mem)
    assert (
        result.returncode == 1
        and result.stderr == f"memcli: error: no agent 'nobody' in {mem}/.memory (agents: none yet)\n"
    )
    run("checkpoint", "ops", "-", input='[{"role": "user", "text": "deploy the canary"}]', cwd=mem, check=True)
    report = json.loads(run("status", "--json", cwd=mem, check=True).stdout)
    assert "ops" in report["agents"] and report["agents"]["ops"]["checkpoint"]["messages"] == 1
    assert run("status", "ops", cwd=mem, check=True).stdout.splitlines()[1].startswith("ops: 0 entries, 0 open tasks")


def test_recover_json_prints_null_when_there_is_none(mem: Path):
    result = run("recover", "dev", "--json", cwd=mem)
    assert result.returncode == 3 and result.stdout == "null\n"


def test_list_columns_line_up_cut_at_words_and_show_tags_once(mem: Path):
    run(
        "add",
        "dev",
        "decisions",
        "Adopt SSE instead of WebSockets because the corporate proxy drops long-lived"
        " sockets after sixty seconds #sse #architecture",
        cwd=mem,
        check=True,
    )
    run("add", "quality-assurance", "lessons", "Flaky #ci", cwd=mem, check=True)
    lines = run("list", cwd=mem, check=True).stdout.splitlines()
    assert len(lines) == 2
    starts = {line.index("2") for line in lines}  # the date column: same place on every line
    assert len({line.index(" 20") for line in lines}) == 1, lines
    assert starts
    long_line = next(line for line in lines if "SSE" in line)
    assert long_line.count("#sse") == 1 and long_line.endswith("#sse #architecture")
    shown = long_line.split("  ")
    text = next(part for part in shown if part.startswith("Adopt"))
    assert (
        text.endswith("…")
        and text[:-1].split()[-1]
        in "Adopt SSE instead of WebSockets because the corporate proxy drops long-lived sockets".split()
    )


def test_plural_forms(mem: Path):
    run("add", "dev", "tasks", "- [ ] only one", cwd=mem, check=True)
    out = run("status", cwd=mem, check=True).stdout
    assert "1 entry, 1 open task," in out and "1 open tasks" not in out
    saved = run("checkpoint", "dev", "-", input='[{"role": "user", "text": "hi"}]', cwd=mem, check=True)
    assert "1 message," in saved.stderr


def test_dir_after_the_command_and_n_means_limit_everywhere(mem: Path, tmp_path: Path):
    run("add", "dev", "lessons", "first", cwd=mem, check=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert len(json.loads(run("list", "--dir", str(mem), "--json", cwd=elsewhere, check=True).stdout)) == 1
    assert run("add", "dev", "lessons", "second", "--dir", str(mem), cwd=elsewhere, check=True).stdout.strip().isdigit()
    for command in (["compact", "-n"], ["migrate", "-n"]):
        result = run(*command, cwd=mem)
        assert result.returncode == 2 and len(result.stderr.splitlines()) == 1, command


def test_edit_with_new_text_takes_its_tags_from_it(mem: Path):
    entry = run("add", "dev", "decisions", "Use SSE #sse", "--tag", "old", cwd=mem, check=True).stdout.strip()
    run("edit", "dev", entry, "Use WebSockets after all #websocket", cwd=mem, check=True)
    shown = json.loads(run("show", "dev", entry, "--json", cwd=mem, check=True).stdout)
    assert shown["tags"] == ["websocket", "old"]  # #sse went with the text; --tag old was given apart from it
    run("edit", "dev", entry, "Use WebSockets #websocket", "--tag", "final", cwd=mem, check=True)
    assert json.loads(run("show", entry, "--json", cwd=mem, check=True).stdout)["tags"] == ["websocket", "final"]
    run("edit", entry, "--tag", "only", cwd=mem, check=True)  # tags alone: the text stays
    shown = json.loads(run("show", entry, "--json", cwd=mem, check=True).stdout)
    assert shown["tags"] == ["only"] and shown["body"] == "Use WebSockets #websocket"


def test_done_ticks_tasks_and_inject_stops_showing_them(mem: Path):
    entry = run(
        "add",
        "dev",
        "tasks",
        "- [ ] write the login test\n- [ ] fix the redirect",
        "--tag",
        "auth",
        cwd=mem,
        check=True,
    ).stdout.strip()
    result = run("done", "dev", entry, "login", cwd=mem, check=True)
    assert result.stdout == "- [x] write the login test\n"
    block = run("inject", "dev", cwd=mem, check=True).stdout
    assert "- [ ] fix the redirect" in block and "login test" not in block
    run("done", entry, cwd=mem, check=True)
    shown = json.loads(run("show", entry, "--json", cwd=mem, check=True).stdout)
    assert shown["body"] == "- [x] write the login test\n- [x] fix the redirect" and shown["tags"] == ["auth"]
    again = run("done", entry, cwd=mem)
    assert again.returncode == 1 and "no open task" in again.stderr


def test_show_edit_rm_by_id_alone_unless_two_agents_hold_it(mem: Path):
    entry = run("add", "dev", "lessons", "unique lesson", cwd=mem, check=True).stdout.strip()
    assert "unique lesson" in run("show", entry, cwd=mem, check=True).stdout
    twin = f"<!-- id:{entry} -->\n## 2023-11-14T22:13\n\ncopied by hand\n\n---\n"
    (mem / ".memory" / "qa").mkdir()
    (mem / ".memory" / "qa" / "lessons.md").write_text(twin)
    result = run("show", entry, cwd=mem)
    assert result.returncode == 1 and "name the agent" in result.stderr and "dev, qa" in result.stderr
    assert "copied by hand" in run("show", "qa", entry, cwd=mem, check=True).stdout
    result = run("rm", entry, "--yes", cwd=mem)
    assert result.returncode == 1
    run("rm", "qa", entry, "--yes", cwd=mem, check=True)
    run("rm", entry, "--yes", cwd=mem, check=True)
    assert json.loads(run("list", "--json", cwd=mem, check=True).stdout) == []
    missing = run("show", "123", cwd=mem)
    assert missing.returncode == 1 and missing.stderr == "memcli: error: no entry 123 (see `memcli list`)\n"


def test_crlf_vault_files_and_stdin_read_without_carriage_returns(mem: Path):
    path = mem / ".memory" / "dev" / "decisions.md"
    path.parent.mkdir()
    path.write_bytes(
        b"<!-- id:1700000000000 -->\r\n## 2023-11-14T22:13 \xc2\xb7 #sse\r\n\r\nUse SSE\r\nnot sockets\r\n\r\n---\r\n"
    )
    shown = json.loads(run("show", "dev", "1700000000000", "--json", cwd=mem, check=True).stdout)
    assert shown["body"] == "Use SSE\nnot sockets" and shown["tags"] == ["sse"]
    entry = run(
        "add", "dev", "lessons", "-", input="from a windows pipe\r\nsecond line\r\n", cwd=mem, check=True
    ).stdout.strip()
    assert (
        json.loads(run("show", "dev", entry, "--json", cwd=mem, check=True).stdout)["body"]
        == "from a windows pipe\nsecond line"
    )


def test_editor_opens_on_a_note_that_says_what_to_write(mem: Path, tmp_path: Path):
    import subprocess

    seen = tmp_path / "seen.txt"
    editor = tmp_path / "editor.py"
    editor.write_text(
        "import sys, shutil\n"
        f"shutil.copy(sys.argv[1], {str(seen)!r})\n"
        "text = open(sys.argv[1]).read()\n"
        "open(sys.argv[1], 'w').write('Chose SSE over sockets\\n' + text)\n"
    )
    env = clean_env(EDITOR=f"{sys.executable} {editor}")
    master, slave = os.openpty()  # a user at a terminal: stdin and stdout on it
    try:
        result = subprocess.run(
            [sys.executable, "-m", "memcli", "add", "dev", "decisions"],
            cwd=mem,
            env=env,
            stdin=slave,
            stdout=slave,
            stderr=subprocess.PIPE,
            timeout=60,
        )
    finally:
        os.close(slave)
        os.close(master)
    assert result.returncode == 0, result.stderr
    note = seen.read_text()
    assert "write a new dev/decisions entry" in note and "For example:" in note
    body = json.loads(run("list", "--json", cwd=mem, check=True).stdout)[0]["body"]
    assert body == "Chose SSE over sockets"


def test_migrate_claims_only_the_backups_it_made_and_keeps_them_out_of_git(repo: Path):
    (repo / ".memory" / "dev.md").write_text("## Decisions\n\n- Adopt SSE\n")
    result = run("migrate", cwd=repo, check=True)
    assert "(kept as .bak: 1 file)" in result.stdout
    assert (repo / ".memory" / "dev.md.bak").is_file()
    assert ".memory/**/*.bak" in (repo / ".gitignore").read_text()
    assert "dev.md.bak" not in git("status", "--porcelain", "--untracked-files=all", cwd=repo).stdout
    events = repo / "events.jsonl"
    events.write_text(json.dumps({"type": "fact", "kind": "decision", "text": "Use tantivy"}) + "\n")
    again = run("migrate", "--from", str(events), "--agent", "dev", cwd=repo, check=True)
    assert ".bak" not in again.stdout


def test_bulk_json_is_the_same_with_orjson_or_without():
    from memcli import jsonio

    rows = [{"id": n, "body": f"entrée {n} — ünïcode ✓", "tags": ["a"], "score": n / 7} for n in range(jsonio.BULK + 1)]
    assert jsonio.pretty(rows) == json.dumps(rows, indent=2, ensure_ascii=False)
    lines = [json.dumps({"id": str(n), "text": "x"}).encode() for n in range(jsonio.BULK)]
    lines += [b'{"id": "s", "text": "\\ud800 lone"}', b"not json", b'{"big": 123456789012345678901234567890}']
    values = jsonio.loads_lines(lines)
    assert values[-3] == {"id": "s", "text": "\ud800 lone"} and values[-2] is None
    assert values[-1] == {"big": 123456789012345678901234567890} and values[0] == {"id": "0", "text": "x"}


def test_compact_without_work_keeps_the_last_real_log(mem: Path):
    for n in range(35):  # over the cap of 30: the first run summarises
        run("add", "dev", "lessons", f"lesson number {n} about caching", cwd=mem, check=True)
    first = json.loads(run("compact", "--json", cwd=mem, check=True).stdout)
    assert first["vaultEntriesMerged"] > 0
    run("compact", cwd=mem, check=True)
    run("compact", cwd=mem, check=True)
    log = json.loads((mem / ".memory" / ".vault" / "compact-log.json").read_text())
    assert log["nothingToDo"] is True and log["lastChanges"]["vaultEntriesMerged"] == first["vaultEntriesMerged"]
    assert log["lastChanges"]["timestamp"] == first["timestamp"]


def test_search_marks_matches_plainly_on_a_pipe(mem: Path):
    run("add", "dev", "lessons", "the flux capacitor needs 1.21 gigawatts", cwd=mem, check=True)
    out = run("search", "flux", cwd=mem, check=True).stdout
    assert "the **flux** capacitor" in out and "\x1b" not in out
    hit = json.loads(run("search", "flux", "--json", cwd=mem, check=True).stdout)[0]
    assert "**" not in hit["snippet"] and hit["matches"] == ["flux"]


def test_a_command_read_from_stdin_loses_its_last_newline(mem: Path):
    data = json.loads(
        run("inject", "dev", "-", "--format", "json", input="fix the login redirect\r\n", cwd=mem, check=True).stdout
    )
    assert data["command"] == "fix the login redirect"


# -- what the second hostile test found ------------------------------------------------------------------

TWINS = """<!-- id:1704067200000 -->
## 2024-01-01T00:00 · #auto-handoff

[User]: old session A (edited on branch 1)

---

<!-- id:1704067200000 -->
## 2024-01-01T00:00 · #auto-handoff

[User]: old session A (edited on branch 2)

---
"""


def test_a_renumbered_twin_keeps_its_place_in_time(mem: Path):
    (mem / ".memory" / "dev").mkdir()
    (mem / ".memory" / "dev" / "handoffs.md").write_text(TWINS)
    run("add", "dev", "handoffs", "[User]: today's session", "--tag", "auto-handoff", cwd=mem, check=True)
    run("compact", cwd=mem, check=True)  # tidies the twins: one gets a new id
    rows = json.loads(run("list", "dev", "--json", cwd=mem, check=True).stdout)
    assert rows[0]["body"] == "[User]: today's session"
    assert sorted(r["id"] for r in rows[1:]) == [1704067200000, 1704067200001]
    assert all(r["date"] == "2024-01-01T00:00" for r in rows[1:])
    assert "today's session" in run("inject", "dev", cwd=mem, check=True).stdout.split("Last Session:")[1]


def test_editing_the_text_keeps_tags_given_apart_from_it(mem: Path):
    entry = run(
        "add", "dev", "handoffs", "Session compacted (30 older messages)", "--tag", "release", cwd=mem, check=True
    ).stdout.strip()
    run("edit", "dev", entry, "Session compacted (31 older messages) #note", cwd=mem, check=True)
    assert json.loads(run("show", entry, "--json", cwd=mem, check=True).stdout)["tags"] == ["note", "release"]
    run("edit", "dev", entry, "Session compacted (31 older messages)", cwd=mem, check=True)  # the hashtag went
    assert json.loads(run("show", entry, "--json", cwd=mem, check=True).stdout)["tags"] == ["release"]


def test_ids_are_ascii_digits(mem: Path):
    for args in (["show", "dev", "²"], ["rm", "dev", "①", "--yes"], ["done", "dev", "²"], ["show", "٣"]):
        result = run(*args, cwd=mem)
        assert result.returncode == 1 and "internal error" not in result.stderr and len(result.stderr.splitlines()) == 1


def test_text_that_looks_like_an_option_is_text_for_queries_and_tasks(mem: Path):
    run("add", "dev", "lessons", "-5 degrees broke the sensor", cwd=mem, check=True)
    entry = json.loads(run("list", "--json", cwd=mem, check=True).stdout)[0]
    assert entry["body"] == "-5 degrees broke the sensor"
    for args in (["edit", str(entry["id"]), "--tags=arch"], ["add", "dev", "lessons", "-verbose"]):
        result = run(*args, cwd=mem)  # a mistyped option of add or edit never becomes an entry's text
        assert result.returncode == 2 and "No such option" in result.stderr
    assert json.loads(run("show", str(entry["id"]), "--json", cwd=mem, check=True).stdout)["body"] == entry["body"]
    run("add", "dev", "lessons", "--", "-verbose", cwd=mem, check=True)
    data = json.loads(run("inject", "dev", "--force", "--format", "json", cwd=mem, check=True).stdout)
    assert data["command"] == "--force"
    assert run("search", "-rf", cwd=mem).returncode == 0
    assert (
        json.loads(run("inject", "dev", "-f", "json", "--", "--help", cwd=mem, check=True).stdout)["command"]
        == "--help"
    )


def test_the_summary_cache_sees_a_same_size_edit_that_keeps_the_time(mem: Path):
    run("add", "dev", "tasks", "- [ ] write the login test", cwd=mem, check=True)
    (path,) = entry_files(mem, "dev", "tasks")
    age(path)
    age(path.parent)
    time.sleep(2.1)  # the change time must be old enough for the cache to trust it
    assert "1 open task" in run("status", "dev", cwd=mem, check=True).stdout
    stat = path.stat()
    path.write_text(path.read_text().replace("[ ]", "[x]"))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # same size, same modification time
    assert path.stat().st_mtime_ns == stat.st_mtime_ns and path.stat().st_size == stat.st_size
    assert "0 open tasks" in run("status", "dev", cwd=mem, check=True).stdout


def test_list_keeps_inline_hashtags_in_the_sentence(mem: Path):
    run("add", "dev", "decisions", "Adopt #SSE instead of #websockets for streaming", cwd=mem, check=True)
    run("add", "dev", "decisions", "#sse #arch\nAdopt SSE for streaming", cwd=mem, check=True)
    lines = run("list", cwd=mem, check=True).stdout.splitlines()
    assert lines[0].split("  ")[-2:] == ["Adopt SSE for streaming", "#sse #arch"]
    assert "Adopt #SSE instead of #websockets for streaming" in lines[1] and lines[1].count("#SSE") == 1


def test_inject_reads_any_bytes_on_stdin(mem: Path):
    run("add", "dev", "decisions", "decided postgres over mysql", cwd=mem, check=True)
    result = subprocess.run(
        [sys.executable, "-m", "memcli", "inject", "dev", "-", "-f", "json"],
        cwd=mem,
        input=b"decided postgres \xff",
        capture_output=True,
        env=clean_env(),
    )
    data = json.loads(result.stdout)
    assert result.returncode == 0 and result.stderr == b""
    assert data["command"] == "decided postgres \ufffd" and data["sections"]["decisions"]


def test_project_commands_refuse_extra_arguments(mem: Path):
    for args in (["edit", "_project", "first part", "second part"], ["show", "_project", "extra"]):
        result = run(*args, cwd=mem)
        assert result.returncode == 1 and "unexpected argument" in result.stderr


def test_done_on_twins_changes_the_one_it_names(mem: Path):
    path = mem / ".memory" / "dev" / "tasks.md"
    path.parent.mkdir()
    path.write_text(
        "<!-- id:99999999999999999999 -->\n## 2024-01-01T00:00\n\n- [ ] task a\n\n---\n\n"
        "<!-- id:99999999999999999999 -->\n## 2025-01-01T00:00\n\n- [ ] task b\n\n---\n"
    )
    run("done", "dev", "99999999999999999999", "task b", cwd=mem, check=True)
    text = path.read_text()
    assert "- [ ] task a" in text and "- [x] task b" in text


def test_control_characters_are_shown_not_sent_to_a_terminal(mem: Path):
    refused = run("add", "dev", "lessons", "\x1b]0;pwned\x07\x1b[2Jtext", cwd=mem)
    assert refused.returncode == 1 and "U+001B" in refused.stderr  # memcli writes none; a hand edit may
    folder = mem / ".memory" / "dev" / "lessons"
    folder.mkdir(parents=True)
    (folder / "1773679871839.md").write_text(
        "<!-- id:1773679871839 -->\n## 2026-03-16T16:51\n\n\x1b]0;pwned\x07\x1b[2Jtext\n\n---\n"
    )
    master, slave = os.openpty()
    try:
        subprocess.run([sys.executable, "-m", "memcli", "list"], cwd=mem, env=clean_env(), stdout=slave, timeout=60)
        shown = os.read(master, 65536)
    finally:
        os.close(slave)
        os.close(master)
    assert b"\x1b]0;" not in shown and b"^[]0;pwned^G" in shown
    piped = run("list", "--json", cwd=mem, check=True).stdout
    assert json.loads(piped)[0]["body"] == "\x1b]0;pwned\x07\x1b[2Jtext"  # data stays data


def test_full_disk_and_empty_no_color(mem: Path):
    run("add", "dev", "lessons", "x", cwd=mem, check=True)
    with open("/dev/full", "w") as full:
        result = subprocess.run(
            [sys.executable, "-m", "memcli", "list"],
            cwd=mem,
            env=clean_env(),
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
        )
    assert (
        result.returncode == 1 and result.stderr == "memcli: error: cannot write the output: No space left on device\n"
    )
    from memcli import output

    os.environ["NO_COLOR"] = ""
    try:
        assert output.use_color(type("T", (), {"isatty": lambda self: True})())
    finally:
        del os.environ["NO_COLOR"]


def test_a_twin_never_takes_an_id_used_elsewhere_or_removed(mem: Path):
    folder = mem / ".memory" / "dev"
    folder.mkdir()
    twin = "<!-- id:1700000000000 -->\n## 2023-11-14T22:13\n\n{}\n\n---\n"
    (folder / "decisions.md").write_text(twin.format("twin A") + "\n" + twin.format("twin B"))
    (folder / "lessons.md").write_text("<!-- id:1700000000001 -->\n## 2023-11-14T22:13\n\nneighbour\n\n---\n")
    (folder / ".removed").write_text("decisions 1700000000002\n")
    run("add", "dev", "decisions", "new", cwd=mem, check=True)
    run("compact", cwd=mem, check=True)  # tidies the twins: one gets a new id
    rows = json.loads(run("list", "dev", "--json", cwd=mem, check=True).stdout)
    assert sorted(r["body"] for r in rows) == ["neighbour", "new", "twin A", "twin B"]
    assert len({r["id"] for r in rows}) == 4 and 1700000000002 not in {r["id"] for r in rows}


def test_a_hand_written_file_with_closers_right_after_the_bodies_reads_whole(mem: Path):
    from memcli.storage import vault

    text = "".join(f"<!-- id:{1700000000000 + n} -->\n## 2023-11-14T22:13\n\nnote {n}\n---\n\n" for n in range(300))
    text = text.rstrip("\n") + "\n"  # not as memcli writes them: the line parser reads them
    assert vault._parse_canonical(text) is None
    assert [e.body for e in vault.parse(text)] == [f"note {n}" for n in range(300)]
