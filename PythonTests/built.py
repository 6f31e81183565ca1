"""The binaries under test and a started `localorg serve`, for every suite.

Binaries come from FORCETERM_BIN_DIR (the Makefile sets it) or .build/debug. localorg is ready
when it has written its --ready-file (JSON: url, urls, port, caFile, caFingerprint, pid), not when
a banner line appears.
"""
import json
import os
import pathlib
import subprocess
import time

REPO = pathlib.Path(__file__).resolve().parents[1]
BIN_DIR = pathlib.Path(os.environ.get("FORCETERM_BIN_DIR") or REPO / ".build" / "debug")


def binary(name):
    """The path of a built program (forceterm, localorg, smartstore-tool)."""
    return BIN_DIR / name


def serve(data, *arguments, prefix=(), timeout=60, **popen):
    """Starts `localorg serve --data DATA ARGUMENTS` (after `prefix`, e.g. `ip netns exec NS`) and
    waits for its ready file; returns (process, ready) where ready is the file's JSON. Output goes
    where `popen` says (stdout=PIPE to read the banner and request log)."""
    ready_file = pathlib.Path(data) / "ready.json"
    ready_file.unlink(missing_ok=True)
    command = [*map(str, prefix), str(binary("localorg")), "serve", "--data", str(data), "--ready-file", str(ready_file), *map(str, arguments)]
    process = subprocess.Popen(command, **popen)
    return process, wait_ready(process, ready_file, timeout)


def wait_ready(process, ready_file, timeout=60):
    """The ready file's JSON once localorg has written it; fails when it exits or takes `timeout` s."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if ready_file.exists():
            return json.loads(ready_file.read_text())
        if process.poll() is not None:
            raise RuntimeError(f"localorg exited ({process.returncode}) before it was ready")
        time.sleep(0.05)
    process.kill()
    raise RuntimeError(f"localorg was not ready within {timeout} s")
