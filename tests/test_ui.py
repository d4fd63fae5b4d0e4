"""`memcli ui`: the guards over real HTTP against a real `memcli ui` process, and the page itself
driven in a real headless Chromium (Debian's, through Playwright) on a 10,000-entry memory."""

from __future__ import annotations

import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from .conftest import clean_env, entry_files, git, lock_held, run

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
XSS = [
    "<script>alert('script')</script> in a body",
    "an image <img src=x onerror=alert('img')> in a body",
    "a link [click me](javascript:alert('link')) in a body",
    "a closing </textarea><script>alert('textarea')</script> in a body",
    "a picture ![pic](http://example.com/x.png) and <iframe src=http://example.com></iframe>",
]


class UI:
    """A `memcli ui` process and what its first line says."""

    def __init__(self, root: Path, *flags: str):
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "memcli", "ui", "--no-open", "--port", "0", *flags],
            cwd=root,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=clean_env(),
        )
        line = self.proc.stdout.readline()  # type: ignore[union-attr]
        match = re.search(r"(http://127\.0\.0\.1:(\d+)/\?token=([\w-]+))", line)
        assert match, (line, self.proc.stderr.read() if self.proc.poll() is not None else "")  # type: ignore[union-attr]
        self.url, self.port, self.token = match.group(1), int(match.group(2)), match.group(3)
        self.root = root

    def request(
        self, method: str, path: str, body: dict | None = None, headers: dict | None = None, token: bool = True
    ) -> tuple[int, dict, http.client.HTTPResponse]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        sent = {"Host": f"127.0.0.1:{self.port}"}
        if token:
            sent["X-Memcli-Token"] = self.token
        if body is not None:
            sent.update({"Content-Type": "application/json", "Origin": f"http://127.0.0.1:{self.port}"})
        sent.update(headers or {})
        sent = {k: v for k, v in sent.items() if v is not None}
        conn.request(method, path, body=json.dumps(body) if body is not None else None, headers=sent)
        response = conn.getresponse()
        raw = response.read()
        conn.close()
        data = json.loads(raw) if response.getheader("Content-Type", "").startswith("application/json") else {}
        return response.status, data, response

    def write(self, action: str, body: dict, **kw) -> tuple[int, dict]:
        status, data, _ = self.request("POST", f"/api/{action}", body, **kw)
        return status, data

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream:
                stream.close()


@pytest.fixture
def ui(mem: Path):
    run("add", "dev", "decisions", "Adopt SSE instead of WebSockets #sse", cwd=mem, check=True)
    server = UI(mem)
    yield server
    server.stop()


# -- the guards ----------------------------------------------------------------------------------


def test_every_request_needs_the_token(ui: UI):
    assert ui.request("GET", "/", token=False)[0] == 403
    assert ui.request("GET", "/api/overview", token=False)[0] == 403
    wrong = ui.token[:-1] + ("y" if ui.token.endswith("x") else "x")  # one in 64 tokens ends in x
    assert ui.request("GET", "/api/overview", headers={"X-Memcli-Token": wrong})[0] == 403
    assert ui.request("GET", "/app.js?token=wrong", token=False)[0] == 403
    status, _, response = ui.request("GET", f"/?token={ui.token}", token=False)
    assert status == 200
    assert ui.request("GET", f"/app.js?token={ui.token}", token=False)[0] == 200
    status, data, _ = ui.request("GET", "/api/overview")
    assert status == 200 and list(data["agents"]) == ["dev"]
    status, _ = ui.write("add", {"agent": "dev", "category": "lessons", "text": "x"}, token=False)
    assert status == 403
    assert not entry_files(ui.root, "dev", "lessons")


def test_a_foreign_host_is_refused_even_with_the_token(ui: UI):
    for host in ("evil.example", f"evil.example:{ui.port}", f"127.0.0.1.nip.io:{ui.port}", "127.0.0.1:1"):
        status, data, _ = ui.request("GET", "/api/overview", headers={"Host": host})
        assert status == 403, host
        assert "Host" in data["error"]
    with socket.create_connection(("127.0.0.1", ui.port)) as raw:  # no Host at all (HTTP/1.0)
        raw.sendall(f"GET /api/overview HTTP/1.0\r\nX-Memcli-Token: {ui.token}\r\n\r\n".encode())
        assert raw.makefile("rb").readline().split()[1] == b"403"
    assert ui.request("GET", "/api/overview", headers={"Host": f"localhost:{ui.port}"})[0] == 200


