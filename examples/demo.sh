#!/usr/bin/env bash
# A small demo memory: a throwaway git repository, a few entries, a search and an inject.
set -euo pipefail
demo=$(mktemp -d "${TMPDIR:-/tmp}/memcli-demo.XXXXXX")
cd "$demo"
git init -q
echo "\$ memcli init"
memcli init --quiet
memcli edit _project - <<'PROJECT'
# Shop

**Stack:** Django 5, PostgreSQL, HTMX
**Conventions:** one app per domain; tests beside the code
PROJECT
run() { echo; echo "\$ memcli $*"; memcli "$@"; }
run add dev decisions "Adopt SSE instead of WebSockets: the host drops long-lived sockets #sse #architecture"
run add dev lessons "Streaming through nginx needs proxy_buffering off, or events arrive in bursts #nginx"
run add dev tasks "- [ ] add a heartbeat to the event stream"
echo '[{"role":"user","text":"wire the order feed to SSE"},{"role":"assistant","text":"We decided to send a heartbeat every 15 seconds so proxies keep the stream open."}]' \
    | memcli checkpoint dev - --close
run search "streaming events"
run inject dev "add live order updates" --budget 400
run status
echo
echo "demo memory left in $demo"
