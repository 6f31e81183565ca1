# forceterm — the README's commands. Every target installs what it needs itself.
SHELL := /bin/bash
SWIFT ?= swift
BUILD_FLAGS ?=
# Debian packages: the three the app links against, plus what the test and demo scripts drive.
SYSTEM_PACKAGES := libncursesw5-dev libsqlite3-dev libcurl4-openssl-dev sqlite3 tmux
# localorg links zlib (gzip in both directions); its HTTPS test checks TLS with curl as an independent client.
SYSTEM_PACKAGES += zlib1g-dev curl
# The install test renders the generated man page with groff, as man does.
SYSTEM_PACKAGES += groff-base
# `make bench-tui` compares the bytes a keystroke writes with less paging the same list.
SYSTEM_PACKAGES += less
# forceterm's own SQLite (SQLite3 Multiple Ciphers, for encrypted stores) is compiled from source,
# its page HMAC with OpenSSL's SHA-512 (libcrypto, which libcurl loads anyway).
SYSTEM_PACKAGES += gcc libc6-dev libssl-dev
# Country names in every language, to map a typed or imported country to the org's (iso-codes' JSON and .mo files).
SYSTEM_PACKAGES += iso-codes
# `make test` builds its Python test environment with venv, which Debian packages separately.
SYSTEM_PACKAGES += python3 python3-venv
# `make screenshots` renders with DejaVu Sans Mono, and WenQuanYi Micro Hei for CJK and Hangul.
SCREENSHOT_PACKAGES := fonts-dejavu-core fonts-wqy-microhei
# The release every executable's --version prints (a test checks they agree with this line).
VERSION := 0.22.0
# make install PREFIX=… DESTDIR=…: where the binaries, man pages and completions go.
PREFIX ?= /usr/local
DESTDIR ?=
BIN_DEBUG := .build/debug
BIN_RELEASE := .build/release
# Python test tooling (pytest, simple-salesforce), from PyPI into a project-local virtual environment.
VENV := .venv
VENV_STAMP := $(VENV)/.installed-requirements
SCREENSHOT_STAMP := $(VENV)/.installed-screenshot-requirements

.PHONY: all deps build fuzz build-release install uninstall man dist test-dist demo screenshots lint format test test-swift test-python venv bench bench-smartstore bench-localorg bench-sync bench-tui bench-field clean

all: build

## deps: the Debian packages, and forceterm's own SQLite (SQLite3 Multiple Ciphers, fetched from
## PyPI by version and hash and compiled once into .build-sqlite3mc; every binary links it).
deps:
	@scripts/install-system-deps.sh $(SYSTEM_PACKAGES)
	@vendor/sqlite3mc/build.sh .build-sqlite3mc

build: deps
	$(SWIFT) build $(BUILD_FLAGS)

build-release: deps
	$(SWIFT) build -c release $(BUILD_FLAGS)

## install: a release build's forceterm (localorg and smartstore-tool are links to it) into $(PREFIX)/bin, man pages
## (man forceterm) and bash / zsh / fish completions, all generated from the commands.
install: build-release
	$(SWIFT) build -c release --product generate-manual $(BUILD_FLAGS)
	scripts/install.sh $(BIN_RELEASE) "$(DESTDIR)$(PREFIX)"

uninstall:
	scripts/install.sh --uninstall "$(DESTDIR)$(PREFIX)"

## man: the man pages and completions without installing anything: into .build/local (read them
## with man -l .build/local/share/man/man1/forceterm.1).
man: build
	$(SWIFT) build --product generate-manual $(BUILD_FLAGS)
	scripts/install.sh $(BIN_DEBUG) .build/local > /dev/null
	@echo "man -l .build/local/share/man/man1/forceterm.1   (and localorg.1); completions in .build/local/share"