def test_a_write_needs_its_own_origin_and_json(ui: UI):
    body = {"agent": "dev", "category": "lessons", "text": "written from elsewhere"}
    for origin in ("http://evil.example", f"http://evil.example:{ui.port}", "null", None):
        status, data = ui.write("add", body, headers={"Origin": origin})
        assert status == 403 and "origin" in data["error"], origin
    status, _, _ = ui.request(
        "POST", "/api/add", None, headers={"Origin": f"http://127.0.0.1:{ui.port}", "Content-Type": "text/plain"}
    )
    assert status == 415
    assert not entry_files(ui.root, "dev", "lessons")
    status, data = ui.write("add", body, headers={"Origin": f"http://localhost:{ui.port}"})
    assert status == 200 and len(entry_files(ui.root, "dev", "lessons")) == 1


def test_every_answer_forbids_inline_script_and_other_hosts(ui: UI):
    for path in ("/", "/app.js", "/api/overview", "/api/nothing"):
        _, _, response = ui.request("GET", path)
        csp = response.getheader("Content-Security-Policy")
        assert "script-src 'self'" in csp and "unsafe-inline" not in csp and "default-src 'none'" in csp
        assert response.getheader("X-Content-Type-Options") == "nosniff"
        assert response.getheader("Referrer-Policy") == "no-referrer"
    page = ui.request("GET", "/")[2]
    assert page.status == 200
    html = (Path(__file__).parent.parent / "memcli/ui/static/index.html").read_text()
    assert "<script>" not in html and " on" not in re.sub(r"<script[^>]*src=[^>]*>", "", html).lower().replace(
        "none", ""
    )  # no inline script, no inline handler


def test_read_only_hides_and_refuses_every_write(mem: Path):
    run("add", "dev", "tasks", "- [ ] one", cwd=mem, check=True)
    before = {p: p.read_bytes() for p in (mem / ".memory").rglob("*.md")}
    server = UI(mem, "--read-only")
    try:
        assert server.request("GET", "/api/overview")[1]["read_only"] is True
        entry_id = int(entry_files(mem, "dev", "tasks")[0].name.split("-")[0])
        for action, body in [
            ("add", {"agent": "dev", "category": "lessons", "text": "no"}),
            ("edit", {"agent": "dev", "id": entry_id, "text": "changed"}),
            ("rm", {"agent": "dev", "id": entry_id}),
            ("done", {"agent": "dev", "id": entry_id}),
            ("archive", {"agent": "dev", "id": entry_id}),
            ("pin", {"agent": "dev", "id": entry_id}),
            ("supersede", {"agent": "dev", "id": entry_id, "text": "new"}),
        ]:
            status, data = server.write(action, body)
            assert status == 403 and "read-only" in data["error"], action
    finally:
        server.stop()
    assert {p: p.read_bytes() for p in (mem / ".memory").rglob("*.md")} == before


def test_bad_writes_get_one_line_and_write_nothing(ui: UI):
    secret = "the key is AKIA" + "IOSFODNN7EXAMPLE"
    cases = [
        ("add", {"agent": "dev", "category": "lessons", "text": secret}, "secret"),
        ("add", {"agent": "Dev!", "category": "lessons", "text": "x"}, "agent"),
        ("add", {"agent": "dev", "category": "nope", "text": "x"}, "category"),
        ("add", {"agent": "dev", "category": "lessons", "text": "   "}, "empty"),
        ("add", {"agent": "dev", "category": "lessons", "text": 5}, "text"),
        ("add", {"agent": "dev", "category": "lessons", "text": "lone \ud800 half"}, "utf-8"),
        ("add", {"agent": "dev", "category": "lessons", "text": "nul \x00 byte"}, "nul"),
        ("edit", {"agent": "dev", "id": 1, "text": "x"}, "no entry"),
        ("edit", {"agent": "dev", "id": "12x", "text": "x"}, "id"),
        ("rm", {"agent": "dev", "id": 42}, "42"),
        ("frobnicate", {}, "unknown action"),
    ]
    before = {p: p.read_bytes() for p in (ui.root / ".memory").rglob("*.md")}
    for action, body, word in cases:
        status, data = ui.write(action, body)
        assert status == 400, (action, body, data)
        assert word in data["error"].lower() and "\n" not in data["error"], data
    status, _, _ = ui.request("POST", "/api/add", None, headers={"Content-Type": "application/json"})
    assert {p: p.read_bytes() for p in (ui.root / ".memory").rglob("*.md")} == before
    assert ui.request("GET", "/api/entry?agent=dev&id=1")[0] == 400
    assert ui.request("GET", "/api/entries?limit=0")[0] == 400
    assert ui.proc.poll() is None  # still serving


