#!/usr/bin/env bash
# Benchmarks localorg on loopback: seeding speed, then requests per second and p50/p99 latency
# for a 2000-record query page and for single-record GETs, with 1 and 50 concurrent clients
# (wrk over HTTPS). Usage: scripts/localorg-bench.sh [LOCALORG_BINARY]
# The baseline, measured in the same run, is GET /services/data/ (TLS, HTTP and routing, no
# token check and no database); each row's ratio is its request rate over the baseline's at the
# same concurrency, so it shows what authentication and SQLite cost, whatever the machine.
# BENCH_DURATION (default 10s) sets how long each wrk run lasts.
set -euo pipefail
binary=${1:-.build/release/localorg}
duration=${BENCH_DURATION:-10s}
contacts=${BENCH_CONTACTS:-100000}
dir=$(mktemp -d)
server_pid=""
cleanup() {
    if [[ -n $server_pid ]]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
    rm -rf "$dir"
}
trap cleanup EXIT

seed_output=$("$binary" seed --demo --data "$dir" --accounts $((contacts / 100)) --contacts "$contacts" --random-seed 1)
seed_seconds=$(grep -o 'in [0-9.]* s' <<<"$seed_output" | grep -o '[0-9.]*')

"$binary" serve --data "$dir" --port 0 >"$dir/serve.log" 2>&1 &
server_pid=$!
url=""
for _ in $(seq 1 120); do
    url=$(grep -o 'https://localhost:[0-9]*' "$dir/serve.log" | head -1 || true)
    [[ -n $url ]] && break
    sleep 0.5
done
[[ -n $url ]] || { echo "localorg did not start:" >&2; cat "$dir/serve.log" >&2; exit 1; }
url=${url/localhost/127.0.0.1}
curl_ca=(curl --silent --show-error --fail --max-time 30 --cacert "$dir/ca.pem")
token=$("${curl_ca[@]}" "$url/services/oauth2/token" -d grant_type=password -d client_id=forceterm \
    --data-urlencode username=demo@localorg.test -d password=localorg-demo |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["access_token"])')
record=$("${curl_ca[@]}" -H "Authorization: Bearer $token" "$url/services/data/v59.0/query?q=SELECT+Id+FROM+Contact+LIMIT+1" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["records"][0]["attributes"]["url"])')

page="$url/services/data/v59.0/query?q=SELECT+Id,FirstName,LastName,Title,Email,AccountId+FROM+Contact+LIMIT+2000"
single="$url$record"
# One wrk run: prints "requests/s p50 p99".
measure() {
    local connections=$1 target=$2 threads=$(( $1 < 2 ? 1 : 2 ))
    wrk -t"$threads" -c"$connections" -d"$duration" --latency -H "Authorization: Bearer $token" "$target" |
        awk '/^ +50%/ {p50=$2} /^ +99%/ {p99=$2} /^Requests\/sec/ {rps=$2} END {printf "%s %s %s\n", rps, p50, p99}'
}

printf '%-34s %8s %12s %10s %10s %9s\n' "benchmark" "clients" "requests/s" "p50" "p99" "ratio"
declare -A baseline_rps
for target_name in "baseline: GET /services/data/" "single-record GET" "query page (2000 records)"; do
    case $target_name in
        baseline*) target="$url/services/data/" ;;
        single*) target=$single ;;
        *) target=$page ;;
    esac
    for connections in 1 50; do
        read -r rps p50 p99 < <(measure "$connections" "$target")
        # wrk abandons requests still in flight when it stops; let the server finish them first.
        sleep "${BENCH_PAUSE:-5}"
        [[ $target_name == baseline* ]] && baseline_rps[$connections]=$rps
        ratio=$(awk -v r="$rps" -v b="${baseline_rps[$connections]}" 'BEGIN { if (b > 0) printf "%.3fx", r / b; else print "-" }')
        printf '%-34s %8s %12s %10s %10s %9s\n' "$target_name" "$connections" "$rps" "$p50" "$p99" "$ratio"
    done
done
printf '%-34s %8s %12s\n' "seeding $contacts contacts" "-" "${seed_seconds}s"
