#!/usr/bin/env bash
# make demo: runs `forceterm --demo` from the build directory. forceterm starts the localorg built
# beside it on 127.0.0.1 with demo data, signs in, syncs and opens the TUI; `?` shows how to reach
# the demo org from another terminal. Extra arguments go to forceterm (make demo DEMO_FLAGS=--reset).
# Usage: scripts/demo.sh BIN_DIR [forceterm options]   (make demo passes .build/debug)
set -euo pipefail

bin_dir=${1:?usage: scripts/demo.sh BIN_DIR [forceterm options] (for example .build/debug)}
shift
bin_dir=$(cd "$bin_dir" && pwd)
for program in forceterm localorg; do
    if [[ ! -x "$bin_dir/$program" ]]; then
        echo "demo: $bin_dir/$program is missing; build first (make build)" >&2
        exit 1
    fi
done
if [[ ! -t 0 || ! -t 1 ]]; then
    echo "demo: forceterm --demo is a terminal program; run make demo in a terminal" >&2
    exit 1
fi
exec "$bin_dir/forceterm" --demo "$@"
