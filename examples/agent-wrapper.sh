#!/usr/bin/env bash
# Run an agent CLI (cursor-agent by default) with memcli memory:
#   1. inject the memory block for the task in front of the prompt,
#   2. checkpoint the conversation every MEMCLI_CHECKPOINT_EVERY seconds while the agent runs,
#   3. close the session at the end (handoff + extracted decisions and lessons).
#
# Usage: agent-wrapper.sh AGENT_ID "task" [extra agent arguments...]
# Environment: MEMCLI_AGENT_CMD   the agent command (default: cursor-agent), called as CMD -p PROMPT ARGS...
#              MEMCLI_CHECKPOINT_EVERY   seconds between checkpoints (default: 30)
# Memory never breaks the agent: every memcli call here is allowed to fail.
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

block=$(memcli inject "$agent_id" "$task" 2>/dev/null) || block=""
if [ -n "$block" ]; then
    prompt="$block"$'\n\n'"$task"
else
    prompt=$task
fi

out=$(mktemp "${TMPDIR:-/tmp}/memcli-wrap.XXXXXX")
trap 'rm -f "$out"' EXIT

# The conversation as JSON: the task, then the agent's output one paragraph per message.
# While the agent runs, the last paragraph may still grow, so it waits for the next save:
# every saved message keeps a stable id and is stored once.
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

$agent_cmd -p "$prompt" "$@" | tee "$out" &
agent_pid=$!
while kill -0 "$agent_pid" 2>/dev/null; do
    for _ in $(seq "$every"); do
        kill -0 "$agent_pid" 2>/dev/null || break
        sleep 1
    done
    conversation partial | memcli checkpoint "$agent_id" - --quiet 2>/dev/null || true
done
wait "$agent_pid"
status=$?
conversation final | memcli checkpoint "$agent_id" - --close --quiet || true
exit "$status"