## dist: for laptops without a Swift toolchain: one release binary with the Swift runtime linked in
## (forceterm, with localorg and smartstore-tool as links to it),
## man pages and completions, as dist/forceterm-VERSION-linux-ARCH.tar.gz and dist/forceterm_VERSION_ARCH.deb.
DIST_BUILD := .build-dist
## ICU's data goes in without what forceterm never reads (vendor/icu-data/drop.txt): 7.7 MB instead of 34.
dist: deps
	icu_data=$$(vendor/icu-data/build.sh $(DIST_BUILD)/icu-data) && export FORCETERM_ICU_DATA="$$icu_data" && \
	  $(SWIFT) build -c release --static-swift-stdlib --scratch-path $(DIST_BUILD) --product forceterm-multicall $(BUILD_FLAGS) && \
	  $(SWIFT) build -c release --scratch-path $(DIST_BUILD) --product generate-manual $(BUILD_FLAGS)
	scripts/dist.sh $(DIST_BUILD)/release $(VERSION) dist

## test-dist: make dist, then install the .deb into a clean Debian root (debootstrap; no Swift there)
## and sign in, sync and sync up with it against a localorg inside that root. Needs root.
test-dist: dist
	scripts/dist-check.sh dist/forceterm_$(VERSION)_$$(dpkg --print-architecture).deb $(VERSION)

## demo: forceterm --demo (a local demo org, signed in and synced, then the TUI); DEMO_FLAGS=--reset starts over.
demo: build
	@scripts/demo.sh $(BIN_DEBUG) $(DEMO_FLAGS)

## screenshots: the real binary in tmux on demo data, rendered into screenshots/*.png (pyte + Pillow).
screenshots: build $(SCREENSHOT_STAMP)
	@scripts/install-system-deps.sh $(SCREENSHOT_PACKAGES)
	scripts/screenshots.sh $(BIN_DEBUG) $(VENV)/bin/python

$(SCREENSHOT_STAMP): scripts/screenshots/requirements.txt $(VENV_STAMP)
	$(VENV)/bin/python -m pip install --quiet --disable-pip-version-check -r scripts/screenshots/requirements.txt
	cp scripts/screenshots/requirements.txt $@

## lint: every Swift file against .swift-format, by the toolchain's own formatter (CI runs it);
## format: rewrites them so (what lint asks for).
SWIFT_SOURCES := Package.swift Sources Tests Fuzz
lint:
	$(SWIFT) format lint --strict --recursive --parallel $(SWIFT_SOURCES)

format:
	$(SWIFT) format --in-place --recursive --parallel $(SWIFT_SOURCES)

## test: every test suite, on a real SQLite file and the real binaries.
test: deps test-swift test-python

test-swift: deps
	$(SWIFT) build --build-tests $(BUILD_FLAGS)
	$(SWIFT) build --product generate-manual $(BUILD_FLAGS)
	FORCETERM_BIN_DIR=$(CURDIR)/$(BIN_DEBUG) scripts/test-swift.sh "$$($(SWIFT) build --show-bin-path $(BUILD_FLAGS))/forcetermPackageTests.xctest"

## test-python: an independent client (simple-salesforce) drives the real localorg binary over HTTPS,
## an independent SQLCipher 4 (PyPI's sqlcipher3-wheels) reads an encrypted store with its key and nothing reads it without,
## the screenshot script runs through every screen docs/tui.md shows (so it cannot go stale), and
## forceterm syncs across an emulated lossy link between two network namespaces and signs in across a
## training room's veth link (both need root), and the trainer's page is driven in headless chromium
## while twelve forceterm processes sync at once.
## pytest's exit 5 ("no tests ran") counts as a failure.
test-python: deps venv $(SCREENSHOT_STAMP)
	@scripts/install-system-deps.sh $(SCREENSHOT_PACKAGES) iproute2 curl chromium chromium-driver
	$(SWIFT) build $(BUILD_FLAGS)
	FORCETERM_BIN_DIR=$(CURDIR)/$(BIN_DEBUG) \
	  $(VENV)/bin/python -m pytest PythonTests -q -p no:cacheprovider; \
	  status=$$?; if [ $$status -eq 5 ]; then echo "pytest collected no tests" >&2; exit 1; fi; exit $$status

