#!/usr/bin/env bash
# Installs forceterm's binaries, man pages and shell completions under a prefix, or removes them.
#   scripts/install.sh BIN_DIR PREFIX      BIN_DIR holds forceterm-multicall and generate-manual
#   scripts/install.sh --uninstall PREFIX
# `make install` / `make uninstall` call it with .build/release and $(DESTDIR)$(PREFIX).
set -euo pipefail

# One binary, forceterm-multicall, installed as forceterm with the other two names linked to it:
# it runs the command it is started as.
binaries=(forceterm localorg smartstore-tool)
files=(
  bin/forceterm bin/localorg bin/smartstore-tool lib/forceterm/libforceterm-sqlite3.so.0
  share/man/man1/forceterm.1 share/man/man1/localorg.1
  share/bash-completion/completions/forceterm share/zsh/site-functions/_forceterm
  share/fish/vendor_completions.d/forceterm.fish
  share/bash-completion/completions/localorg share/zsh/site-functions/_localorg
  share/fish/vendor_completions.d/localorg.fish
)

if [[ "${1:-}" == "--uninstall" ]]; then
  prefix="${2:?usage: install.sh --uninstall PREFIX}"
  for file in "${files[@]}"; do
    if [[ -e "$prefix/$file" || -L "$prefix/$file" ]]; then rm -f "$prefix/$file" && echo "removed $prefix/$file"; fi
  done
  rmdir "$prefix/lib/forceterm" 2>/dev/null || true
  exit 0
fi

bin_dir="${1:?usage: install.sh BIN_DIR PREFIX}"
prefix="${2:?usage: install.sh BIN_DIR PREFIX}"
for binary in forceterm-multicall generate-manual; do
  [[ -x "$bin_dir/$binary" ]] || { echo "install.sh: $bin_dir/$binary is missing; build first (make install does)" >&2; exit 1; }
done

install -d "$prefix/bin" "$prefix/lib/forceterm" "$prefix/share/man/man1" "$prefix/share/bash-completion/completions" \
  "$prefix/share/zsh/site-functions" "$prefix/share/fish/vendor_completions.d"
install -m 0755 "$bin_dir/forceterm-multicall" "$prefix/bin/forceterm"
for binary in "${binaries[@]:1}"; do
  ln -sf forceterm "$prefix/bin/$binary"
done
# forceterm's own SQLite (encrypted stores), found by the binary at $ORIGIN/../lib/forceterm.
sqlite=$(ldd "$bin_dir/forceterm-multicall" | awk '$1 == "libforceterm-sqlite3.so.0" { print $3 }')
[[ -f "$sqlite" ]] || { echo "install.sh: $bin_dir/forceterm-multicall does not link libforceterm-sqlite3.so.0; build with make" >&2; exit 1; }
install -m 0644 "$sqlite" "$prefix/lib/forceterm/libforceterm-sqlite3.so.0"

# Completions and man pages come from the commands themselves (swift-argument-parser), so they
# never disagree with --help.
for tool in forceterm localorg; do
  "$prefix/bin/$tool" --generate-completion-script bash > "$prefix/share/bash-completion/completions/$tool"
  "$prefix/bin/$tool" --generate-completion-script zsh > "$prefix/share/zsh/site-functions/_$tool"
  "$prefix/bin/$tool" --generate-completion-script fish > "$prefix/share/fish/vendor_completions.d/$tool.fish"
done

pages="$(mktemp -d)"
trap 'rm -rf "$pages"' EXIT
date="${SOURCE_DATE:-$(date -u +%Y-%m-%d)}"
for tool in forceterm localorg; do
  "$bin_dir/generate-manual" "$prefix/bin/$tool" --date "$date" -o "$pages"
done
# What the commands' help cannot say: where forceterm keeps things, and what its exit codes mean.
# They replace the generator's one-line EXIT STATUS section.
cat > "$pages/extra" <<'MDOC'
.Sh FILES
.Bl -tag -width Ds
.It Pa $XDG_DATA_HOME/forceterm/store.sqlite
The signed-in user's store (default
.Pa ~/.local/share/forceterm/store.sqlite ) ;
one per org and user once signed in.
.It Pa $XDG_DATA_HOME/forceterm/global.sqlite
The global store, shared by every user who signs in on this account.
.It Pa $XDG_CONFIG_HOME/forceterm/
Where login reads
.Pa bootconfig.json
(default
.Pa ~/.config/forceterm/ ) .
.El
.Sh EXIT STATUS
.Bl -tag -width Ds
.It 0
Success.
.It 1
The command could not do its job; one line on standard error says why.
.It 2
A usage error: an unknown option, a missing argument, an option this command does not take.
.It 3
sync finished, but some records were refused by the org or are in conflict, or a named sync failed.
.It 128+N
The terminal UI ended on signal N (SIGHUP when an SSH link drops); every saved change is kept.
.El
MDOC
awk -v extra="$pages/extra" '
  /^\.Sh "?EXIT STATUS"?$/ { while ((getline line < extra) > 0) print line; skipping = 1; next }
  skipping && /^\.Sh / { skipping = 0 }
  !skipping { print }
' "$pages/forceterm.1" > "$pages/forceterm.1.new"
mv "$pages/forceterm.1.new" "$pages/forceterm.1"
grep -q '^\.Sh FILES' "$pages/forceterm.1" || { echo "install.sh: the man page has no EXIT STATUS section to replace" >&2; exit 1; }
install -m 0644 "$pages/forceterm.1" "$prefix/share/man/man1/forceterm.1"
install -m 0644 "$pages/localorg.1" "$prefix/share/man/man1/localorg.1"

for file in "${files[@]}"; do echo "installed $prefix/$file"; done