def test_a_second_ui_on_the_same_port_and_a_port_in_use_say_so_in_one_line(ui: UI, mem: Path):
    second = run("ui", "--no-open", "--port", str(ui.port), cwd=mem, process=True)
    assert second.returncode == 1
    assert second.stderr.count("\n") == 1 and "already running on port" in second.stderr, second.stderr
    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        port = other.getsockname()[1]
        taken = run("ui", "--no-open", "--port", str(port), cwd=mem, process=True)
    assert taken.returncode == 1
    assert taken.stderr.count("\n") == 1 and f"port {port} is in use" in taken.stderr, taken.stderr
    assert run("ui", "--port", "70000", cwd=mem).returncode != 0


def test_ctrl_c_stops_it_cleanly(ui: UI):
    ui.proc.send_signal(signal.SIGINT)
    assert ui.proc.wait(10) == 0
    assert "stopped" in ui.proc.stdout.read()  # type: ignore[union-attr]
    assert "Traceback" not in ui.proc.stderr.read()  # type: ignore[union-attr]


def test_the_page_and_the_cli_read_the_same_memory(ui: UI, mem: Path):
    """Search ranks as `memcli search`; preview is the block `memcli inject` prints; a write is a file."""
    for text in ("rollout canary item4321 done", "rollout canary item4051 done", "the login redirect loops"):
        assert ui.write("add", {"agent": "dev", "category": "lessons", "text": text})[0] == 200
    cli = json.loads(run("search", "rollout item4321", "--json", cwd=mem, check=True).stdout)
    page = ui.request("GET", "/api/search?q=rollout+item4321")[1]["hits"]
    assert [h["id"] for h in page] == [h["id"] for h in cli] and "item4321" in page[0]["body"]
    assert ["item4321", True] in page[0]["pieces"]
    block = run("inject", "dev", "login redirect", "--budget", "60", cwd=mem, check=True).stdout
    preview = ui.request("GET", "/api/preview?agent=dev&task=login+redirect&budget=60")[1]
    assert preview["block"] == block and preview["tokens"] <= 60 and preview["explain"][0].startswith("inject:")
    usage = mem / ".memory" / ".vault" / "usage.json"
    recorded = usage.read_bytes()  # what the CLI's inject showed counts as used; a preview does not
    assert ui.request("GET", "/api/preview?agent=dev&task=rollout+canary&budget=60")[0] == 200
    assert usage.read_bytes() == recorded
    first = page[0]["id"]
    assert ui.write("archive", {"agent": "dev", "id": first})[0] == 200
    row = ui.request("GET", "/api/overview")[1]["agents"]["dev"]["categories"]["lessons"]
    assert (row["entries"], row["hidden"], row["shown"]) == (3, 1, 2)  # as `status --json` counts them
    listed = ui.request("GET", "/api/entries?agent=dev&category=lessons")[1]
    assert first not in [r["id"] for r in listed["entries"]] and listed["more"] is False


# -- the page, in a real browser -----------------------------------------------------------------

BIG = 10_000


@pytest.fixture(scope="module")
def big(tmp_path_factory) -> Path:
    """A committed git repository whose memory holds 10,000 entries, and a few to attack with."""
    from memcli.storage import vault
    from memcli.storage.store import entry_file_name

    root = tmp_path_factory.mktemp("big")
    git("init", "-q", "-b", "main", cwd=root)
    run("init", "--no-hooks", cwd=root, check=True)
    words = "deploy cache index shard replica token session queue retry budget schema build".split()
    base = 1_760_000_000_000
    for n in range(BIG):
        agent, category = ("dev", "qa")[n % 2], ("decisions", "lessons", "tasks")[n % 3]
        body = " ".join(words[(n * k) % len(words)] for k in (1, 3, 5, 7)) + f" item{n}"
        if category == "tasks":
            body = f"- [ ] {body}"
        entry = vault.Entry(base + n * 60_000, None, [words[n % len(words)]], body)
        folder = root / ".memory" / agent / category
        folder.mkdir(parents=True, exist_ok=True)
        (folder / entry_file_name(entry)).write_text(vault.serialize([entry]))
    for text in XSS:
        run("add", "web", "lessons", text, cwd=root, check=True)
    run("add", "web", "decisions", "Keep the edit target here", cwd=root, check=True)
    git("add", "-A", cwd=root)
    git("commit", "-qm", "memory", cwd=root)
    run("search", "warm the index", cwd=root, check=True)
    return root


