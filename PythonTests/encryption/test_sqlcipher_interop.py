"""forceterm's encrypted stores read by an SQLCipher nobody here wrote: PyPI's sqlcipher3-wheels
(SQLCipher 4 community edition, its own build of its own sources) opens a store forceterm filled from
real address books, with the store's key, and finds every contact forceterm lists. Without the key
neither SQLCipher nor the system's SQLite reads it, and `strings` finds none of the names, emails or
phone numbers in the file.
"""
import json
import os
import pathlib
import sqlite3
import subprocess

import pytest
from sqlcipher3 import dbapi2 as sqlcipher

REPO = pathlib.Path(__file__).resolve().parents[2]
from built import BIN_DIR
FORCETERM = str(BIN_DIR / "forceterm")
FIXTURES = REPO / "Tests" / "Fixtures" / "address-books"
# Every real address book the importer is tested with: some 200 contacts in many scripts.
SOURCES = sorted(p.name for p in FIXTURES.iterdir() if p.suffix in (".vcf", ".csv"))


def forceterm(*args):
    result = subprocess.run([FORCETERM, *args], capture_output=True, timeout=120)
    assert result.returncode == 0, (args, result.stdout.decode(errors="replace"), result.stderr.decode(errors="replace"))
    return result.stdout


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """A store forceterm made and filled with its importer: without a passcode it is encrypted
    with a random key it keeps in a file beside it (owner-only)."""
    assert os.access(FORCETERM, os.X_OK), f"build forceterm first (make build): {FORCETERM}"
    path = tmp_path_factory.mktemp("encrypted") / "store.sqlite"
    for name in SOURCES:
        forceterm("import", str(FIXTURES / name), "--store", str(path))
    key_file = pathlib.Path(str(path) + ".key")
    assert key_file.stat().st_mode & 0o777 == 0o600
    key = key_file.read_text().strip()
    assert len(key) == 64
    contacts = json.loads(forceterm("list", "contacts", "--json", "--store", str(path)))
    assert len(contacts) > 150
    return path, key, contacts


def open_with_key(path, key):
    connection = sqlcipher.connect(str(path))
    connection.execute(f"PRAGMA key = \"x'{key}'\"")
    connection.execute("PRAGMA cipher_page_size = 16384")
    return connection


def test_sqlcipher_4_opens_the_store_with_its_key_and_reads_every_contact(store):
    path, key, contacts = store
    connection = open_with_key(path, key)
    version = connection.execute("PRAGMA cipher_version").fetchone()[0]
    assert version.startswith("4."), version
    # The SDK's layout: soup_attrs names each soup, whose documents are in TABLE_<its id>.
    soups = dict(connection.execute("SELECT soupName, id FROM soup_attrs").fetchall())
    assert {"contacts", "accounts"} <= set(soups)
    documents = [json.loads(row[0]) for row in connection.execute(f"SELECT soup FROM TABLE_{soups['contacts']}")]
    assert sorted(d.get("Id") for d in documents) == sorted(c["id"] for c in contacts)
    by_id = {d["Id"]: d for d in documents}
    for contact in contacts:
        assert by_id[contact["id"]].get("LastName") == contact.get("LastName")
    assert connection.execute("PRAGMA cipher_integrity_check").fetchall() == []


def test_without_the_key_no_sqlite_reads_it(store):
    path, key, _ = store
    with pytest.raises(sqlcipher.DatabaseError):
        sqlcipher.connect(str(path)).execute("SELECT count(*) FROM sqlite_master").fetchone()
    wrong = open_with_key(path, os.urandom(32).hex())
    with pytest.raises(sqlcipher.DatabaseError):
        wrong.execute("SELECT count(*) FROM sqlite_master").fetchone()
    with pytest.raises(sqlite3.DatabaseError):
        sqlite3.connect(str(path)).execute("SELECT count(*) FROM sqlite_master").fetchone()


def test_strings_finds_no_name_email_or_phone(store):
    path, _, contacts = store
    # ASCII ones: `strings` reads ASCII runs only.
    secrets = set()
    for contact in contacts:
        for field in ("LastName", "Email", "Phone", "MobilePhone"):
            value = contact.get(field)
            if isinstance(value, str) and len(value) >= 5 and value.isascii() and "\n" not in value:
                secrets.add(value)
    assert len(secrets) > 20
    files = [f for f in (str(path), str(path) + "-wal") if os.path.exists(f)]
    text = subprocess.run(["strings", "-n", "4", *files], capture_output=True, check=True).stdout.decode(errors="replace")
    leaked = sorted(s for s in secrets if s in text)
    assert leaked == [], f"readable in the store file: {leaked[:10]}"
    # The same check sees them in an unencrypted copy, so it can fail. forceterm encrypts every
    # store it makes, so the copy is made by smartstore-tool (unencrypted without a key), and
    # forceterm then uses it as it is.
    plain = path.parent / "plain.sqlite"
    subprocess.run([str(BIN_DIR / "smartstore-tool"), "seed", "--store", str(plain), "--config", str(REPO / "config"),
                    "--contacts", "0", "--accounts", "0"], capture_output=True, check=True, timeout=120)
    for name in SOURCES:
        forceterm("import", str(FIXTURES / name), "--store", str(plain))
    plain_text = subprocess.run(["strings", "-n", "4", str(plain)], capture_output=True, check=True).stdout.decode(errors="replace")
    assert sum(s in plain_text for s in secrets) > len(secrets) // 2
