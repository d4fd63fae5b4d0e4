"""The memory page's first load, on a committed memory of 10,000 (and 100,000) entries.

    python bench/ui_load.py [--sizes 10000,100000] [--runs 7]

For each size: a git repository with bench.py's memory (one file per entry), committed, the index
built.  Each run starts a new `memcli ui` process and measures
- over HTTP: the five requests of the page's first load (the page, its script and style, the
  overview and the first page of entries), one after another (the browser sends the last two
  side by side, so this is an upper bound);
- in Debian's headless Chromium (if Playwright and /usr/bin/chromium are there): from the start
  of the navigation to the page saying it is ready (``body[data-ready]``, everything drawn).
Prints medians.
"""

from __future__ import annotations

import argparse
import http.client
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench import ENV, MEMCLI, generate  # noqa: E402

FIRST_LOAD = ("/", "/app.css", "/app.js", "/api/overview", "/api/entries")


def start(root: Path) -> tuple[subprocess.Popen, int, str]:
    proc = subprocess.Popen(
        [*MEMCLI, "ui", "--no-open", "--port", "0"], cwd=root, stdout=subprocess.PIPE, text=True, env=ENV
    )
    match = re.search(r"127\.0\.0\.1:(\d+)/\?token=([\w-]+)", proc.stdout.readline())  # type: ignore[union-attr]
    assert match
    return proc, int(match.group(1)), match.group(2)


def http_load(port: int, token: str) -> float:
    started = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", port)
    for path in FIRST_LOAD:
        conn.request("GET", path, headers={"Host": f"127.0.0.1:{port}", "X-Memcli-Token": token})
        response = conn.getresponse()
        response.read()
        assert response.status == 200, (path, response.status)
        if response.getheader("Connection", "").lower() == "close":
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port)
    conn.close()
    return (time.perf_counter() - started) * 1000


def browser_load(browser, port: int, token: str) -> float:
    page = browser.new_page()
    page.goto(f"http://127.0.0.1:{port}/?token={token}")
    page.wait_for_selector("body[data-ready='1']")
    ms = page.get_attribute("body", "data-ready-ms")  # the page's performance.now() when it was drawn
    page.close()
    return float(ms or 0)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000")
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        sync_playwright = None
    chromium = shutil.which("chromium")
    print("| entries | first load over HTTP (5 requests), median | in headless Chromium, to ready, median |")
    print("|---|---|---|")
    for size in (int(s) for s in args.sizes.split(",")):
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            generate(root, size, entry_files=True)
            for cmd in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "memory"]):
                subprocess.run(["git", *cmd], cwd=root, check=True, env=ENV)
            # Files written in the same second as git's index are "racily clean": every git status
            # hashes them again until the index is rewritten later (as it is in a repository in use).
            time.sleep(2.1)
            subprocess.run(["git", "status", "--short"], cwd=root, capture_output=True, env=ENV, check=True)
            subprocess.run([*MEMCLI, "search", "warm"], cwd=root, capture_output=True, env=ENV, check=True)
            subprocess.run([*MEMCLI, "status"], cwd=root, capture_output=True, env=ENV, check=True)
            over_http, in_browser = [], []
            for _ in range(args.runs):
                proc, port, token = start(root)
                over_http.append(http_load(port, token))
                proc.terminate()
                proc.wait()
            if sync_playwright and chromium:
                with sync_playwright() as p:
                    browser = p.chromium.launch(
                        executable_path=chromium,
                        args=["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"],
                    )
                    for _ in range(args.runs):
                        proc, port, token = start(root)
                        in_browser.append(browser_load(browser, port, token))
                        proc.terminate()
                        proc.wait()
                    browser.close()
            shown = f"{statistics.median(in_browser):.0f} ms" if in_browser else "(no Playwright or chromium)"
            print(f"| {size:,} | {statistics.median(over_http):.0f} ms | {shown} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