@pytest.fixture(scope="module")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:  # a fresh machine without the test extra
        sync_playwright = None
    if sync_playwright is None or not os.path.exists(CHROMIUM):
        why = "needs Playwright (the test extra) and Debian's chromium (apt-get install chromium)"
        if os.environ.get("CI"):
            pytest.fail(f"the browser tests {why}: .ci/run installs both")
        pytest.skip(why)
    with sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ],
        )
        yield b
        b.close()


@pytest.fixture(scope="module")
def served(big: Path):
    server = UI(big)
    yield server
    server.stop()


@pytest.fixture
def page(browser, served: UI):
    """A fresh page on the served memory; every dialog and every request is recorded."""
    context = browser.new_context()
    pg = context.new_page()
    pg.dialogs, pg.requests = [], []  # type: ignore[attr-defined]
    pg.on("dialog", lambda d: (pg.dialogs.append(d.message), d.accept()))  # type: ignore[attr-defined]
    pg.on("request", lambda r: pg.requests.append(r.url))  # type: ignore[attr-defined]
    pg.goto(served.url)
    pg.wait_for_selector("body[data-ready='1']", timeout=30_000)
    yield pg
    context.close()


def expect(locator):
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect(locator)


def _own(requests: list[str], port: int) -> bool:
    return all(urlsplit(u).netloc == f"127.0.0.1:{port}" or u.startswith("data:") for u in requests)


def test_the_page_loads_a_10k_memory_a_page_at_a_time(page, served: UI):
    assert page.locator("#agents [data-agent='dev']").count() >= 1
    assert "open tasks" in page.inner_text("#agents")
    assert page.locator("#entries article.entry").count() == 20
    page.click("#agents button[data-agent='qa'][data-category='lessons']")
    expect(page.locator("#entries article.entry")).to_have_count(20)
    expect(page.locator("#entries article.entry").first).to_contain_text("qa/lessons")
    ids = [int(x) for x in page.locator("#entries article.entry").evaluate_all("n => n.map(e => e.dataset.id)")]
    assert ids == sorted(ids, reverse=True)  # newest first
    page.click("#more")
    expect(page.locator("#entries article.entry")).to_have_count(40)
    assert page.inner_text("#where") == "qa / lessons"
    page.locator("#entries .chip", has_text="#cache").first.click()  # a tag filters
    page.wait_for_selector("#tag-filter:not([hidden])")
    for _ in range(100):  # until the filtered list has replaced the page
        tags = page.locator("#entries article.entry").evaluate_all(
            "n => n.map(e => [...e.querySelectorAll('.chip')].map(c => c.textContent))"
        )
        if tags and all("#cache" in t for t in tags):
            break
        page.wait_for_timeout(100)
    assert tags and all("#cache" in t for t in tags)
    paths = {urlsplit(u).path for u in page.requests}
    assert {"/", "/app.js", "/app.css", "/api/overview", "/api/entries"} <= paths
    assert _own(page.requests, served.port) and not page.dialogs


def test_search_as_you_type_marks_the_words_and_ranks_as_the_cli(page, served: UI):
    page.click("button[data-tab='search']")
    page.locator("#search-input").press_sequentially("replica item4321", delay=20)
    expect(page.locator("#results article.entry").first).to_contain_text("item4321")
    first = page.locator("#results article.entry").first
    assert "item4321" in first.inner_text()
    assert "item4321" in first.locator("mark").all_inner_texts()
    cli = json.loads(run("search", "replica item4321", "--json", "--limit", "20", cwd=served.root).stdout)
    shown = page.locator("#results article.entry").evaluate_all("n => n.map(e => Number(e.dataset.id))")
    assert shown == [h["id"] for h in cli]


def test_open_an_entry_edit_it_and_the_file_on_disk_changes(page, served: UI):
    located = json.loads(run("search", "Keep the edit target", "--json", cwd=served.root).stdout)[0]
    page.click("button[data-tab='search']")
    page.fill("#search-input", "Keep the edit target")
    page.locator(f"#results article[data-id='{located['id']}']").click()
    page.wait_for_selector("#detail:not([hidden]) #act-edit")
    assert "History" in page.inner_text("#detail") and "memory" in page.inner_text("#detail")  # its git log
    page.click("#act-edit")
    page.fill("#editor-text", "Keep the edit target here, edited in the browser")
    page.click("#editor-save")
    page.wait_for_selector("#message.ok")
    [path] = [p for p in entry_files(served.root, "web", "decisions")]
    assert "edited in the browser" in path.read_text()
    assert _own(page.requests, served.port) and not page.dialogs


