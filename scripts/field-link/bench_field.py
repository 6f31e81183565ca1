#!/usr/bin/env python3
"""`make bench-field`: forceterm and localorg in two network namespaces joined by an emulated
mobile link (linkemu.py: delay, loss and rate on real IP packets), nothing leaving the machine.

For each link profile it runs, as a field rep would: the first sync of a large org, a
second-day sync (1 % of contacts and accounts changed on each side), a sync up of 500 edits,
a sync up of 500 edits and 50 creates during which the link drops for 30 s (checked on the
server: each create made once, nothing left pending), and a first sync during which the link
drops for 30 s (after either drop, if the sync gives up, the rep presses sync again). It reports bytes on the wire (both directions, counted on the client's
link device, so IP, TCP and TLS overhead included) against the floor of the same records' JSON
gzip-compressed, and time against the floor of those bytes at the link's rate plus three round
trips (TCP, TLS and one request). The laptops sign in with a passcode, so their stores are
encrypted as every signed-in user's is; localorg offers HTTP/2 unless --http1.

Then the live part (bench_live.py): `forceterm sync --watch` listening to the org's change events,
timed from a change to the other side, the link's return, and the long poll's idle bytes.

Usage: bench_field.py BIN_DIR [--profiles 4g,3g,satellite] [--contacts 10000] [--accounts 1000] [--http1] [--idle-seconds 230]
Needs root (network namespaces) and /dev/net/tun. Python's standard library only.
"""
import argparse
import csv
import gzip
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

import bench_live
from org_rest import change_on_server, count_on_server

HERE = os.path.dirname(os.path.abspath(__file__))
SERVER_ADDRESS = "10.99.0.2"
PORT = 8443
USER, PASSWORD = "demo@localorg.test", "localorg-demo"
# The rep's passcode: the laptop's store is encrypted, as a signed-in user's always is.
PASSCODE = "field-laptop-2026"
ROUND_TRIPS_FLOOR = 3
DROP_SECONDS = 30

# name: (round trip ms, rate, loss %, time goal ratio or None)
PROFILES = {
    "4g": (60, "10mbit", 0.5, 1.5),
    "3g": (300, "1mbit", 2.0, 1.5),
    "satellite": (3000, "256kbit", 5.0, None),
}


def rate_bits(rate):
    units = {"kbit": 1e3, "mbit": 1e6, "gbit": 1e9}
    for suffix, factor in units.items():
        if rate.endswith(suffix):
            return float(rate[: -len(suffix)]) * factor
    return float(rate)


def run(command, namespace=None, env=None, stdin=None, check=True):
    if namespace:
        command = ["ip", "netns", "exec", namespace] + command
    result = subprocess.run(command, env=env, input=stdin, capture_output=True, text=True)
    if check and result.returncode != 0:
        raise SystemExit(f"bench-field: {' '.join(command)} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}")
    return result


def wire_bytes():
    """Bytes received plus sent on the client's side of the link since it was made."""
    output = run(["ip", "-n", "ft-client", "-s", "-j", "link", "show", "ftlink0"]).stdout
    stats = json.loads(output)[0]["stats64"]
    return stats["rx"]["bytes"] + stats["tx"]["bytes"]


def gzip_size(value):
    return len(gzip.compress(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode(), compresslevel=6))


class Link:
    """linkemu.py running with one profile; stopped (namespaces removed) by `close`."""

    def __init__(self, delay_ms, rate, loss):
        self.process = subprocess.Popen(
            [sys.executable, os.path.join(HERE, "linkemu.py"), "--delay-ms", str(delay_ms), "--rate", rate, "--loss", str(loss)],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        line = self.process.stdout.readline()
        if not line.startswith("linkemu:"):
            raise SystemExit(f"bench-field: the link emulator did not start: {line}{self.process.stdout.read()}")

    def drop(self):
        self.process.send_signal(signal.SIGUSR1)

    def restore(self):
        self.process.send_signal(signal.SIGUSR2)

    def close(self):
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=20)


