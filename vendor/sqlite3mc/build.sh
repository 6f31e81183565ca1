#!/usr/bin/env bash
# Builds forceterm's own SQLite: SQLite3 Multiple Ciphers (sqlite3mc, MIT; SQLite itself is public
# domain), a drop-in SQLite that can read and write SQLCipher 4 files, so stores are encrypted at rest
# the way the Mobile SDK's are. Its amalgamation comes from the PyPI source distribution
# apsw-sqlite3mc, fetched by name and version and checked against the hash below; none of it is
# committed. The result is a shared library named libforceterm-sqlite3.so.0 (a name of its own, so
# the system's libsqlite3 is never replaced nor confused with it), with a libsqlite3.so link beside
# it for the linker: Package.swift puts its folder first on the link path and in the binaries' RUNPATH.
#
# Usage: vendor/sqlite3mc/build.sh OUT_DIR      (make does this before every build)
set -euo pipefail

version=3.54.0.0
sha256=60a021cd9f6c8f3e2aa6cb54e197cb344379d5eb9a688b7647a136fc24956db4
out="${1:?usage: vendor/sqlite3mc/build.sh OUT_DIR}"
lib="$out/lib/libforceterm-sqlite3.so.0"
# forceterm's own additions (each file says why): the page HMAC computed with OpenSSL's SHA-512,
# checkpoints that copy encrypted pages as they are, and a commit's pages encrypted on several cores.
additions=("$(dirname "$0")/openssl-hmac.c" "$(dirname "$0")/checkpoint-copy.c"
  "$(dirname "$0")/parallel-wal.c")
stamp="$out/lib/.built-$version-$(cat "$0" "${additions[@]}" | sha256sum | cut -c1-16)"
[[ -f "$stamp" && -f "$lib" ]] && exit 0

mkdir -p "$out/lib" "$out/src"
sdist="$out/src/apsw_sqlite3mc-$version.tar.gz"
if [[ ! -f "$sdist" ]] || ! echo "$sha256  $sdist" | sha256sum --check --status; then
  echo "Fetching SQLite3 Multiple Ciphers (apsw-sqlite3mc $version) from PyPI" >&2
  python3 - "$version" "$sdist.part" <<'PYTHON'
# pip cannot download this source distribution without running its setup, which fetches SQLite from
# elsewhere; so read PyPI's simple index (the one pip uses) for the file's address.
import json, sys, urllib.request
version, target = sys.argv[1], sys.argv[2]
index = "https://pypi.org/simple/apsw-sqlite3mc/"
request = urllib.request.Request(index, headers={"Accept": "application/vnd.pypi.simple.v1+json"})
with urllib.request.urlopen(request, timeout=120) as answer:
    files = json.load(answer)["files"]
name = f"apsw_sqlite3mc-{version}.tar.gz"
match = [f for f in files if f["filename"] == name]
if not match:
    sys.exit(f"build-sqlite3mc: PyPI has no {name}")
with urllib.request.urlopen(match[0]["url"], timeout=300) as answer, open(target, "wb") as out:
    out.write(answer.read())
PYTHON
  if ! echo "$sha256  $sdist.part" | sha256sum --check --status; then
    echo "build-sqlite3mc: $sdist.part does not have the expected SHA-256 ($sha256); not using it" >&2
    exit 1
  fi
  mv "$sdist.part" "$sdist"
fi

source_file="apsw_sqlite3mc-$version/sqlite3/sqlite3.c"
tar -xzf "$sdist" -C "$out/src" "$source_file"
grep -q '#define SQLITE3MC_VERSION_STRING' "$out/src/$source_file" || {
  echo "build-sqlite3mc: $source_file is not the SQLite3 Multiple Ciphers amalgamation" >&2; exit 1; }

# The amalgamation's functions that the additions replace are renamed (each definition line must
# be found exactly once), with a declaration of the original name left for the callers before it;
# the additions, appended, take the names.
unit="$out/src/forceterm-sqlite3.c"
cp "$out/src/$source_file" "$unit.part"
rename() {  # rename DEFINITION_LINE NEW_NAME DECLARATION
  local line="$1" new_name="$2" declaration="$3"
  if [[ "$(grep -cxF "$line" "$unit.part")" != 1 ]]; then
    echo "build-sqlite3mc: '$line' is not where this script expects it in $source_file" >&2
    exit 1
  fi
  local head="${line%%(*}"
  local name="${head##* }"
  LINE="$line" NEW="$declaration"$'\n'"${line/$name(/$new_name(}" perl -0pi -e 's/^\Q$ENV{LINE}\E$/$ENV{NEW}/m' "$unit.part"
}
rename 'void sqlcipher_hmac(int algorithm, unsigned char* key, int nkey, unsigned char* in, int in_sz, unsigned char* in2, int in2_sz, unsigned char* out)' \
  sqlcipher_hmac_portable ''
rename 'static int mcIoFileControl(sqlite3_file* pFile, int op, void* pArg)' mcIoFileControlOriginal ''
rename 'static int mcReadWal(sqlite3_file* pFile, const void* buffer, int count, sqlite3_int64 offset)' mcReadWalOriginal \
  'static int mcReadWal(sqlite3_file*, const void*, int, sqlite3_int64);'
rename 'static int mcWriteMainDb(sqlite3_file* pFile, const void* buffer, int count, sqlite3_int64 offset)' mcWriteMainDbOriginal \
  'static int mcWriteMainDb(sqlite3_file*, const void*, int, sqlite3_int64);'
rename 'SQLITE_PRIVATE int sqlite3WalFrames(' sqlite3WalFramesOriginal ''
rename 'SQLITE_PRIVATE void* sqlite3mcPagerCodec(PgHdrMC* pPg)' sqlite3mcPagerCodecOriginal ''
cat "${additions[@]}" >> "$unit.part"
mv "$unit.part" "$unit"

# Debian's libsqlite3 options where forceterm or GRDB could notice them (FTS5, 250,000 variables,
# secure delete), the SQLCipher scheme by default, and temporary tables and indexes always in memory
# so that nothing of a store is ever written to disk unencrypted.
echo "Building SQLite3 Multiple Ciphers (about a minute)" >&2
"${CC:-cc}" -O2 -fPIC -shared -o "$lib.part" -Wl,-soname,libforceterm-sqlite3.so.0 \
  -DSQLITE_THREADSAFE=1 -DSQLITE_TEMP_STORE=3 -DSQLITE_SECURE_DELETE=1 \
  -DSQLITE_ENABLE_FTS5 -DSQLITE_ENABLE_FTS4 -DSQLITE_ENABLE_FTS3_PARENTHESIS -DSQLITE_ENABLE_RTREE \
  -DSQLITE_ENABLE_COLUMN_METADATA -DSQLITE_ENABLE_DBSTAT_VTAB -DSQLITE_ENABLE_MATH_FUNCTIONS \
  -DSQLITE_ENABLE_UNLOCK_NOTIFY -DSQLITE_MAX_VARIABLE_NUMBER=250000 -DSQLITE_USE_URI=1 -DHAVE_USLEEP=1 \
  -DCODEC_TYPE=CODEC_TYPE_SQLCIPHER \
  "$unit" -lcrypto -lpthread -ldl -lm
mv "$lib.part" "$lib"
ln -sf libforceterm-sqlite3.so.0 "$out/lib/libsqlite3.so"
rm -f "$out/lib"/.built-*
touch "$stamp"
echo "SQLite3 Multiple Ciphers built: $lib" >&2
