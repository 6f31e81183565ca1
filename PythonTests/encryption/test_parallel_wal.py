"""A large commit into an encrypted store, its pages encrypted on several threads
(vendor/sqlite3mc/parallel-wal.c), read back by an SQLCipher nobody here wrote: PyPI's
sqlcipher3-wheels finds every page's HMAC right and the same contacts as in a store whose pages were
encrypted one by one. A commit that size is written to the log in parts; killed between them, the
store opens with none of it, and the next import goes through.
"""
import csv
import json
import os
import pathlib
import signal
import subprocess
import time

import pytest
from sqlcipher3 import dbapi2 as sqlcipher

REPO = pathlib.Path(__file__).resolve().parents[2]
from built import BIN_DIR
FORCETERM = str(BIN_DIR / "forceterm")
CONTACTS = 12_000


def environment(threads):
    return {**os.environ, "FORCETERM_WAL_ENCRYPT_THREADS": str(threads)}


@pytest.fixture(scope="module")
def address_book(tmp_path_factory):
    """12,000 contacts: one import is one commit of some 20 MB, more than one part of 8 MB."""
    assert os.access(FORCETERM, os.X_OK), f"build forceterm first (make build): {FORCETERM}"
    path = tmp_path_factory.mktemp("book") / "contacts.csv"
    with open(path, "w", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(["lastName", "firstName", "email", "title", "phone"])
        for n in range(CONTACTS):
            writer.writerow([f"Parallel{n:05d}", f"Given{n % 997}", f"person{n}@example.org", f"Title {n % 31}", f"+1555{n:07d}"])
    return path


def encrypted_store(directory, name):
    path = directory / f"{name}.sqlite"
    key = os.urandom(32).hex()
    key_file = pathlib.Path(str(path) + ".key")
    key_file.write_text(key + "\n")
    key_file.chmod(0o600)
    return path, key


def run_import(book, store, threads):
    result = subprocess.run([FORCETERM, "import", str(book), "--store", str(store)], capture_output=True,
                            timeout=300, env=environment(threads))
    assert result.returncode == 0, result.stderr.decode(errors="replace")


def open_with_key(path, key):
    connection = sqlcipher.connect(str(path))
    connection.execute(f"PRAGMA key = \"x'{key}'\"")
    connection.execute("PRAGMA cipher_page_size = 16384")
    return connection


def contacts_in(path, key):
    connection = open_with_key(path, key)
    assert connection.execute("PRAGMA cipher_integrity_check").fetchall() == []
    assert connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    soups = dict(connection.execute("SELECT soupName, id FROM soup_attrs").fetchall())
    if "contacts" not in soups:
        return {}
    table = f"TABLE_{soups['contacts']}"
    documents = [json.loads(row[0]) for row in connection.execute(f"SELECT soup FROM {table}")]
    # The full-text index was written by the same commit.
    matched = connection.execute(f"SELECT COUNT(*) FROM {table}_fts WHERE {table}_fts MATCH 'Parallel01234*'").fetchone()[0]
    assert matched == (1 if documents else 0)
    connection.close()
    return {d["LastName"]: (d.get("FirstName"), d.get("Email"), d.get("Phone")) for d in documents}


def test_pages_encrypted_together_read_the_same_as_one_by_one(address_book, tmp_path):
    together, together_key = encrypted_store(tmp_path, "together")
    one_by_one, one_by_one_key = encrypted_store(tmp_path, "one-by-one")
    run_import(address_book, together, threads=2)
    run_import(address_book, one_by_one, threads=0)
    found = contacts_in(together, together_key)
    assert len(found) == CONTACTS
    assert found == contacts_in(one_by_one, one_by_one_key)
    assert found["Parallel11999"] == ("Given35", "person11999@example.org", "+15550011999")


def test_killed_between_the_parts_of_a_commit_nothing_of_it_counts(address_book, tmp_path):
    store, key = encrypted_store(tmp_path, "killed")
    wal = pathlib.Path(str(store) + "-wal")
    # Killed once the log holds more than one part of the commit but before the commit frame.
    process = subprocess.Popen([FORCETERM, "import", str(address_book), "--store", str(store)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=environment(2))
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and process.poll() is None:
        if wal.exists() and wal.stat().st_size > 9 * 1024 * 1024:
            process.send_signal(signal.SIGKILL)
            break
        time.sleep(0.002)
    process.wait(timeout=60)
    assert process.returncode == -signal.SIGKILL, "the import ended before the log held a part of its commit"
    assert contacts_in(store, key) == {}
    # forceterm opens it as it was, and the import goes through this time.
    run_import(address_book, store, threads=2)
    assert len(contacts_in(store, key)) == CONTACTS
