#!/usr/bin/env bash
# Run an agent CLI (cursor-agent by default) with memcli memory:
#   1. inject the memory block for the task in front of the prompt,
#   2. checkpoint the conversation every MEMCLI_CHECKPOINT_EVERY seconds while the agent runs,
#   3. close the session at the end (handoff + extracted decisions and lessons).
# The agent's exit status is the wrapper's.
#
# Usage: agent-wrapper.sh AGENT_ID "task" [extra agent arguments...]
# Environment: MEMCLI_AGENT_CMD         the agent command (default: cursor-agent), called as CMD -p PROMPT ARGS...
#              MEMCLI_CHECKPOINT_EVERY  seconds between checkpoints while the agent runs (default: 30)
#              MEMCLI_WRAPPER_DEBUG=1   show memcli's own messages (default: silent)
# Memory never breaks the agent: every memcli call here may fail, quietly.
set -u
if [ $# -lt 2 ]; then
    echo "usage: $0 AGENT_ID \"task\" [agent arguments...]" >&2
    exit 2
fi
agent_id=$1
task=$2
shift 2
agent_cmd=${MEMCLI_AGENT_CMD:-cursor-agent}
every=${MEMCLI_CHECKPOINT_EVERY:-30}
if [ -n "${MEMCLI_WRAPPER_DEBUG:-}" ]; then quiet=/dev/stderr; else quiet=/dev/null; fi

# The block ends with its own marker line; the task follows it. memcli strips the block again when
# the conversation is saved, so what it injected never comes back into memory.
block=$(memcli inject "$agent_id" -- "$task" 2>"$quiet") || block=""  # "--": a task such as "--help" is text
prompt="$block$task"

out=$(mktemp "${TMPDIR:-/tmp}/memcli-wrap.XXXXXX")
ticker=""
cleanup() {
    [ -n "$ticker" ] && kill "$ticker" 2>/dev/null
    rm -f "$out"
}
trap cleanup EXIT

# The conversation as JSON: the task, then the agent's output one paragraph per message. While the
# agent runs, the last paragraph may still grow, so it waits for the next save: every saved message
# keeps a stable id (its role and text) and is stored once.
conversation() {
    python3 - "$task" "$out" "$1" <<'PY'
import json, sys
task, path, final = sys.argv[1], sys.argv[2], sys.argv[3] == "final"
with open(path, encoding="utf-8", errors="replace") as f:
    paragraphs = [p.strip() for p in f.read().split("\n\n")]
if not final:
    paragraphs = paragraphs[:-1]
messages = [{"role": "user", "text": task}]
messages += [{"role": "agent", "text": p} for p in paragraphs if p]
print(json.dumps(messages))
PY
}

has_memory() {  # MEMCLI_DIR, or a .memory/ folder here or above (as memcli looks for it)
    [ -n "${MEMCLI_DIR:-}" ] && return 0
    local dir=$PWD
    while :; do
        [ -d "$dir/.memory" ] && return 0
        [ "$dir" = / ] && return 1
        dir=$(dirname "$dir")
    done
}

if has_memory; then  # no memory here: nothing to save, and nothing to say about it
    (
        nap=""
        trap '[ -n "$nap" ] && kill "$nap" 2>/dev/null; exit 0' TERM
        while :; do
            sleep "$every" &
            nap=$!
            wait "$nap"
            conversation partial | memcli checkpoint "$agent_id" - --quiet
        done
    ) >/dev/null 2>"$quiet" &
    ticker=$!
fi

"$agent_cmd" -p "$prompt" "$@" | tee "$out"
status=${PIPESTATUS[0]}

if [ -n "$ticker" ]; then
    kill "$ticker" 2>/dev/null
    wait "$ticker" 2>/dev/null
    ticker=""
    conversation final | memcli checkpoint "$agent_id" - --close --quiet 2>"$quiet"
fi
exit "$status"
