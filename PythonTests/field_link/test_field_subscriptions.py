"""A subscription taken across an emulated bad 3G link (the field-link namespaces of
test_field_link.py): a slice of the org crosses the link, not the org, and a widened condition
brings only the records it adds."""
import json
import os
import pathlib
import shutil
import subprocess
import sys
import time

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "scripts" / "field-link"))
import bench_field  # noqa: E402
import org_rest  # noqa: E402

from built import BIN_DIR
BINARIES = str(BIN_DIR)

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or not os.path.exists("/dev/net/tun") or shutil.which("ip") is None,
    reason="the field link needs root, /dev/net/tun and iproute2 (network namespaces)")


def accounts_only_config(tmp_path):
    """The repo's config without its contacts sync down: contacts come only through subscriptions."""
    directory = tmp_path / "accounts-only"
    directory.mkdir()
    shutil.copy(REPO / "config" / "userstore.json", directory / "userstore.json")
    syncs = json.loads((REPO / "config" / "usersyncs.json").read_text())
    syncs["syncs"] = [sync for sync in syncs["syncs"] if sync["syncName"] != "syncDownContacts"]
    (directory / "usersyncs.json").write_text(json.dumps(syncs))
    return str(directory)


def test_a_subscription_across_bad_3g_carries_its_slice_and_a_wider_condition_only_what_it_adds(tmp_path):
    data = str(tmp_path / "org")
    subprocess.run([os.path.join(BINARIES, "localorg"), "seed", "--demo", "--data", data, "--accounts", "30", "--contacts", "3000"],
                   check=True, capture_output=True)
    link = bench_field.Link(300, "1mbit", 2)
    server = None
    try:
        server = bench_field.Server(BINARIES, data)
        # As the trainer, inside the server's namespace: the first 1,000 contacts in Bern, then
        # the first 600 of them in Zürich.
        org_rest.change_on_server(server, "Contact", 1000, "MailingCity", "Bern")
        org_rest.change_on_server(server, "Contact", 600, "MailingCity", "Zürich")
        # One of them a second later: the subscription's high-water mark is then that second, which
        # an incremental run receives again, and not the second that moved hundreds.
        time.sleep(1.1)
        org_rest.change_on_server(server, "Contact", 1, "Title", "Touched")
        laptop = bench_field.Laptop(BINARIES, str(tmp_path / "laptop"), server)
        config = accounts_only_config(tmp_path)
        laptop.forceterm("sync", "--config", config)
        assert laptop.records("contacts") == []

        before = bench_field.wire_bytes()
        made = laptop.forceterm("subscribe", "zurich", "--soup", "contacts", "--where", "MailingCity = 'Zürich'", "--config", config)
        first = bench_field.wire_bytes() - before
        assert made.stdout == "zurich: 600 records of contacts held (600 fetched)\n", made.stdout
        before = bench_field.wire_bytes()
        wider = laptop.forceterm("subscribe", "zurich", "--soup", "contacts", "--where", "MailingCity IN ('Zürich', 'Bern')",
                                 "--config", config)
        widened = bench_field.wire_bytes() - before
        print(f"bad 3G: 600 contacts subscribed in {first} bytes on the wire; widened by 400 in {widened}")
        assert wider.stdout.startswith("zurich: 1000 records of contacts held"), wider.stdout
        held = laptop.records("contacts")
        assert len(held) == 1000 and len({record["Id"] for record in held}) == 1000
        # The 400 it adds and the ids of its 1,000, not the 1,000 again.
        assert widened < first, (first, widened)
        laptop.forceterm("unsubscribe", "zurich", namespace=None)
        assert laptop.records("contacts") == []
    finally:
        if server:
            server.close()
        link.close()
