#!/usr/bin/env bash
# Runs one of the project's fuzzers for a fixed time budget and says what it found.
# Usage: scripts/fuzz/run.sh FUZZER_BINARY SECONDS NAME
#   NAME localorg: requests to localorg's API, seeded from Fuzz/seeds and Salesforce's Postman collection.
#   NAME import:   files for forceterm import, seeded from the real address books in Tests/Fixtures.
#   NAME condition: subscription conditions (forceterm subscribe --where), seeded from Fuzz/condition-seeds.
# The corpus grows in .build-fuzz/NAME/corpus (kept between runs); inputs that crash or hang are
# saved in .build-fuzz/NAME/findings/ and the run fails.
set -euo pipefail
fuzzer=$1 seconds=$2 name=$3
work=.build-fuzz/$name
corpus=$work/corpus findings=$work/findings
mkdir -p "$corpus" "$findings"
rm -f "$findings"/*
case $name in
    localorg)
        dict=Fuzz/salesforce.dict
        cp Fuzz/seeds/*.txt "$corpus/"
        collection=../shared/real-salesforce/postman/salesforce-apis.postman_collection.v53.json
        if [[ -f $collection ]]; then
            python3 scripts/fuzz/postman_seeds.py "$collection" "$corpus"
        else
            echo "note: $collection not found; seeding from Fuzz/seeds only" >&2
        fi
        ;;
    import)
        dict=Fuzz/import.dict
        cp Tests/Fixtures/address-books/*.vcf Tests/Fixtures/address-books/*.csv Fuzz/import-seeds/* "$corpus/"
        ;;
    condition)
        dict=Fuzz/salesforce.dict
        cp Fuzz/condition-seeds/*.txt "$corpus/"
        ;;
    *) echo "run.sh: no fuzzer called $name (localorg, import, condition)" >&2; exit 2 ;;
esac
log=$work/last-run.log
status=0
# -timeout: an input handled in more than 10 s counts as a hang.
SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0 "$fuzzer" "$corpus" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=6144 \
    -artifact_prefix="$findings/" -print_final_stats=1 -dict="$dict" 2>&1 | tee "$log" | grep -E "^#[0-9]+ *(pulse|DONE|NEW)|ERROR|SUMMARY|stat::" || status=$?
executions=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
found=$(find "$findings" -type f | wc -l)
echo "$name fuzz: $executions inputs in $seconds s, corpus $(ls "$corpus" | wc -l) inputs, findings: $found (in $findings)"
if grep -qE "^==[0-9]+==ERROR|Fatal error|deadly signal|ALARM: working on the last Unit" "$log"; then
    echo "the fuzzer found a problem; see $log and the input in $findings" >&2
    exit 1
fi
exit 0
