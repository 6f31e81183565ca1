"""A training room across a real network link: localorg on the trainer's host, forceterm on a
trainee's, two network namespaces joined by a veth pair (the project's own test hosts,
10.98.0.1 and 10.98.0.2; nothing leaves the machine). The trainee trusts the trainer's CA on first
contact, signs in with the device flow completed by a script acting as the browser, and syncs.

Needs root and iproute2 (skipped, saying so, without them). Binaries from FORCETERM_BIN_DIR or
.build/debug.
"""
import os
import pathlib
import re
import shutil
import subprocess
import urllib.parse

import pytest
from process_output import Output

from built import BIN_DIR as BINARIES, serve
TRAINER_ADDRESS, LAPTOP_ADDRESS = "10.98.0.2", "10.98.0.1"

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("ip") is None,
                                reason="the training room needs root and iproute2 (network namespaces)")


def ip(*args):
    subprocess.run(["ip", *args], check=True, capture_output=True)


@pytest.fixture
def room():
    """Two namespaces, `trainer` and `laptop`, joined by a veth pair; torn down afterwards."""
    suffix = str(os.getpid())
    trainer, laptop = f"ft-trainer-{suffix}", f"ft-laptop-{suffix}"
    ip("netns", "add", trainer)
    try:
        ip("netns", "add", laptop)
        ip("link", "add", f"ftr{suffix}", "type", "veth", "peer", "name", f"ftl{suffix}")
        ip("link", "set", f"ftr{suffix}", "netns", trainer)
        ip("link", "set", f"ftl{suffix}", "netns", laptop)
        for namespace, device, address in ((trainer, f"ftr{suffix}", TRAINER_ADDRESS), (laptop, f"ftl{suffix}", LAPTOP_ADDRESS)):
            ip("-n", namespace, "addr", "add", f"{address}/24", "dev", device)
            ip("-n", namespace, "link", "set", device, "up")
            ip("-n", namespace, "link", "set", "lo", "up")
        yield trainer, laptop
    finally:
        for namespace in (laptop, trainer):
            subprocess.run(["ip", "netns", "delete", namespace], capture_output=True)


def in_namespace(namespace, *command, **kwargs):
    return ["ip", "netns", "exec", namespace, *map(str, command)]


