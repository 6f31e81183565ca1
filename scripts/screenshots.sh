#!/usr/bin/env bash
# Renders the screenshots of README.md and docs/tui.md: drives the real `forceterm --demo` in a detached tmux session
# (fresh demo data in a scratch directory), captures the pane with its colours (capture-pane -e)
# and turns each capture into a PNG (scripts/screenshots/ansi_to_png.py: pyte + Pillow).
# Usage: scripts/screenshots.sh BIN_DIR PYTHON   (make screenshots passes .build/debug and the venv's python)
# SCREENSHOTS_OUT=DIR writes the PNGs there instead of screenshots/ (the test of this script does).
set -euo pipefail

bin_dir=$(cd "${1:?usage: scripts/screenshots.sh BIN_DIR PYTHON}" && pwd)
python=${2:?usage: scripts/screenshots.sh BIN_DIR PYTHON}
cd "$(dirname "$0")/.."
out=${SCREENSHOTS_OUT:-screenshots}
mkdir -p "$out"

scratch=$(mktemp -d "${TMPDIR:-/tmp}/forceterm-screenshots.XXXXXX")
socket="forceterm-shots-$$"
cleanup() {
    tmux -L "$socket" kill-server 2>/dev/null || true
    rm -rf "$scratch"
}
trap cleanup EXIT

width=120
height=34
# A fixed port keeps the help shot the same from run to run (SCREENSHOTS_PORT when it is taken).
port=${SCREENSHOTS_PORT:-47443}
# The demo org adds latency to every request, so the sync-in-progress shot can catch the progress bar.
tmux -L "$socket" -f /dev/null new-session -d -x "$width" -y "$height" \
    "env LANG=C.UTF-8 TERM=tmux-256color TZ=UTC HOME='$scratch' XDG_DATA_HOME='$scratch/data' XDG_CONFIG_HOME='$scratch/config' \
     '$bin_dir/forceterm' --demo --demo-port $port --demo-latency 300 2>'$scratch/stderr'; sleep 600"
tmux -L "$socket" set-option -g escape-time 0 >/dev/null

screen() { tmux -L "$socket" capture-pane -p -t 0; }
keys() { tmux -L "$socket" send-keys -t 0 "$@"; }
# Polls the pane until TEXT is on it (TIMEOUT seconds, default 120); fails with the screen shown.
wait_for() {
    local text=$1 deadline=$((SECONDS + ${2:-120}))
    until screen | grep -qF -- "$text"; do
        if ((SECONDS > deadline)); then
            echo "screenshots: \"$text\" did not appear; the screen was:" >&2
            screen >&2
            cat "$scratch/stderr" >&2 2>/dev/null || true
            exit 1
        fi
        sleep 0.1
    done
}
# Polls the pane until TEXT is gone from it.
wait_gone() {
    local text=$1 deadline=$((SECONDS + ${2:-60}))
    while screen | grep -qF -- "$text"; do
        ((SECONDS < deadline)) || { echo "screenshots: \"$text\" stayed on the screen" >&2; screen >&2; exit 1; }
        sleep 0.1
    done
}
# Captures the pane with its colours and renders it as screenshots/NAME.png.
# The screen as it is now (fast); render turns it into a PNG (slow: a toast may expire meanwhile).
capture() {
    tmux -L "$socket" display-message -p -t 0 '#{pane_width} #{pane_height}' >"$scratch/$1.size"
    tmux -L "$socket" capture-pane -p -e -t 0 >"$scratch/$1.ansi"
}
render() {
    # shellcheck disable=SC2046
    "$python" scripts/screenshots/ansi_to_png.py "$scratch/$1.ansi" "$out/$1.png" $(cat "$scratch/$1.size")
    echo "screenshots: $out/$1.png"
}
shot() {
    capture "$1"
    render "$1"
}

wait_for "Contacts (500)" 600
shot list

keys "?"
wait_for "Demo org"
shot help
# The help names the script forceterm --demo wrote for a trainer: it changes the first synced
# contact on the server (localorg edit), as another user would.
wait_for "change-on-server.sh" 5
server_change="$scratch/data/forceterm/demo/change-on-server.sh"
[[ -r "$server_change" ]] || { echo "screenshots: forceterm --demo wrote no $server_change" >&2; exit 1; }
keys Escape

keys 2
wait_for "Accounts (50)"
keys Enter
wait_gone "Enter lists them"
shot detail
keys Escape 1
wait_for "Contacts (500)"

# A local edit of the first contact's title...
keys e
wait_for "Edit "
keys Tab Tab C-e
for _ in $(seq 60); do keys BSpace; done
keys -l "Changed here"
wait_for "Changed here"
shot edit
keys C-s
wait_for "Saved locally"

# ...and a server-side edit of the same field, then s: a conflict.
sh "$server_change" >/dev/null 2>"$scratch/server-change.err" \
    || { echo "screenshots: $server_change failed:" >&2; cat "$scratch/server-change.err" >&2; exit 1; }
keys s
deadline=$((SECONDS + 60))
# The sync downs running (their requests delayed by --demo-latency; side by side, any of them may
# be the one the bar names last).
until screen | tail -n 1 | grep -qE 'Sync down [a-z_, +0-9]+ [0-9]+/[0-9]+'; do
    ((SECONDS < deadline)) || { echo "screenshots: no sync progress on the status line" >&2; screen >&2; exit 1; }
    sleep 0.05
done
# Rendered after the conflict's toast is taken: the sync downs side by side end soon after the bar,
# and the toast could expire while this one was being drawn.
capture sync
wait_for "conflict (c)"
shot conflict
render sync
# c on the conflict: keep mine or take the server's.
keys c
wait_for "Which"
shot resolve
keys Escape

tmux -L "$socket" resize-window -t 0 -x 80 -y 24
deadline=$((SECONDS + 30))
until [[ $(tmux -L "$socket" display-message -p -t 0 '#{pane_width}') == 80 ]] && screen | grep -qF "Contacts (500)" && ! screen | grep -qF "Local state"; do
    ((SECONDS < deadline)) || { echo "screenshots: the 80x24 layout did not appear" >&2; screen >&2; exit 1; }
    sleep 0.1
done
shot narrow-80x24

keys q
deadline=$((SECONDS + 30))
until ! pgrep -f -- "$scratch/data/forceterm/demo/org" >/dev/null; do
    ((SECONDS < deadline)) || { echo "screenshots: the demo org did not stop after q" >&2; exit 1; }
    sleep 0.1
done
