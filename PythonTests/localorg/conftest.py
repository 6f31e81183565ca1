"""Starts the built `localorg` binary over HTTPS on loopback for the whole session.

The binary is found as every suite finds it (PythonTests/built.py); the server is ready once it
has written its --ready-file.
Every server started here listens on 127.0.0.1 only and is stopped in teardown.
"""
import os
import pathlib
import queue
import re
import signal
import subprocess
import threading

import pytest
import requests
from simple_salesforce import Salesforce

from built import binary, wait_ready

BINARY = str(binary("localorg"))
API_VERSION = "59.0"
SEEDED_ACCOUNTS = 40
SEEDED_CONTACTS = 2500
START_TIMEOUT = 60


def run_cli(data_dir, *args, stdin=None):
    """Runs a localorg subcommand against the data directory and returns the finished process."""
    return subprocess.run([BINARY, *args, "--data", str(data_dir)], input=stdin, capture_output=True,
                          text=True, timeout=120)


class LocalOrgProcess:
    """A running `localorg serve`, its URL and its CA file."""

    def __init__(self, data_dir, *extra):
        self.data_dir = pathlib.Path(data_dir)
        ready_file = self.data_dir / "ready.json"
        ready_file.unlink(missing_ok=True)
        self.process = subprocess.Popen([BINARY, "serve", "--demo", "--data", str(data_dir), "--port", "0", "--ready-file", str(ready_file), *extra],
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.lines = queue.Queue()
        self.output = []
        threading.Thread(target=self._pump, daemon=True).start()
        try:
            self.ready = wait_ready(self.process, ready_file, START_TIMEOUT)
        except RuntimeError as error:
            self.stop()
            raise RuntimeError(f"{error}: " + "".join(self.output)) from None
        self.url = self.ready["url"]
        self.ca_path = str(self.data_dir / "ca.pem")

    def _pump(self):
        for line in self.process.stdout:
            self.output.append(line)
            self.lines.put(line)
        self.lines.put(None)

    def stop(self, sig=signal.SIGTERM):
        """Stops the server with a signal and returns its exit code (killed after 20 s)."""
        if self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        return self.process.returncode


def login(url, verify, username="demo@localorg.test", password="localorg-demo"):
    response = requests.post(f"{url}/services/oauth2/token", data={
        "grant_type": "password", "client_id": "forceterm", "username": username, "password": password,
    }, verify=verify, timeout=30)
    response.raise_for_status()
    return response.json()


@pytest.fixture(scope="session")
def org(tmp_path_factory):
    if not os.access(BINARY, os.X_OK):
        pytest.fail(f"localorg binary not found at {BINARY}; run `swift build --product localorg` first")
    data_dir = tmp_path_factory.mktemp("localorg")
    seeded = run_cli(data_dir, "seed", "--demo", "--accounts", str(SEEDED_ACCOUNTS), "--contacts", str(SEEDED_CONTACTS), "--random-seed", "42")
    assert seeded.returncode == 0, seeded.stderr
    server = LocalOrgProcess(data_dir)
    yield server
    assert server.stop() == 0, "".join(server.output)


@pytest.fixture(scope="session")
def token(org):
    return login(org.url, org.ca_path)


@pytest.fixture()
def sf(org, token):
    return Salesforce(instance_url=token["instance_url"], session_id=token["access_token"],
                      session=trusting_session(org.ca_path), version=API_VERSION)


def trusting_session(ca_path):
    """A requests session that trusts localorg's CA. trust_env is off because REQUESTS_CA_BUNDLE
    in the environment would otherwise replace session.verify (and no proxy belongs on loopback)."""
    session = requests.Session()
    session.trust_env = False
    session.verify = ca_path
    return session
