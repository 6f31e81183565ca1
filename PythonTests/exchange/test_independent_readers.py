"""forceterm's exports read by parsers nobody here wrote: vobject for vCard 4.0 and 3.0, Python's
csv module for CSV (with and without Excel's byte order mark), json for JSON. The store is filled
from the real address books in Tests/Fixtures/address-books, so names in many scripts, multi-line
notes, commas and quotes all travel. Then every export goes through a fresh store and comes out
the same (vCard and CSV byte for byte).
"""
import csv
import io
import json
import os
import pathlib
import subprocess

import pytest
import vobject

REPO = pathlib.Path(__file__).resolve().parents[2]
from built import BIN_DIR
FORCETERM = str(BIN_DIR / "forceterm")
FIXTURES = REPO / "Tests" / "Fixtures" / "address-books"
SOURCES = [
    "ez-vcard--john_doe_iphone.vcf", "aosp-vcard--v21_complicated.vcf", "ical4j-vcard--vcard-vcards-sap.vcf",
    "folkerkinzel-contacts-io--google.csv", "thunderbird--quote.csv", "aosp-vcard--v21_multiple_entry.vcf",
    "ez-vcard--outlook-2007.vcf", "ical.js--escape_semicolon.vcf",
]


def forceterm(*args):
    result = subprocess.run([FORCETERM, *args], capture_output=True, timeout=120)
    assert result.returncode == 0, (args, result.stdout.decode(errors="replace"), result.stderr.decode(errors="replace"))
    return result.stdout


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    assert os.access(FORCETERM, os.X_OK), f"build forceterm first (make build): {FORCETERM}"
    path = tmp_path_factory.mktemp("exchange") / "store.sqlite"
    for name in SOURCES:
        forceterm("import", str(FIXTURES / name), "--store", str(path))
    return path


def records(store_path, soup):
    return json.loads(forceterm("list", soup, "--json", "--store", str(store_path)))


def test_vcard_4_and_3_read_by_vobject(store, tmp_path):
    contacts = {c["id"]: c for c in records(store, "contacts")}
    accounts = {a["id"]: a for a in records(store, "accounts")}
    assert len(contacts) > 30 and len(accounts) > 5
    for version in ("4.0", "3.0"):
        text = forceterm("export", "all", "--vcard-version", version, "--store", str(store)).decode("utf-8")
        cards = list(vobject.readComponents(text))
        assert len(cards) == len(contacts) + len(accounts), version
        for card in cards:
            assert card.version.value == version
            record_id = card.uid.value
            if record_id in accounts:
                assert card.fn.value == accounts[record_id]["Name"]
                continue
            contact = contacts[record_id]
            assert card.n.value.family == (contact.get("LastName") or ""), (version, record_id)
            assert card.n.value.given == (contact.get("FirstName") or "")
            if contact.get("Email"):
                assert card.email.value == contact["Email"]
            if contact.get("Description"):
                assert card.note.value == contact["Description"], version
            phones = {tel.value for tel in card.contents.get("tel", [])}
            for field in ("Phone", "MobilePhone", "HomePhone"):
                if contact.get(field):
                    assert contact[field] in phones
            if contact.get("AccountId"):
                assert card.org.value[0] == accounts[contact["AccountId"]]["Name"]


@pytest.mark.parametrize("excel", [False, True])
def test_csv_read_by_the_csv_module(store, excel):
    contacts = {c["id"]: c for c in records(store, "contacts")}
    args = ["export", "contacts", "--format", "csv", "--store", str(store)] + (["--excel"] if excel else [])
    data = forceterm(*args)
    assert data.startswith(b"\xef\xbb\xbf") == excel
    rows = list(csv.DictReader(io.StringIO(data.decode("utf-8-sig"), newline="")))
    assert len(rows) == len(contacts)
    for row in rows:
        contact = contacts[row["Id"]]
        for field, value in row.items():
            if field != "Id":
                assert value == (contact.get(field) or ""), (field, row["Id"])


@pytest.mark.parametrize("fmt", ["vcf", "csv", "json"])
def test_round_trip_through_a_fresh_store(store, tmp_path, fmt):
    first = tmp_path / f"first.{fmt}"
    forceterm("export", "all", "-o", str(first), "--store", str(store))
    if fmt == "json":
        assert len(json.loads(first.read_text(encoding="utf-8"))) == len(records(store, "contacts")) + len(records(store, "accounts"))
    fresh = tmp_path / "fresh.sqlite"
    forceterm("import", str(first), "--store", str(fresh))
    second = tmp_path / f"second.{fmt}"
    forceterm("export", "all", "-o", str(second), "--store", str(fresh))
    if fmt == "json":
        strip = lambda items: sorted(({k: v for k, v in item.items() if k != "entryId"} for item in items), key=lambda i: i["id"])
        assert strip(json.loads(second.read_text(encoding="utf-8"))) == strip(json.loads(first.read_text(encoding="utf-8")))
    else:
        assert second.read_bytes() == first.read_bytes()