def test_preview_inject_shows_the_block_the_bar_and_why(page, served: UI):
    page.click("button[data-tab='preview']")
    page.select_option("#preview-agent", "dev")
    page.fill("#preview-task", "retry the queue")
    page.fill("#preview-budget", "300")
    page.click("#preview-form button[type='submit']")
    page.wait_for_selector("#budget-bar div[data-section]")
    expected = run("inject", "dev", "retry the queue", "--budget", "300", cwd=served.root).stdout
    assert page.locator("#preview-block").text_content() == expected
    sections = page.locator("#budget-bar div[data-section]").evaluate_all(
        "n => n.map(e => [e.dataset.section, Number(e.dataset.tokens), e.getBoundingClientRect().width])"
    )
    data = json.loads(run("inject", "dev", "retry the queue", "--budget", "300", "-f", "json", cwd=served.root).stdout)
    assert {(s, n) for s, n, _ in sections} == {(k, v) for k, v in data["costs"].items() if v and k != "instructions"}
    assert "tasks" in {s for s, _, _ in sections}  # dev has 1,667 open tasks: they fill the budget
    assert "cut:" in page.inner_text("#preview-explain") and "decisions" in page.inner_text("#preview-explain")
    bar = page.locator("#budget-bar").bounding_box()["width"]
    assert sum(w for _, _, w in sections) <= bar + 1 and all(w > 0 for _, _, w in sections)
    assert "of 300 tokens" in page.inner_text("#budget-total")
    assert page.inner_text("#preview-explain").startswith("inject:")


def test_add_and_remove_an_entry_from_the_page(page, served: UI):
    page.click("#agents button[data-agent='web'][data-category='lessons']")
    page.click("#new-entry")
    page.fill("#add-agent", "web")
    page.select_option("#add-category", "lessons")
    page.fill("#add-text", "Added from the browser, then removed #browser")
    page.click("#add-save")
    page.wait_for_selector("#detail:not([hidden]) #act-rm")
    files = [p for p in entry_files(served.root, "web", "lessons") if "browser" in p.read_text()]
    assert len(files) == 1 and "#browser" in files[0].read_text()
    page.click("#act-rm")  # confirm() is accepted by the fixture
    page.wait_for_selector("#detail", state="hidden")
    assert page.dialogs and page.dialogs[-1].startswith("Remove entry")
    assert not [p for p in entry_files(served.root, "web", "lessons") if "browser" in p.read_text()]


def test_a_secret_typed_in_the_page_is_refused_on_the_page(page, served: UI):
    page.click("#new-entry")
    page.fill("#add-agent", "web")
    page.fill("#add-text", "token " + "ghp_" + "a" * 36)
    page.click("#add-save")
    page.wait_for_selector("#message:not([hidden]):not(.ok)")
    assert "secret" in page.inner_text("#message")
    assert not [p for p in entry_files(served.root, "web", "lessons") if "ghp_" in p.read_text()]


def test_hostile_bodies_are_shown_as_text_and_run_nothing(page, served: UI):
    page.click("#agents button[data-agent='web'][data-category='lessons']")
    expect(page.locator("#entries article.entry")).to_have_count(len(XSS))
    shown = page.inner_text("#entries")
    for text in XSS:
        assert text.replace("**", "").split(" in a body")[0][:20] in shown
    assert page.locator("#entries script, #entries img, #entries iframe").count() == 0
    assert page.locator("#entries a[href^='javascript']").count() == 0
    for n in range(len(XSS)):  # open each: the detail view renders its Markdown
        card = page.locator("#entries article.entry").nth(n)
        entry_id = card.get_attribute("data-id")
        card.click()
        expect(page.locator("#detail strong").first).to_have_text(re.compile(f" {entry_id}$"))
        page.click("#act-edit")  # the body inside a textarea: a </textarea> in it ends nothing
        assert page.locator("#editor-text").input_value() in XSS
        assert page.locator("#detail script, #detail img, #detail iframe").count() == 0
    page.click("button[data-tab='search']")
    page.fill("#search-input", "alert body")
    page.wait_for_selector("#results article.entry")
    assert page.locator("#results script, #results img").count() == 0
    page.wait_for_timeout(300)
    assert not page.dialogs, page.dialogs
    assert _own(page.requests, served.port), [u for u in page.requests if not _own([u], served.port)]
    assert page.evaluate("typeof window.__xss") == "undefined"


