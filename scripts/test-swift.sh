#!/usr/bin/env bash
# Runs the built Swift tests as two processes at once: the command-line tests, and all the others.
#
# Why two: the command-line tests wait for child processes and tmux synchronously, and each such
# wait holds one of Swift's cooperative threads (one per core). In one process they starved the
# tests whose servers and syncs run on those threads: on two cores a localorg test waited minutes
# for a thread and timed out. In a process of their own they only wait for each other.
#
# usage: scripts/test-swift.sh TEST_BUNDLE [swift-testing options]
set -u
bundle=$1
shift
cli='ForcetermCLITests\.'
cli_log=$(mktemp "${TMPDIR:-/tmp}/forceterm-cli-tests.XXXXXX")
cli_pid=
# Interrupted: stop the other process and show what it had printed.
trap 'if [ -n "$cli_pid" ]; then kill "$cli_pid" 2>/dev/null; cat "$cli_log"; fi; rm -f "$cli_log"' EXIT

NO_COLOR=1 "$bundle" --testing-library swift-testing --filter "$cli" "$@" >"$cli_log" 2>&1 &
cli_pid=$!
NO_COLOR=1 "$bundle" --testing-library swift-testing --skip "$cli" "$@"
others=$?
wait "$cli_pid"
cli_status=$?
cli_pid=

echo
echo "=== The command-line tests, which ran alongside the tests above ==="
cat "$cli_log"
echo
echo "=== Swift tests: command-line tests exit $cli_status, all others exit $others ==="
[ "$others" -eq 0 ] && [ "$cli_status" -eq 0 ]
