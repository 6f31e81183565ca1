#!/usr/bin/env bash
# Packs forceterm for a laptop without a Swift toolchain: one release binary with the Swift runtime
# linked in (--static-swift-stdlib), installed as forceterm with localorg and smartstore-tool linked
# to it (it runs the command it is started as), the man pages and shell completions, as a tarball and a .deb
# that depends only on the Debian libraries the binaries link (libcurl, ncurses, zlib); SQLite is
# forceterm's own (SQLite3 Multiple Ciphers, for encrypted stores), shipped in usr/lib/forceterm.
#   scripts/dist.sh BIN_DIR VERSION OUT_DIR    BIN_DIR holds the static forceterm-multicall and generate-manual
# `make dist` builds into .build-dist and calls it.
set -euo pipefail

bin_dir=$(cd "${1:?usage: scripts/dist.sh BIN_DIR VERSION OUT_DIR}" && pwd)
version=${2:?usage: scripts/dist.sh BIN_DIR VERSION OUT_DIR}
out=${3:?usage: scripts/dist.sh BIN_DIR VERSION OUT_DIR}
cd "$(dirname "$0")/.."
mkdir -p "$out"
out=$(cd "$out" && pwd)
arch=$(dpkg --print-architecture)
name="forceterm_${version}_${arch}"
staging=$(mktemp -d "${TMPDIR:-/tmp}/forceterm-dist.XXXXXX")
trap 'rm -rf "$staging"' EXIT

# Nothing of the toolchain may be needed at run time: no libswift*.so among the libraries.
for binary in forceterm-multicall; do
  if ldd "$bin_dir/$binary" | grep -q 'libswift\|libFoundation\|libdispatch\|libBlocksRuntime'; then
    echo "dist.sh: $bin_dir/$binary still links the Swift runtime; build with --static-swift-stdlib (make dist does)" >&2
    ldd "$bin_dir/$binary" >&2
    exit 1
  fi
done

# ICU's data, which make dist links filtered (vendor/icu-data): said, so a link that took the
# toolchain's 34 MB instead shows at once.
icu_data=$(nm -S "$bin_dir/forceterm-multicall" | awk '$NF ~ /^icudt[0-9]+_dat$/ { print $2 }')
echo "dist: ICU data in the binary: $(( 16#${icu_data:-0} / 1024 )) KiB"

# The same files make install puts under a prefix, under /usr in the package.
scripts/install.sh "$bin_dir" "$staging/$name/usr" >/dev/null
strip --strip-unneeded "$staging/$name/usr/bin/forceterm" "$staging/$name/usr/lib/forceterm/"* 2>/dev/null || true

# The Debian packages that provide the libraries the binaries name themselves (NEEDED), found
# where ldd resolves them; their own dependencies come with those packages.
# The package's own SQLite names libcrypto itself, so it is read too.
libraries=$(for binary in "$staging/$name/usr/bin/forceterm" "$staging/$name/usr/lib/forceterm/"*.so*; do
  for needed in $(readelf -d "$binary" | awk '/NEEDED/ { gsub(/[][]/, "", $5); print $5 }'); do
    ldd "$binary" | awk -v lib="$needed" '$1 == lib { print $3 }'
  done
done | sort -u)
# The package's own library (forceterm's SQLite, in usr/lib/forceterm) belongs to no Debian package.
depends=$(for library in $libraries; do
  [[ "$(readlink -f "$library")" == "$staging"/* ]] && continue
  dpkg -S "$(readlink -f "$library")" 2>/dev/null || dpkg -S "$library" 2>/dev/null || true
done \
  | cut -d: -f1 | sort -u | grep -v '^libc6$' | paste -sd, | sed 's/,/, /g')
# Country names in every language (Deutschland, Allemagne → Germany), read at run time: data, not a library.
depends="${depends:+$depends, }iso-codes"
# What apt says the package takes once installed, in KiB (Debian Policy 5.6.20).
installed_size=$(du -sk --apparent-size "$staging/$name/usr" | cut -f1)
mkdir -p "$staging/$name/DEBIAN"
cat >"$staging/$name/DEBIAN/control" <<CONTROL
Package: forceterm
Version: $version
Architecture: $arch
Maintainer: forceterm <forceterm@localhost>
Depends: libc6${depends:+, $depends}
Installed-Size: $installed_size
Section: utils
Priority: optional
Description: offline terminal client for Salesforce contacts and accounts
 forceterm keeps contacts and accounts in a local SmartStore so a field rep can work without a
 network, and syncs when it comes back. localorg, a Salesforce-REST-compatible org on SQLite,
 comes with it for demos, training and tests without a Salesforce org.
CONTROL
dpkg-deb --root-owner-group --build "$staging/$name" "$out/$name.deb" >/dev/null
tar -C "$staging/$name" -czf "$out/forceterm-$version-linux-$arch.tar.gz" --owner=0 --group=0 --exclude=DEBIAN usr
echo "dist: $out/$name.deb ($(du -k "$out/$name.deb" | cut -f1) KiB, installs $installed_size KiB; Depends: libc6${depends:+, $depends})"
echo "dist: $out/forceterm-$version-linux-$arch.tar.gz"
