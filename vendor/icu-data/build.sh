#!/usr/bin/env bash
# Makes the ICU data the packaged forceterm carries instead of the toolchain's: the same package
# (Foundation's ICU data, compiled into the static _FoundationICU library as one symbol,
# icudtNN_dat) without the items vendor/icu-data/drop.txt names. The file is named after that
# symbol and a hash of its inputs (icudt76_dat-HASH.dat), so a changed rule makes a new file and
# the build compiles it again; vendor/icu-data/target assembles it into an object defining the
# symbol (Package.swift, when FORCETERM_ICU_DATA names the file).
#
# Usage: vendor/icu-data/build.sh OUT_DIR     prints the file's path; make dist sets
#        FORCETERM_ICU_DATA to it.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
out="${1:?usage: vendor/icu-data/build.sh OUT_DIR}"
swiftc=$(command -v swiftc) || { echo "icu-data: no swiftc on PATH; install the Swift toolchain" >&2; exit 1; }
resources=$("$swiftc" -print-target-info | python3 -c 'import json, sys; print(json.load(sys.stdin)["paths"]["runtimeResourcePath"])')
archive="$(dirname "$resources")/swift_static/linux/lib_FoundationICU.a"
[[ -f "$archive" ]] || { echo "icu-data: $archive is missing; the toolchain has no static Foundation (needed for --static-swift-stdlib)" >&2; exit 1; }

# The member that holds the data, and the data symbol's name, size and section.
definition=$(nm -A -S --defined-only "$archive" 2>/dev/null | grep -E ' [Rr] icudt[0-9]+_dat$' || true)
[[ $(wc -l <<<"$definition") == 1 && -n "$definition" ]] || {
  echo "icu-data: expected one icudtNN_dat in $archive, found: ${definition:-none}" >&2
  exit 1
}
member=$(cut -d: -f2 <<<"$definition")
symbol=$(awk '{ print $NF }' <<<"$definition")
symbol_size=$((16#$(awk '{ print $(NF-2) }' <<<"$definition")))

inputs=$( (sha256sum "$archive" | cut -c1-64; cat "$0" "$here/filter.py" "$here/drop.txt") | sha256sum | cut -c1-16)
package="$out/$symbol-$inputs.dat"
if [[ ! -f "$package" ]]; then
  mkdir -p "$out"
  work=$(mktemp -d "${TMPDIR:-/tmp}/icu-data.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  (cd "$work" && ar x "$archive" "$member")
  objcopy -O binary --only-section=.rodata "$work/$member" "$work/full.dat"
  [[ $(stat -c %s "$work/full.dat") == "$symbol_size" ]] || {
    echo "icu-data: $member's .rodata holds more than $symbol; the toolchain's layout changed, read build.sh again" >&2
    exit 1
  }
  python3 "$here/filter.py" "$here/drop.txt" "$work/full.dat" "$package.part" >&2
  rm -f "$out"/"$symbol"-*.dat
  mv "$package.part" "$package"
fi
readlink -f "$package"