## fuzz: libFuzzer (the toolchain's -sanitize=fuzzer,address) on localorg's request handling for
## FUZZ_SECONDS (default 300): SOQL, JSON bodies, composite and collection payloads, headers, OAuth
## forms, seeded from Fuzz/seeds and Salesforce's Postman collection. Fails on a crash, a hang, a 5xx
## or a refusal not shaped as Salesforce's. Then as long on forceterm's vCard, CSV and JSON importers,
## seeded from the real address books in Tests/Fixtures: fails on a crash, a hang or a refusal that
## names no line. Then on subscription conditions (forceterm subscribe --where): fails when one is
## accepted whose query would be more than that WHERE. Its own build (.build-fuzz), not part of make test.
FUZZ_SECONDS ?= 300
fuzz: deps
	FORCETERM_FUZZ=1 $(SWIFT) build --scratch-path .build-fuzz --product localorg-fuzz $(BUILD_FLAGS)
	FORCETERM_FUZZ=1 $(SWIFT) build --scratch-path .build-fuzz --product import-fuzz $(BUILD_FLAGS)
	FORCETERM_FUZZ=1 $(SWIFT) build --scratch-path .build-fuzz --product condition-fuzz $(BUILD_FLAGS)
	scripts/fuzz/run.sh .build-fuzz/debug/localorg-fuzz $(FUZZ_SECONDS) localorg
	scripts/fuzz/run.sh .build-fuzz/debug/import-fuzz $(FUZZ_SECONDS) import
	scripts/fuzz/run.sh .build-fuzz/debug/condition-fuzz $(FUZZ_SECONDS) condition

## venv: the test virtual environment, rebuilt only when PythonTests/requirements.txt changes.
venv: $(VENV_STAMP)

$(VENV_STAMP): PythonTests/requirements.txt
	python3 -m venv $(VENV)
	$(VENV)/bin/python -m pip install --quiet --disable-pip-version-check -r PythonTests/requirements.txt
	cp PythonTests/requirements.txt $@

## bench: every benchmark in a release build; each prints a table with ratios against baselines run alongside.
bench: bench-smartstore bench-localorg bench-sync bench-tui

## bench-smartstore: SmartStore upserts and queries against plain SQLite doing the same work.
bench-smartstore: build-release
	$(BIN_RELEASE)/smartstore-tool bench

## bench-localorg: localorg's seeding speed and request rates/latencies (wrk over HTTPS on loopback).
bench-localorg: deps
	@scripts/install-system-deps.sh wrk
	$(SWIFT) build -c release --product localorg $(BUILD_FLAGS)
	scripts/localorg-bench.sh $(BIN_RELEASE)/localorg

## bench-sync: the sync engine against a release localorg on loopback: sync down 10k/100k (beside the raw
## query and the store's own load of the same records), sync up 1k/10k at 50 ms latency (beside the round-trip floor),
## incremental resync (beside a full one), and sync down 100k / up 10k into an encrypted store (beside an unencrypted one).
bench-sync: build-release
	$(BIN_RELEASE)/sync-bench --config config

## bench-tui: the real forceterm in a pseudo-terminal on 1k and 100k contacts: first paint, keystroke latency, bytes, RSS;
## then 100k contacts in an encrypted store beside the unencrypted one.
bench-tui: build-release
	python3 scripts/tui-bench.py $(BIN_RELEASE)

## bench-field: forceterm and localorg in two network namespaces over an emulated mobile link (4G, bad 3G,
## satellite: delay, loss and rate on real packets): first sync of 10k contacts, second day, 500 edits up, and a
## 30 s drop mid-sync, in bytes and seconds against their floors (PROFILES=3g for one, HTTP1=1 for localorg
## without HTTP/2); then live sync (sync --watch on the org's announcements): a server change to the laptop, a save to
## the org, the link's return to an empty queue, the long poll's idle bytes per hour. Needs root; not part of `make bench` (~25 min).
bench-field: build-release
	python3 scripts/field-link/bench_field.py $(BIN_RELEASE) $(if $(PROFILES),--profiles $(PROFILES)) $(if $(HTTP1),--http1)

## clean: every build folder (the Swift build, forceterm's SQLite, the fuzzers', the package's, test-dist's
## Debian root), the packages in dist/ and the test venv.
clean:
	rm -rf --one-file-system .build .build-sqlite3mc .build-fuzz $(DIST_BUILD) .build-debroot dist $(VENV)