def test_the_timeline_is_drawn_by_the_page(page, served: UI):
    page.click("button[data-tab='timeline']")
    page.wait_for_selector("#chart-category svg rect")
    assert page.locator("#chart-category svg rect").count() >= 3
    assert page.locator("#chart-agent svg rect").count() >= 2
    assert "dev" in page.inner_text("#chart-agent") and "lessons" in page.inner_text("#chart-category")
    assert _own(page.requests, served.port)


def test_a_page_from_another_origin_cannot_read_or_write(browser, served: UI, tmp_path: Path):
    """A hostile site the person visits: its script knows the port, not the token; even a stolen
    token does not let it write (no CORS, and the Origin check)."""
    hostile = tmp_path / "evil.html"
    hostile.write_text("<html><body>evil</body></html>")
    context = browser.new_context()
    pg = context.new_page()
    pg.goto(hostile.as_uri())
    before = len(entry_files(served.root, "web", "lessons"))
    result = pg.evaluate(
        """async ([port, token]) => {
            const out = [];
            for (const headers of [{}, {"X-Memcli-Token": token}]) {
              try {
                const r = await fetch(`http://127.0.0.1:${port}/api/add`, {method: "POST",
                  headers: {"Content-Type": "application/json", ...headers},
                  body: JSON.stringify({agent: "web", category: "lessons", text: "from evil"})});
                out.push(r.status);
              } catch (e) { out.push("blocked"); }
            }
            try { await fetch(`http://127.0.0.1:${port}/api/overview`, {mode: "no-cors"}); out.push("sent"); }
            catch (e) { out.push("blocked"); }
            return out;
        }""",
        [served.port, served.token],
    )
    context.close()
    assert result[0] != 200 and result[1] != 200, result
    assert len(entry_files(served.root, "web", "lessons")) == before


def test_read_only_page_shows_no_write_button(browser, mem: Path):
    run("add", "dev", "tasks", "- [ ] one", cwd=mem, check=True)
    server = UI(mem, "--read-only")
    context = browser.new_context()
    try:
        pg = context.new_page()
        pg.goto(server.url)
        pg.wait_for_selector("body[data-ready='1']")
        assert pg.inner_text("#mode") == "read-only"
        assert not pg.locator("#new-entry").is_visible()
        pg.locator("#entries article.entry").first.click()
        pg.wait_for_selector("#detail:not([hidden])")
        for button in ("#act-edit", "#act-rm", "#act-done", "#act-pin", "#act-archive", "#act-supersede"):
            assert not pg.locator(button).is_visible(), button
    finally:
        context.close()
        server.stop()


def test_what_changes_on_disk_while_it_runs_is_shown_and_no_memory_is_one_line(ui: UI, mem: Path, tmp_path: Path):
    run("add", "dev", "lessons", "written by the CLI while the page runs", cwd=mem, check=True)
    rows = ui.request("GET", "/api/entries?agent=dev&category=lessons")[1]["entries"]
    assert [r["body"] for r in rows] == ["written by the CLI while the page runs"]
    (mem / ".memory" / "config.toml").write_text("this is not toml [")
    status, data, _ = ui.request("GET", "/api/overview")
    assert status == 400 and "config.toml" in data["error"]
    empty = tmp_path / "empty"
    empty.mkdir()
    result = run("ui", "--no-open", cwd=empty, process=True)
    assert result.returncode == 1 and result.stderr.count("\n") == 1 and "memcli init" in result.stderr


def test_a_write_while_another_process_holds_the_lock_or_through_a_symlink_writes_nothing(ui: UI, tmp_path: Path):
    before = {p: p.read_bytes() for p in (ui.root / ".memory").rglob("*.md")}
    with lock_held(ui.root):
        status, data = ui.write("add", {"agent": "dev", "category": "lessons", "text": "while locked"})
    assert status == 400 and "lock" in data["error"] and "\n" not in data["error"], data
    outside = tmp_path / "outside"
    outside.mkdir()
    (ui.root / ".memory" / "dev" / "lessons").symlink_to(outside)
    status, data = ui.write("add", {"agent": "dev", "category": "lessons", "text": "through a symlink"})
    assert status == 400 and "\n" not in data["error"], data
    assert not list(outside.iterdir())
    assert {p: p.read_bytes() for p in (ui.root / ".memory").rglob("*.md")} == before
    assert ui.request("GET", "/api/overview")[0] == 200  # still serving
