#!/usr/bin/env bash
# What forceterm can show today, until the terminal UI exists: a store seeded with demo contacts
# and accounts (from config/userstore.json), queried with `forceterm query`.
# Usage: scripts/demo.sh BIN_DIR   (make demo passes .build/debug)
set -euo pipefail

bin_dir=${1:?usage: scripts/demo.sh BIN_DIR (for example .build/debug)}
bin_dir=$(cd "$bin_dir" && pwd)
cd "$(dirname "$0")/.."

forceterm="$bin_dir/forceterm"
seeder="$bin_dir/smartstore-tool"
if [[ ! -x "$forceterm" ]]; then
    echo "demo: $forceterm is missing; build first (make build)" >&2
    exit 1
fi
seed_help=$([[ -x "$seeder" ]] && "$seeder" seed --help 2>/dev/null || true)
if [[ "$seed_help" != *--contacts* ]]; then
    echo "demo: seeding is unavailable ($seeder has no 'seed' command yet), so there is no data to show" >&2
    exit 1
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/forceterm-demo.XXXXXX")
trap 'rm -rf "$work"' EXIT
store="$work/store.sqlite"

# Prints `forceterm query "SQL" FLAGS…` as a user would type it, then runs it against the demo store
# (stderr merged so the footer follows its table); a failing query is shown, not fatal.
query() {
    local sql=$1
    shift
    printf '\n$ forceterm query "%s"%s\n' "$sql" "${*:+ $*}"
    "$forceterm" query "$sql" "$@" --store "$store" 2>&1 || printf '(exit code %d)\n' "$?"
}

echo "== Seeding a demo store with 500 contacts (config/userstore.json soups)"
"$seeder" seed --store "$store" --config config --contacts 500

echo
echo "== Querying it with forceterm query (the TUI is not built yet)"
query "SELECT 'contacts' AS soup, count(*) AS records FROM {contacts} UNION ALL SELECT 'accounts', count(*) FROM {accounts}"
query "SELECT {contacts:LastName}, {contacts:FirstName}, {contacts:Title}, {contacts:Email} FROM {contacts} ORDER BY {contacts:LastName}, {contacts:FirstName}" --page-size 10
query "SELECT {contacts:FirstName}, {contacts:LastName}, {contacts:MailingCity} FROM {contacts} WHERE {contacts:_soupEntryId} IN (SELECT rowid FROM {contacts}_fts WHERE {contacts}_fts MATCH 'jose OR 山田') ORDER BY {contacts:_soupEntryId} LIMIT 6"
query "SELECT {leads:Name} FROM {leads}"
