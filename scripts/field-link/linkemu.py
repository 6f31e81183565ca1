#!/usr/bin/env python3
"""A field link between two network namespaces, for `make bench-field` and the slow-link tests.

This kernel has no netem, so the link is emulated here: a TUN device in each namespace
(`ft-client` at 10.99.0.1, `ft-server` at 10.99.0.2, the project's own test hosts; nothing leaves
the machine), and this process forwarding real IP packets between them, holding each one `delay`
milliseconds and dropping `loss` percent of them at random, so TCP must recover as it does on a
real link. The rate is shaped by tbf on each TUN device. SIGUSR1 drops the link (every packet is
lost) until SIGUSR2 brings it back; SIGTERM or SIGINT tears the namespaces down.

    linkemu.py --delay-ms 300 --loss 2 --rate 1mbit     # runs until stopped
    ip netns exec ft-server localorg serve --listen 10.99.0.2:8443 ...
    ip netns exec ft-client forceterm sync ...
"""
import argparse
import fcntl
import heapq
import os
import random
import select
import signal
import struct
import subprocess
import sys
import time

TUNSETIFF = 0x400454CA
IFF_TUN = 0x0001
IFF_NO_PI = 0x1000
CLIENT, SERVER = "ft-client", "ft-server"
ADDRESSES = {CLIENT: "10.99.0.1", SERVER: "10.99.0.2"}
DEVICE = "ftlink0"


def run(*command, check=True):
    return subprocess.run(command, check=check, capture_output=True, text=True)


def open_tun(name):
    """A TUN device in this (the root) namespace; its descriptor keeps working once the device is moved."""
    descriptor = os.open("/dev/net/tun", os.O_RDWR)
    fcntl.ioctl(descriptor, TUNSETIFF, struct.pack("16sH", name.encode(), IFF_TUN | IFF_NO_PI))
    os.set_blocking(descriptor, False)
    return descriptor


def tear_down():
    for namespace in (CLIENT, SERVER):
        run("ip", "netns", "del", namespace, check=False)


def set_up(rate, mtu):
    tear_down()
    descriptors = {}
    for namespace in (CLIENT, SERVER):
        temporary = f"ft{namespace[3]}{os.getpid() % 10000}"
        descriptors[namespace] = open_tun(temporary)
        run("ip", "netns", "add", namespace)
        run("ip", "link", "set", temporary, "netns", namespace)
        run("ip", "-n", namespace, "link", "set", temporary, "name", DEVICE)
        run("ip", "-n", namespace, "link", "set", "lo", "up")
        run("ip", "-n", namespace, "link", "set", DEVICE, "mtu", str(mtu), "up")
        run("ip", "-n", namespace, "addr", "add", f"{ADDRESSES[namespace]}/24", "dev", DEVICE)
        if rate:
            # Packets leave each namespace no faster than the link's rate; a queue of about a
            # second's worth, as a mobile link buffers.
            run("ip", "netns", "exec", namespace, "tc", "qdisc", "add", "dev", DEVICE, "root", "tbf",
                "rate", rate, "burst", "32kb", "latency", "1000ms")
    return descriptors


def forward(descriptors, delay, loss, seed):
    dice = random.Random(seed)
    down = [False]
    signal.signal(signal.SIGUSR1, lambda *_: down.__setitem__(0, True))
    signal.signal(signal.SIGUSR2, lambda *_: down.__setitem__(0, False))
    peers = {descriptors[CLIENT]: descriptors[SERVER], descriptors[SERVER]: descriptors[CLIENT]}
    in_flight = []  # (due, sequence, destination, packet)
    sequence = 0
    counts = {"forwarded": 0, "dropped": 0}
    while True:
        timeout = max(0.0, in_flight[0][0] - time.monotonic()) if in_flight else 1.0
        readable, _, _ = select.select(list(peers), [], [], timeout)
        for source in readable:
            while True:
                try:
                    packet = os.read(source, 65536)
                except BlockingIOError:
                    break
                if down[0] or dice.random() * 100 < loss:
                    counts["dropped"] += 1
                    continue
                sequence += 1
                heapq.heappush(in_flight, (time.monotonic() + delay, sequence, peers[source], packet))
        now = time.monotonic()
        while in_flight and in_flight[0][0] <= now:
            _, _, destination, packet = heapq.heappop(in_flight)
            try:
                os.write(destination, packet)
                counts["forwarded"] += 1
            except (BlockingIOError, OSError):
                counts["dropped"] += 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--delay-ms", type=float, default=0, help="one-way delay of every packet")
    parser.add_argument("--loss", type=float, default=0, help="percent of packets lost, each way")
    parser.add_argument("--rate", default="", help="tbf rate of each direction, e.g. 1mbit (default: unshaped)")
    parser.add_argument("--mtu", type=int, default=1400)
    parser.add_argument("--seed", type=int, default=1, help="the loss dice's seed, so a run can be repeated")
    parser.add_argument("--down", action="store_true", help="only remove the namespaces of an earlier run")
    arguments = parser.parse_args()
    if os.geteuid() != 0:
        sys.exit("linkemu.py: network namespaces need root")
    if arguments.down:
        tear_down()
        return
    descriptors = set_up(arguments.rate, arguments.mtu)
    stop = lambda *_: (tear_down(), sys.exit(0))
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    print(f"linkemu: {CLIENT} {ADDRESSES[CLIENT]} <-> {SERVER} {ADDRESSES[SERVER]}, "
          f"{arguments.delay_ms:g} ms each way, {arguments.loss:g} % loss, rate {arguments.rate or 'unshaped'}", flush=True)
    try:
        forward(descriptors, arguments.delay_ms / 1000, arguments.loss, arguments.seed)
    finally:
        tear_down()


if __name__ == "__main__":
    main()