def test_a_trainee_trusts_signs_in_with_the_device_flow_and_syncs_across_the_room(room, tmp_path):
    trainer, laptop = room
    data = tmp_path / "org"
    localorg, forceterm = BINARIES / "localorg", BINARIES / "forceterm"
    subprocess.run([localorg, "seed", "--data", data, "--accounts", "5", "--contacts", "50"], check=True, capture_output=True)
    added = subprocess.run([localorg, "user", "add", "--data", data, "--pattern", "trainee{n}@class.test", "--count", "2",
                            "--passwords-file", tmp_path / "class.csv"], check=True, capture_output=True, text=True)
    password = (tmp_path / "class.csv").read_text().splitlines()[1].split(",")[1]
    server, ready = serve(data, "--listen", TRAINER_ADDRESS, "--port", "0", prefix=in_namespace(trainer),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    served = Output(server)
    try:
        url, fingerprint = ready["url"], ready["caFingerprint"].removeprefix("SHA256:")
        assert url.startswith(f"https://{TRAINER_ADDRESS}:")
        # The banner a trainer reads says the same.
        assert served.wait_for(r"is serving (https://\S+)").group(1) == url
        assert served.wait_for(r"CA fingerprint: SHA256 (\S+)").group(1) == fingerprint
        # A class's org has no admin with a published password: its own has a made-up one, on file.
        administrator = served.wait_for(r"Administrator:\s+(\S+)\s+\(password in (\S+);")
        assert administrator.group(1) == "admin@localorg.test"
        assert (data / "admin-password").stat().st_mode & 0o777 == 0o600
        command_line = served.wait_for(r"Sign in with:\s+(forceterm login .*)$").group(1)
        assert command_line == f"forceterm login --login-url {url} --trust SHA256:{fingerprint}"
        assert not any("Demo user" in line or "WARNING" in line for line in served.lines), "".join(served.lines)

        home = {"XDG_DATA_HOME": str(tmp_path / "laptop-data"), "XDG_CONFIG_HOME": str(tmp_path / "laptop-config"), "PATH": os.environ["PATH"]}
        login = subprocess.Popen(in_namespace(laptop, forceterm, "login", "--login-url", url, "--trust", f"SHA256:{fingerprint}"),
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=home)
        said = Output(login)
        try:
            link = said.wait_for(r"or open (\S+), the code filled in").group(1)
            # The device flow answers with the address the laptop used, not localhost.
            assert link.startswith(f"{url}/setup/connect?user_code=")
            code = urllib.parse.parse_qs(urllib.parse.urlparse(link).query)["user_code"][0]
            # The browser: on the laptop's side of the link, trusting the same CA.
            browser = subprocess.run(in_namespace(laptop, "curl", "-sS", "--cacert", data / "ca.pem", "--data-urlencode", f"user_code={code}",
                                                  "--data-urlencode", "username=trainee1@class.test", "--data-urlencode", f"password={password}",
                                                  "--data-urlencode", "action=approve", f"{url}/setup/connect"),
                                     capture_output=True, text=True, timeout=60)
            assert "Device connected" in browser.stdout, browser.stdout + browser.stderr
            said.wait_for(r"Signed in as trainee1@class.test")
            assert login.wait(timeout=30) == 0, "".join(said.lines)
        finally:
            if login.poll() is None:
                login.kill()

        synced = subprocess.run(in_namespace(laptop, forceterm, "sync", "--json"), capture_output=True, text=True, env=home, timeout=300)
        assert synced.returncode == 0, synced.stdout + synced.stderr
        listed = subprocess.run(in_namespace(laptop, forceterm, "list", "contacts", "--format", "json"), capture_output=True, text=True, env=home)
        assert listed.stdout.count('"soup": "contacts"') == 50
        # The laptop's own link down: said as such, not as a server that refuses.
        device = f"ftl{os.getpid()}"
        ip("-n", laptop, "link", "set", device, "down")
        try:
            cut = subprocess.run(in_namespace(laptop, forceterm, "sync"), capture_output=True, text=True, env=home, timeout=120)
        finally:
            ip("-n", laptop, "link", "set", device, "up")
        assert cut.returncode == 1 and "network unreachable: this machine has no route there" in cut.stderr, cut.stderr
        # The request log names the trainee and the time of each of their requests.
        server.terminate()
        lines = served.rest()
        assert any(re.search(r"Z trainee1@class.test GET /services/data/v\d+\.0/query/? 200 ", line) for line in lines), "".join(lines)
        assert any(re.search(r"Z trainee1@class.test POST /setup/connect 200 ", line) for line in lines)
        server.wait(timeout=30)
        # The trainer's machine answers, but nothing listens any more: a refusal, not "offline".
        stopped = subprocess.run(in_namespace(laptop, forceterm, "sync"), capture_output=True, text=True, env=home, timeout=120)
        assert stopped.returncode == 1 and "connection refused: is the server running, and on that port?" in stopped.stderr, stopped.stderr
    finally:
        if server.poll() is None:
            server.terminate()
        server.wait(timeout=30)


def seed_class(data, tmp_path, accounts, contacts, pattern):
    """An org of `accounts` and `contacts` with twelve users named by `pattern`: their passwords,
    and the administrator's username and password."""
    import csv
    localorg = BINARIES / "localorg"
    subprocess.run([localorg, "seed", "--data", data, "--accounts", str(accounts), "--contacts", str(contacts)], check=True, capture_output=True)
    subprocess.run([localorg, "user", "add", "--data", data, "--pattern", pattern, "--count", "12",
                    "--passwords-file", tmp_path / "class.csv"], check=True, capture_output=True)
    with open(tmp_path / "class.csv", newline="") as file:
        passwords = {row["username"]: row["password"] for row in csv.DictReader(file)}
    administrator, administrator_password = (data / "admin-password").read_text().split()
    return passwords, administrator, administrator_password


def test_twelve_laptops_sync_at_once_across_the_room_while_the_trainer_follows(room, tmp_path):
    """Twelve forceterm processes on the laptop side of the link sign in and sync at the same time
    while the trainer's live feed is open on the trainer's side: every laptop gets every record, and
    the trainer's counts and feed agree with the server's log, trainee by trainee."""
    import json
    trainer, laptop = room
    data = tmp_path / "org"
    localorg, forceterm = BINARIES / "localorg", BINARIES / "forceterm"
    contacts = 60
    passwords, administrator, administrator_password = seed_class(data, tmp_path, 5, contacts, "trainee{n}@class.test")
    server, ready = serve(data, "--listen", TRAINER_ADDRESS, "--port", "0", prefix=in_namespace(trainer),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    served = Output(server)
    feed = None
    try:
        url, fingerprint = ready["url"], ready["caFingerprint"].removeprefix("SHA256:")
        ca = str(data / "ca.pem")

        def trainer_curl(*arguments):
            return subprocess.run(in_namespace(trainer, "curl", "-sS", "--cacert", ca, *arguments), capture_output=True, text=True, timeout=60)
        token = json.loads(trainer_curl("--data-urlencode", "grant_type=password", "--data-urlencode", "client_id=forceterm",
                                        "--data-urlencode", f"username={administrator}", "--data-urlencode", f"password={administrator_password}",
                                        f"{url}/services/oauth2/token").stdout)["access_token"]
        feed = subprocess.Popen(in_namespace(trainer, "curl", "-sSN", "--cacert", ca, "-H", f"Authorization: Bearer {token}", f"{url}/trainer/events"),
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        followed = Output(feed)
        followed.wait_for(r"^retry: ")

        homes = {}
        for username, password in passwords.items():
            home = {"XDG_DATA_HOME": str(tmp_path / username / "data"), "XDG_CONFIG_HOME": str(tmp_path / username / "config"), "PATH": os.environ["PATH"]}
            login = subprocess.run(in_namespace(laptop, forceterm, "login", "--login-url", url, "--trust", f"SHA256:{fingerprint}",
                                                "--username", username, "--password-stdin"),
                                   input=password + "\n", capture_output=True, text=True, env=home, timeout=120)
            assert login.returncode == 0, login.stdout + login.stderr
            homes[username] = home
        syncs = {username: subprocess.Popen(in_namespace(laptop, forceterm, "sync", "--json"), stdout=subprocess.PIPE,
                                            stderr=subprocess.STDOUT, text=True, env=home) for username, home in homes.items()}
        for username, sync in syncs.items():
            output, _ = sync.communicate(timeout=600)
            assert sync.returncode == 0, f"{username}: {output}"
        for username, home in homes.items():
            listed = subprocess.run(in_namespace(laptop, forceterm, "list", "contacts", "--format", "json"),
                                    capture_output=True, text=True, env=home, timeout=120)
            assert listed.stdout.count('"soup": "contacts"') == contacts, username

        logged = {}
        for line in served.settle(quiet=1.0):
            match = re.match(r"\S+Z (trainee\d+@class\.test) ", line)
            if match:
                logged[match.group(1)] = logged.get(match.group(1), 0) + 1
        assert set(logged) == set(passwords), logged
        activity = json.loads(trainer_curl("-H", f"Authorization: Bearer {token}", f"{url}/trainer/activity").stdout)
        counted = {row["username"]: row["requests"] for row in activity if row["username"] in passwords}
        assert counted == logged
        assert all(row["errors"] == 0 and row["conflicts"] == 0 for row in activity if row["username"] in passwords), activity
        fed = {}
        for line in followed.settle(quiet=1.0):
            if line.startswith("data: "):
                username = json.loads(line[len("data: "):]).get("username")
                if username in passwords:
                    fed[username] = fed.get(username, 0) + 1
        assert fed == logged, "the live feed carried every request the server logged"
    finally:
        if feed is not None and feed.poll() is None:
            feed.terminate()
        if server.poll() is None:
            server.terminate()
        server.wait(timeout=30)


def test_twelve_open_tuis_show_the_trainers_edit_by_themselves_and_lose_none_of_their_own(room, tmp_path):
    """Twelve trainees with forceterm's TUI open in tmux on the laptop side, no key pressed: the
    trainer changes every contact over REST and each screen shows it by itself (the org announces
    it over the Streaming API); meanwhile each trainee saves an edit from another terminal, and all
    twelve reach the org once."""
    import json
    import time
    trainer, laptop = room
    data = tmp_path / "org"
    localorg, forceterm = BINARIES / "localorg", BINARIES / "forceterm"
    passwords, administrator, administrator_password = seed_class(data, tmp_path, 3, 20, "live{n}@class.test")
    server, ready = serve(data, "--listen", TRAINER_ADDRESS, "--port", "0", prefix=in_namespace(trainer),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    served = Output(server)
    sessions = []
    try:
        url, fingerprint = ready["url"], ready["caFingerprint"].removeprefix("SHA256:")
        ca = str(data / "ca.pem")
        homes = {}
        for username, password in passwords.items():
            home = {"XDG_DATA_HOME": str(tmp_path / username / "data"), "XDG_CONFIG_HOME": str(tmp_path / username / "config"),
                    "PATH": os.environ["PATH"], "LANG": "C.UTF-8", "TERM": "xterm-256color"}
            login = subprocess.run(in_namespace(laptop, forceterm, "login", "--login-url", url, "--trust", f"SHA256:{fingerprint}",
                                                "--username", username, "--password-stdin"),
                                   input=password + "\n", capture_output=True, text=True, env=home, timeout=120)
            assert login.returncode == 0, login.stdout + login.stderr
            homes[username] = home
        for index, (username, home) in enumerate(homes.items()):
            name = f"ftlive{os.getpid()}-{index}"
            command = " ".join(["env"] + [f"{key}={value}" for key, value in home.items()] + in_namespace(laptop, forceterm))
            subprocess.run(["tmux", "new-session", "-d", "-s", name, "-x", "120", "-y", "30", command], check=True)
            sessions.append((username, name))

        def screen(name):
            return subprocess.run(["tmux", "capture-pane", "-p", "-t", name], capture_output=True, text=True).stdout

        def wait_all(text, timeout):
            """Seconds until every screen shows `text`, one by one."""
            start, waiting, seen = time.monotonic(), dict(sessions), {}
            while waiting and time.monotonic() - start < timeout:
                for username, name in list(waiting.items()):
                    if text in screen(name):
                        seen[username] = time.monotonic() - start
                        del waiting[username]
                time.sleep(0.05)
            assert not waiting, f"{text!r} not on {sorted(waiting)}:\n{screen(next(iter(waiting.values())))}"
            return seen

        wait_all("Contacts (20)", 180)
        # Each laptop listening: its Syncs tab says so, then back to the contacts.
        for _, name in sessions:
            subprocess.run(["tmux", "send-keys", "-t", name, "3"], check=True)
        wait_all("the server announces changes to Account, Contact", 60)
        for _, name in sessions:
            subprocess.run(["tmux", "send-keys", "-t", name, "1"], check=True)
        wait_all("Contacts (20)", 30)

        token = json.loads(subprocess.run(in_namespace(trainer, "curl", "-sS", "--cacert", ca, "--data-urlencode", "grant_type=password",
                                                       "--data-urlencode", "client_id=forceterm", "--data-urlencode", f"username={administrator}",
                                                       "--data-urlencode", f"password={administrator_password}", f"{url}/services/oauth2/token"),
                                          capture_output=True, text=True, timeout=60).stdout)["access_token"]
        ids = subprocess.run([localorg, "query", "--data", data, "SELECT Id FROM Contact ORDER BY Id"], capture_output=True, text=True).stdout.split()[1:]
        # Each trainee edits a contact of its own from another terminal while the trainer edits them all.
        for index, (username, _) in enumerate(sessions):
            edit = subprocess.run([forceterm, "update", ids[index], f"Email=trainee{index}@room.test"], env=homes[username],
                                  capture_output=True, text=True, timeout=60)
            assert edit.returncode == 0, edit.stdout + edit.stderr
        body = json.dumps({"allOrNone": True, "records": [{"attributes": {"type": "Contact"}, "id": id, "Title": "Seen by the whole room"}
                                                           for id in ids]})
        patched = subprocess.run(in_namespace(trainer, "curl", "-sS", "--cacert", ca, "-X", "PATCH", "-H", f"Authorization: Bearer {token}",
                                              "-H", "Content-Type: application/json", "--data", body, f"{url}/services/data/v62.0/composite/sobjects"),
                                 capture_output=True, text=True, timeout=60)
        assert '"success":true' in patched.stdout.replace(" ", ""), patched.stdout + patched.stderr
        seen = wait_all("Seen by the whole room", 60)
        print(f"the trainer's edit on all twelve screens: slowest {max(seen.values()):.2f} s, median {sorted(seen.values())[6]:.2f} s")

        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            emails = subprocess.run([localorg, "query", "--data", data, "SELECT Email FROM Contact WHERE Email LIKE 'trainee%@room.test'"],
                                    capture_output=True, text=True).stdout.split()[1:]
            if len(emails) == 12:
                break
            time.sleep(0.5)
        assert sorted(emails) == sorted(f"trainee{index}@room.test" for index in range(12))
        # Each trainee's own edit is on its screen's record too, none of them in conflict.
        for username, _ in sessions:
            status = json.loads(subprocess.run([forceterm, "status", "--json"], env=homes[username], capture_output=True, text=True).stdout)
            assert status["outbox"] == [], f"{username}: {status['outbox']}"
    finally:
        for _, name in sessions:
            subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)
        if server.poll() is None:
            server.terminate()
        server.wait(timeout=30)
