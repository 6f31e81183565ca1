#!/usr/bin/env bash
# Installs the .deb that `make dist` made into a clean Debian root (debootstrap, minbase: no Swift,
# no compiler) and uses it there as a laptop would: --version of each binary, the man pages, then a
# localorg seeded and served inside the root and a forceterm that signs in to it, syncs, creates a
# contact and syncs it up. The run inside the root has a network namespace of its own with only
# loopback, so nothing it does can reach past it.
#   scripts/dist-check.sh DEB VERSION
# `make test-dist` builds the package and calls it. Needs root (chroot, mount, unshare); the first
# run downloads a minimal Debian (~40 MB) and keeps it in .build-debroot/ for later runs.
set -euo pipefail

deb=$(readlink -f "${1:?usage: scripts/dist-check.sh DEB VERSION}")
version=${2:?usage: scripts/dist-check.sh DEB VERSION}
cd "$(dirname "$0")/.."
say() { echo "dist-check: $*"; }
fail() { echo "dist-check: FAILED: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || fail "a Debian root needs chroot and mount: run as root (sudo make test-dist)"
[ -f "$deb" ] || fail "$deb does not exist; make dist builds it"
if ! command -v debootstrap >/dev/null; then
  say "installing debootstrap"
  apt-get update -q >/dev/null && apt-get install -y -q debootstrap >/dev/null
fi

# The same release as this machine's, so the package's Depends are what that release has.
suite=$(. /etc/os-release && echo "${VERSION_CODENAME:?}")
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
cache=.build-debroot
base="$cache/$suite-minbase.tar"
mkdir -p "$cache"
if [ ! -f "$base" ]; then
  say "making a minimal $suite root with debootstrap (once; kept in $base)"
  fresh="$cache/debootstrap.$$"
  rm -rf --one-file-system "$fresh"
  trap 'rm -rf --one-file-system "$fresh" "$base.partial"' EXIT
  debootstrap --variant=minbase "$suite" "$fresh" "$mirror" >"$cache/debootstrap.log" 2>&1 \
    || { tail -20 "$cache/debootstrap.log" >&2; fail "debootstrap $suite from $mirror failed (log above)"; }
  tar -C "$fresh" -cf "$base.partial" . && mv "$base.partial" "$base"
  rm -rf --one-file-system "$fresh"
fi

root=$(mktemp -d "$PWD/$cache/root.XXXXXX")
cleanup() {
  mountpoint -q "$root/proc" && umount "$root/proc"
  # Never remove a root that still has something mounted in it (findmnt sees through symlinks
  # and spaces, which /proc/mounts escapes).
  if [ -z "$(findmnt -rn -o TARGET | awk -v root="$(readlink -f "$root")/" 'index($0 "/", root) == 1')" ]; then
    rm -rf --one-file-system "$root"
  else
    echo "dist-check: $root still has mounts; left in place" >&2
  fi
}
trap cleanup EXIT
tar -C "$root" -xf "$base"
mount -t proc proc "$root/proc"
cp /etc/resolv.conf "$root/etc/resolv.conf"
cp "$deb" "$root/tmp/forceterm.deb"
in_root() { chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@"; }

say "installing $(basename "$deb") with apt (its Depends come from $mirror)"
in_root apt-get update -q >/dev/null || fail "apt-get update inside the root failed"
in_root apt-get install -y -q --no-install-recommends /tmp/forceterm.deb >"$cache/apt.log" 2>&1 \
  || { tail -20 "$cache/apt.log" >&2; fail "apt-get install of the .deb failed (log above)"; }

# The rest runs with loopback only: the package must need no network and no toolchain.
cat >"$root/tmp/check.sh" <<'CHECK'
set -eu
version=$1
fail() { echo "dist-check: FAILED: $*" >&2; exit 1; }
for tool in swift swiftc; do
  if command -v $tool >/dev/null 2>&1; then fail "$tool is in the root: it must have no Swift toolchain"; fi
done
if [ -d /opt/swift ] || find / -xdev \( -name 'libswift*' -o -name 'libFoundation*.so*' -o -name 'libdispatch.so*' \) -print 2>/dev/null | grep -q .; then
  fail "Swift runtime files are in the root"
fi
for binary in forceterm localorg smartstore-tool; do
  out=$($binary --version) || fail "$binary --version exited $?"
  [ "$out" = "$binary $version" ] || fail "$binary --version printed '$out', expected '$binary $version'"
  echo "dist-check: $binary --version: $out"
done
for page in forceterm localorg; do
  [ -s /usr/share/man/man1/$page.1 ] || [ -s /usr/share/man/man1/$page.1.gz ] || fail "no man page for $page"
done
[ -s /usr/share/bash-completion/completions/forceterm ] || fail "no bash completion for forceterm"

localorg seed --demo --data /root/org --accounts 20 --contacts 200 >/dev/null
localorg serve --data /root/org --port 0 --listen 127.0.0.1 --quiet --ready-file /tmp/ready.json >/tmp/serve.log 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
url=
for _ in $(seq 1 100); do
  [ -f /tmp/ready.json ] && url=$(sed -n 's/.*"url": *"\([^"]*\)".*/\1/p' /tmp/ready.json)
  [ -n "$url" ] && break
  kill -0 $server 2>/dev/null || { cat /tmp/serve.log >&2; fail "localorg serve exited"; }
  sleep 0.1
done
[ -n "$url" ] || { cat /tmp/serve.log >&2; fail "localorg serve did not write its ready file within 10 s"; }
echo "dist-check: localorg is serving $url"
echo localorg-demo | FORCETERM_PASSCODE=dist-check-1 forceterm login --login-url "$url" --cacert /root/org/ca.pem \
  --username demo@localorg.test --password-stdin || fail "forceterm login exited $?"
forceterm sync || fail "the first forceterm sync exited $?"
contacts=$(forceterm list contacts --format json | grep -c '"soup": "contacts"' || true)
[ "$contacts" -eq 200 ] || fail "forceterm list contacts shows $contacts contacts after a sync of 200"
echo "dist-check: the first sync brought all $contacts contacts"
# The packaged SQLite (usr/lib/forceterm) encrypts: the store does not start with SQLite's header,
# and a locked store is not read without its passcode.
store=$(ls /root/.local/share/forceterm/users/*/*/store.sqlite)
head -c 15 "$store" | grep -q "SQLite format" && fail "the store $store was written unencrypted"
forceterm lock >/dev/null || fail "forceterm lock exited $?"
forceterm list contacts >/dev/null 2>&1 && fail "a locked store was read without its passcode"
FORCETERM_PASSCODE=dist-check-1 forceterm list contacts >/dev/null || fail "the passcode did not unlock the store"
echo "dist-check: the store is encrypted by the packaged SQLite, and locked without the passcode"
forceterm create contacts LastName=Dist-Check FirstName=Debian >/dev/null || fail "forceterm create contact exited $?"
forceterm sync || fail "the sync up of a new contact exited $?"
localorg info --data /root/org | grep -Eq "^Contact +201 live" \
  || { localorg info --data /root/org >&2; fail "the new contact did not reach localorg (it should have 201)"; }
echo "dist-check: a contact created in the root reached localorg"
CHECK
say "using it inside the root, with loopback only"
# The root and version go in as arguments, never pasted into the shell code.
unshare --net sh -c 'ip link set lo up 2>/dev/null || true; exec chroot "$1" /usr/bin/env -i HOME=/root \
  PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 sh /tmp/check.sh "$2"' unshare-check "$root" "$version" \
  || fail "the check inside the root failed (above)"
say "passed: the .deb installs on a clean $suite root without Swift and syncs there"
