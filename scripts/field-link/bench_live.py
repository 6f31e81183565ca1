"""The live part of `make bench-field`: `forceterm sync --watch` on the laptop, the org announcing
its changes over the Streaming API, measured across the emulated link.

- a change the trainer makes in the org (`localorg edit`) to the laptop's store: the watch's run
  that brought it has ended (the TUI shows the store on its next tick, a tenth of a second on);
- a save on the laptop (`forceterm update`) to the org's database;
- the link's return to the queue being empty: an edit saved while the link is down;
- the long poll's bytes per idle hour (both directions on the laptop's link device, TCP and TLS
  included), the timer an hour away so nothing else talks;
- a drop in the middle of a held poll: the change made meanwhile still arrives (replay, or the
  sync the link's return starts), with no timer to fall back on.

Goals (issue 46): on 4G and bad 3G at most two round trips plus one second for the first two
(each the median of SAMPLES tries: a lost packet on a lossy link costs one try a retransmission);
under 50 KB an idle hour.
"""
import json
import os
import subprocess
import time

IDLE_GOAL_BYTES_PER_HOUR = 50_000
SAMPLES = 5


class Watch:
    """`forceterm sync --watch --json` in the laptop's namespace, its lines read as they come."""

    def __init__(self, laptop):
        config = os.path.join(laptop.home, "config", "forceterm")
        os.makedirs(config, exist_ok=True)
        with open(os.path.join(config, "config.toml"), "w") as file:
            file.write("[sync]\ninterval = 3600\n")
        self.output = os.path.join(laptop.home, "watch.jsonl")
        self.file = open(self.output, "w")
        self.errors_path = os.path.join(laptop.home, "watch.err")
        self.errors = open(self.errors_path, "w")
        inside = ["ip", "netns", "exec", laptop.namespace] if laptop.namespace else []
        self.process = subprocess.Popen(inside + [laptop.binary, "sync", "--watch", "--json", "--verbose"], env=laptop.env,
                                        stdout=self.file, stderr=self.errors)

    def runs(self):
        with open(self.output) as file:
            return [json.loads(line) for line in file if line.strip()]

    def wait_for(self, what, condition, after=0, timeout=120):
        """The first run after the first `after` that meets `condition`, and when it was read."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for run in self.runs()[after:]:
                if condition(run):
                    return run, time.monotonic()
            if self.process.poll() is not None:
                raise SystemExit(f"bench-field: forceterm sync --watch ended ({self.process.returncode}) waiting for {what}")
            time.sleep(0.02)
        raise SystemExit(f"bench-field: {what}: not within {timeout} s; the watch printed {self.runs()}")

    def close(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.file.close()
        self.errors.close()

    def said(self):
        """What the watch wrote to stderr (its request log, with --verbose)."""
        with open(self.errors_path) as file:
            return file.read()


def title_on_server(binaries, server, contact_id):
    output = subprocess.run([os.path.join(binaries, "localorg"), "query", "--data", server.data,
                             f"SELECT Title FROM Contact WHERE Id = '{contact_id}'"], capture_output=True, text=True).stdout
    # A header line, then one line per row (the count goes to stderr).
    rows = output.rstrip("\n").split("\n")
    return rows[1] if len(rows) >= 2 else None


def wait_on_server(binaries, server, contact_id, title, timeout=120):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if title_on_server(binaries, server, contact_id) == title:
            return time.monotonic()
        time.sleep(0.05)
    raise SystemExit(f"bench-field: {title!r} did not reach the org within {timeout} s")


def trainer_edit(binaries, server, contact_id, title):
    subprocess.run([os.path.join(binaries, "localorg"), "edit", "--data", server.data, "Contact", contact_id, f"Title={title}"],
                   check=True, capture_output=True)
    return time.monotonic()


def received(count):
    return lambda run: run.get("ok") and run.get("received", 0) >= count


def run_live(profile, binaries, server, link, laptop, wire_bytes, idle_seconds):
    """The live cases on one profile; returns (name, seconds or None, whether the time has a goal, bytes or None, note) rows."""
    ids = [record["Id"] for record in laptop.records("contacts")[: 2 * SAMPLES + 2]]
    announced, saved_ids, (first, third) = ids[:SAMPLES], ids[SAMPLES : 2 * SAMPLES], ids[2 * SAMPLES :]
    watch = Watch(laptop)
    rows = []
    try:
        watch.wait_for("the opening sync", lambda run: run.get("reason") == "opened" and run.get("ok"))
        # Listening: the first subscription's own sync has come and gone.
        time.sleep(5)

        times = []
        for number, contact in enumerate(announced):
            seen = len(watch.runs())
            edited = trainer_edit(binaries, server, contact, f"Announced on {profile} #{number}")
            _, arrived = watch.wait_for("the trainer's edit", received(1), after=seen)
            times.append(arrived - edited)
            time.sleep(1)
        rows.append(("server change to the laptop's store", median(times), True, None,
                     f"announced over the Streaming API; median of {spread(times)}"))

        times = []
        for number, contact in enumerate(saved_ids):
            seen = len(watch.runs())
            laptop.forceterm("update", contact, f"Title=Saved on {profile} #{number}", namespace=None)
            saved = time.monotonic()
            times.append(wait_on_server(binaries, server, contact, f"Saved on {profile} #{number}") - saved)
            # Its run over (and its own event passed over) before the next save.
            watch.wait_for("the save's run", lambda run: run.get("ok") and run.get("sent", 0) >= 1, after=seen)
            time.sleep(1)
        rows.append(("save to the org", median(times), True, None, f"the watch noticed the store and sent it; median of {spread(times)}"))

        # Idle: only the long poll talks (the timer is an hour away).
        time.sleep(3)
        before = wire_bytes()
        time.sleep(idle_seconds)
        idle = (wire_bytes() - before) * 3600 / idle_seconds
        verdict = "within" if idle < IDLE_GOAL_BYTES_PER_HOUR else "over"
        rows.append(("idle hour of the long poll", None, False, idle, f"{verdict} the {IDLE_GOAL_BYTES_PER_HOUR // 1000} KB goal, "
                                                               f"from {idle_seconds} s idle"))

        # The link drops mid-poll; the trainer edits, and the laptop saves, meanwhile.
        link.drop()
        time.sleep(2)
        trainer_edit(binaries, server, third, f"While the link was down on {profile}")
        laptop.forceterm("update", first, f"Title=Offline on {profile}", namespace=None)
        time.sleep(10)
        link.restore()
        back = time.monotonic()
        reached = wait_on_server(binaries, server, first, f"Offline on {profile}")
        rows.append(("link back to the queue empty", reached - back, False, None, "a save made while the link was down"))
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            stored = [r for r in laptop.records("contacts") if r["Id"] == third]
            if stored and stored[0].get("Title") == f"While the link was down on {profile}":
                break
            time.sleep(0.5)
        else:
            raise SystemExit("bench-field: the change made while the link was down never reached the laptop")
        rows.append(("a change made mid-poll, link down", time.monotonic() - back, False, None, "arrived after the link's return; none lost"))
    finally:
        watch.close()
    return rows


def median(values):
    ordered = sorted(values)
    return ordered[len(ordered) // 2]


def spread(values):
    return " ".join(f"{value:.2f}" for value in values)


def report_live(rows, round_trip_ms):
    goal = 2 * round_trip_ms / 1000 + 1
    print(f"  {'live (sync --watch)':<34} {'time s':>8} {'goal s':>8}   {'bytes':>9}")
    for name, seconds, has_goal, size, note in rows:
        goal_text = f"{goal:8.2f}" if has_goal else f"{'':8}"
        time_text = f"{seconds:8.2f} {goal_text}" if seconds is not None else f"{'':8} {'':8}"
        size_text = f"{size / 1000:7.1f} KB" if size is not None else f"{'':9}"
        print(f"  {name:<34} {time_text}   {size_text}   {note}")
