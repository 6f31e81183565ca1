# forceterm — the README's commands. Every target installs what it needs itself.
SHELL := /bin/bash
SWIFT ?= swift
BUILD_FLAGS ?=
# Debian packages: the three the app links against, plus what the test and demo scripts drive.
SYSTEM_PACKAGES := libncursesw5-dev libsqlite3-dev libcurl4-openssl-dev sqlite3 tmux
BIN_DEBUG := .build/debug
BIN_RELEASE := .build/release

.PHONY: all deps build build-release demo test test-swift bench clean

all: build

deps:
	@scripts/install-system-deps.sh $(SYSTEM_PACKAGES)

build: deps
	$(SWIFT) build $(BUILD_FLAGS)

build-release: deps
	$(SWIFT) build -c release $(BUILD_FLAGS)

## demo: what forceterm can show today (see README).
demo: build
	@scripts/demo.sh $(BIN_DEBUG)

## test: every test suite, on a real SQLite file and the real binaries.
test: deps test-swift

test-swift:
	$(SWIFT) build --build-tests $(BUILD_FLAGS)
	FORCETERM_BIN_DIR=$(CURDIR)/$(BIN_DEBUG) $(SWIFT) test --skip-build $(BUILD_FLAGS)

## bench: benchmarks in a release build; prints a table with ratios against baselines run alongside.
bench: build-release
	$(BIN_RELEASE)/smartstore-tool bench

clean:
	rm -rf .build