class Server:
    def __init__(self, binaries, data, http1=False, namespace="ft-server", address=SERVER_ADDRESS, port=PORT):
        self.data = data
        self.address, self.port = address, port
        self.log = open(os.path.join(data, "serve.log"), "w")
        inside = ["ip", "netns", "exec", namespace] if namespace else []
        ready = os.path.join(data, "ready.json")
        if os.path.exists(ready):
            os.remove(ready)
        self.process = subprocess.Popen(
            inside + [os.path.join(binaries, "localorg"), "serve", "--data", data, "--ready-file", ready,
                      "--listen", f"{address}:{port}", "--quiet"] + (["--no-http2"] if http1 else []), stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + 60
        while time.time() < deadline:
            if os.path.exists(ready):
                return
            if self.process.poll() is not None:
                break
            time.sleep(0.1)
        raise SystemExit("bench-field: localorg did not start: " + open(os.path.join(data, "serve.log")).read())

    @property
    def url(self):
        return f"https://{self.address}:{self.port}"

    @property
    def ca(self):
        return os.path.join(self.data, "ca.pem")

    def close(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise SystemExit("bench-field: localorg did not stop within 20 s of SIGTERM")
        finally:
            self.log.close()


class Laptop:
    """A forceterm user: their own data and config directories, signed in across the link."""

    def __init__(self, binaries, home, server, namespace="ft-client"):
        self.binary = os.path.join(binaries, "forceterm")
        self.namespace = namespace
        self.env = dict(os.environ, XDG_DATA_HOME=os.path.join(home, "data"), XDG_CONFIG_HOME=os.path.join(home, "config"),
                        HOME=home, LANG="C.UTF-8", FORCETERM_PASSCODE=PASSCODE)
        os.makedirs(home, exist_ok=True)
        self.home = home
        run([self.binary, "login", "--login-url", server.url, "--cacert", server.ca, "--username", USER, "--password-stdin"],
            namespace=namespace, env=self.env, stdin=PASSWORD + "\n")

    def forceterm(self, *arguments, namespace="ft-client", check=True):
        return run([self.binary, *arguments], namespace=namespace, env=self.env, check=check)

    def sync_process(self, *arguments):
        inside = ["ip", "netns", "exec", self.namespace] if self.namespace else []
        return subprocess.Popen(inside + [self.binary, "sync", "--json", *arguments],
                                env=self.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def records(self, soup):
        return json.loads(self.forceterm("list", soup, "--format", "json", namespace=None).stdout)

    def edit(self, soup, records, field, value):
        """Changes `field` on `records` locally with forceterm import (the way a rep's spreadsheet comes back)."""
        path = os.path.join(self.home, f"edits-{soup}.csv")
        with open(path, "w", newline="") as file:
            writer = csv.writer(file)
            writer.writerow(["Id", field])
            for record in records:
                writer.writerow([record["Id"], value])
        self.forceterm("import", path, "--into", soup, namespace=None)
        return [{"Id": record["Id"], field: value} for record in records]

    def create(self, soup, names):
        """New records, created locally by importing a CSV without ids."""
        path = os.path.join(self.home, f"new-{soup}.csv")
        with open(path, "w", newline="") as file:
            writer = csv.writer(file)
            writer.writerow(["LastName"])
            for name in names:
                writer.writerow([name])
        self.forceterm("import", path, "--into", soup, namespace=None)
        return [{"LastName": name} for name in names]


def timed_sync(laptop, *arguments):
    before, start = wire_bytes(), time.monotonic()
    process = laptop.sync_process(*arguments)
    output, errors = process.communicate()
    seconds = time.monotonic() - start
    if process.returncode != 0:
        raise SystemExit(f"bench-field: forceterm sync failed ({process.returncode}): {errors}")
    return {"seconds": seconds, "bytes": wire_bytes() - before, "summary": json.loads(output)}


def sync_through_drop(laptop, link, drop_when, *arguments):
    """A sync during which the link goes down for DROP_SECONDS once `drop_when(bytes so far)`;
    pressed again once the link is back if it gave up, as the toast says."""
    before, start = wire_bytes(), time.monotonic()
    process = laptop.sync_process(*arguments)
    while process.poll() is None and not drop_when(wire_bytes() - before):
        time.sleep(0.02)
    link.drop()
    time.sleep(DROP_SECONDS)
    link.restore()
    _, errors = process.communicate()
    attempts = 1
    if process.returncode != 0:
        attempts += 1
        retry = laptop.sync_process(*arguments)
        _, errors = retry.communicate()
        if retry.returncode != 0:
            raise SystemExit(f"bench-field: the sync after the drop failed twice: {errors}")
    return {"seconds": time.monotonic() - start, "bytes": wire_bytes() - before, "attempts": attempts}


def first_sync_without_link(binaries, template, work, http1):
    """The same first sync on loopback, no link at all: what storing (and encrypting) the records
    costs here, the part of each profile's time no link can take away."""
    data = os.path.join(work, "org-no-link")
    shutil.copytree(template, data)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = Server(binaries, data, http1, namespace=None, address="127.0.0.1", port=port)
    try:
        laptop = Laptop(binaries, os.path.join(work, "laptop-no-link"), server, namespace=None)
        start = time.monotonic()
        _, errors = laptop.sync_process().communicate()
        if len(laptop.records("contacts")) == 0:
            raise SystemExit(f"bench-field: the sync without a link stored nothing: {errors}")
        return time.monotonic() - start
    finally:
        server.close()


def floor_seconds(floor_bytes, profile):
    round_trip, rate, _, _ = PROFILES[profile]
    return floor_bytes * 8 / rate_bits(rate) + ROUND_TRIPS_FLOOR * round_trip / 1000


def run_profile(profile, binaries, template, work, contacts, accounts, http1, idle_seconds):
    round_trip, rate, loss, time_goal = PROFILES[profile]
    data = os.path.join(work, f"org-{profile}")
    shutil.copytree(template, data)
    link = Link(round_trip / 2, rate, loss)
    results = []
    server = None
    try:
        server = Server(binaries, data, http1)
        laptop = Laptop(binaries, os.path.join(work, f"laptop-{profile}"), server)

        first = timed_sync(laptop)
        contact_records, account_records = laptop.records("contacts"), laptop.records("accounts")
        if len(contact_records) != contacts or len(account_records) != accounts:
            raise SystemExit(f"bench-field: the first sync stored {len(contact_records)} contacts and {len(account_records)} accounts")
        first_floor = gzip_size(contact_records) + gzip_size(account_records)
        results.append(("first sync", first, first_floor))

        # Second day: 1 % changed on each side, different records.
        share_contacts, share_accounts = max(1, contacts // 100), max(1, accounts // 100)
        server_contacts = set(change_on_server(server, "Contact", share_contacts, "Title", "Changed at the office"))
        server_accounts = set(change_on_server(server, "Account", share_accounts, "Phone", "+1 555 0100"))
        local_contacts = [r for r in reversed(contact_records) if r["Id"] not in server_contacts][:share_contacts]
        local_accounts = [r for r in reversed(account_records) if r["Id"] not in server_accounts][:share_accounts]
        sent = laptop.edit("contacts", local_contacts, "Title", "Changed in the field")
        sent += laptop.edit("accounts", local_accounts, "Phone", "+1 555 0199")
        second = timed_sync(laptop)
        changed_ids = server_contacts | server_accounts | {r["Id"] for r in sent}
        changed_records = [r for r in laptop.records("contacts") + laptop.records("accounts") if r["Id"] in changed_ids]
        results.append(("second-day sync (1 % each side)", second, gzip_size(sent) + gzip_size(changed_records)))

        # A sync up of 500 edits.
        edits = laptop.edit("contacts", laptop.records("contacts")[:500], "Title", "Met at the trade fair")
        up = timed_sync(laptop, "--up-only")
        results.append(("sync up of 500 edits", up, gzip_size(edits)))

        # The link drops for 30 s as a sync up of 500 more edits and 50 creates starts: its first
        # answers are lost. The same run tries once more (the server's copies read first), or the rep
        # syncs again; either way each change reaches the server once.
        more = laptop.edit("contacts", laptop.records("contacts")[500:1000], "Title", "Called after the fair")
        more += laptop.create("contacts", [f"Field lead {profile} {n}" for n in range(50)])
        dropped_up = sync_through_drop(laptop, link, lambda sent: sent > 16384, "--up-only")
        dropped_up["baseline"] = up
        created = count_on_server(server, f"SELECT Id FROM Contact WHERE LastName LIKE 'Field lead {profile} %'")
        if created != 50 or any(r.get("__local__") for r in laptop.records("contacts")):
            raise SystemExit(f"bench-field: after the drop in the sync up the server has {created} of the 50 new contacts, "
                             f"and {sum(1 for r in laptop.records('contacts') if r.get('__local__'))} changes are still pending")
        results.append((f"sync up of 550, link down {DROP_SECONDS} s", dropped_up, gzip_size(more)))

        # The link drops for 30 s halfway through a first sync.
        fresh = Laptop(binaries, os.path.join(work, f"laptop-{profile}-drop"), server)
        dropped = sync_through_drop(fresh, link, lambda sent: sent >= first["bytes"] / 2)
        stored = len(fresh.records("contacts")) + len(fresh.records("accounts"))
        expected = count_on_server(server, "SELECT Id FROM Contact") + count_on_server(server, "SELECT Id FROM Account")
        if stored != expected:
            raise SystemExit(f"bench-field: after the drop the laptop has {stored} records, the server {expected}")
        results.append((f"first sync, link down {DROP_SECONDS} s midway", dropped, first_floor))
        live = bench_live.run_live(profile, binaries, server, link, laptop, wire_bytes, idle_seconds) if idle_seconds else []
        return results, first, live
    finally:
        if server:
            server.close()
        link.close()


def report(profile, results, first, no_link):
    round_trip, rate, loss, time_goal = PROFILES[profile]
    print(f"\n{profile}: {round_trip} ms round trip, {rate}, {loss:g} % loss")
    print(f"  {'case':<34} {'time s':>8} {'floor s':>8} {'ratio':>6}   {'wire KB':>8} {'floor KB':>8} {'ratio':>6}")
    for name, measured, floor_bytes in results:
        floor = floor_seconds(floor_bytes, profile)
        extra = ""
        if "attempts" in measured:
            base = measured.get("baseline", first)
            lost = measured["bytes"] - base["bytes"]
            extra = f"   {measured['attempts']} attempt(s); the drop cost {lost / 1024:.0f} KB and {measured['seconds'] - base['seconds'] - DROP_SECONDS:.1f} s beyond the outage"
        if name == "first sync":
            extra = f"   with no link {no_link:.1f} s: {measured['seconds'] / max(floor, no_link):.2f}x the larger floor"
        print(f"  {name:<34} {measured['seconds']:8.1f} {floor:8.1f} {measured['seconds'] / floor:6.2f}"
              f"   {measured['bytes'] / 1024:8.0f} {floor_bytes / 1024:8.0f} {measured['bytes'] / floor_bytes:6.2f}{extra}")
    sys.stdout.flush()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("binaries", help="the directory with forceterm and localorg (make passes .build/release)")
    parser.add_argument("--profiles", default="4g,3g,satellite")
    parser.add_argument("--contacts", type=int, default=10_000)
    parser.add_argument("--accounts", type=int, default=1_000)
    parser.add_argument("--http1", action="store_true", help="localorg speaks HTTP/1.1 only (to compare with HTTP/2)")
    parser.add_argument("--idle-seconds", type=int, default=230,
                        help="how long the live part listens idle to count the long poll's bytes (0: no live part)")
    arguments = parser.parse_args()
    if os.geteuid() != 0:
        sys.exit("bench-field: network namespaces need root (run it as root, or with sudo)")
    if not os.path.exists("/dev/net/tun"):
        sys.exit("bench-field: /dev/net/tun is missing; the link emulator needs TUN devices")
    profiles = arguments.profiles.split(",")
    for profile in profiles:
        if profile not in PROFILES:
            sys.exit(f"bench-field: unknown profile {profile}; choose from {', '.join(PROFILES)}")
    work = tempfile.mkdtemp(prefix="bench-field-")
    try:
        template = os.path.join(work, "template")
        run([os.path.join(arguments.binaries, "localorg"), "seed", "--demo", "--data", template, "--accounts", str(arguments.accounts),
             "--contacts", str(arguments.contacts)])
        print(f"bench-field: {arguments.contacts} contacts and {arguments.accounts} accounts; floors: the records' JSON gzip-compressed, "
              f"and its time at the link's rate plus {ROUND_TRIPS_FLOOR} round trips; localorg speaks "
              f"{'HTTP/1.1 only' if arguments.http1 else 'HTTP/2 (and HTTP/1.1)'}; the laptops' stores are encrypted")
        no_link = first_sync_without_link(arguments.binaries, template, work, arguments.http1)
        print(f"bench-field: the same first sync with no link (loopback) takes {no_link:.1f} s here")
        for profile in profiles:
            results, first, live = run_profile(profile, arguments.binaries, template, work, arguments.contacts, arguments.accounts,
                                               arguments.http1, arguments.idle_seconds)
            report(profile, results, first, no_link)
            bench_live.report_live(live, PROFILES[profile][0])
    finally:
        subprocess.run([sys.executable, os.path.join(HERE, "linkemu.py"), "--down"], capture_output=True)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
