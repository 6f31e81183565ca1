"""A trainer's class: users added in bulk, failed sign-ins locking a user out, unlock and
deactivate, each trainee's own copy of the data; against the real localorg over HTTPS."""
import csv
import os
import stat

import requests

from conftest import LocalOrgProcess, run_cli


def password_grant(org, username, password):
    return requests.post(f"{org.url}/services/oauth2/token", data={
        "grant_type": "password", "client_id": "forceterm", "username": username, "password": password,
    }, verify=org.ca_path, timeout=30)


def test_a_class_from_a_pattern_signs_in_with_the_passwords_file(org, tmp_path):
    passwords = tmp_path / "class.csv"
    added = run_cli(org.data_dir, "user", "add", "--pattern", "pattern{n}@class.test", "--count", "12", "--passwords-file", str(passwords))
    assert added.returncode == 0, added.stderr
    assert "Added 12 users" in added.stdout and str(passwords) in added.stdout
    assert stat.S_IMODE(os.stat(passwords).st_mode) == 0o600
    rows = list(csv.DictReader(passwords.open()))
    assert [row["username"] for row in rows] == [f"pattern{n:02d}@class.test" for n in range(1, 13)]
    assert len({row["password"] for row in rows}) == 12 and all(len(row["password"]) == 14 for row in rows)
    for row in (rows[0], rows[-1]):
        signed_in = password_grant(org, row["username"], row["password"])
        assert signed_in.status_code == 200, signed_in.text
    listed = run_cli(org.data_dir, "user", "list")
    assert listed.returncode == 0 and "pattern12@class.test" in listed.stdout

    # Latecomers added with the same file named: refused, the first class's handout kept whole.
    handout = passwords.read_text()
    late = run_cli(org.data_dir, "user", "add", "--pattern", "late{n}@class.test", "--count", "2", "--passwords-file", str(passwords))
    assert late.returncode != 0 and "exists already" in late.stderr and "Nobody was added" in late.stderr, late.stderr
    assert passwords.read_text() == handout
    assert "late1@class.test" not in run_cli(org.data_dir, "user", "list").stdout
    # A refusal of the org's (a taken username) is one line, without the usage text of a mistyped command.
    taken = run_cli(org.data_dir, "user", "add", "--pattern", "pattern{n}@class.test", "--count", "12")
    assert taken.returncode == 1 and "DUPLICATE_USERNAME" in taken.stderr and "Usage:" not in taken.stderr, taken.stderr


def test_a_bad_csv_names_its_line_and_adds_nobody(org, tmp_path):
    good = tmp_path / "good.csv"
    good.write_text("Username,FirstName,LastName,Password\ncsv1@class.test,Ana,Pérez,given-password\ncsv2@class.test,Bo,Li,\n")
    added = run_cli(org.data_dir, "user", "add", "--csv", str(good))
    assert added.returncode == 0, added.stderr
    assert "csv2@class.test" in added.stdout and "given-password" not in added.stdout  # only made-up passwords are shown
    assert password_grant(org, "csv1@class.test", "given-password").status_code == 200

    for body, expected in [
        ("Username,LastName\nbad1@class.test,One\nbad2@class.test,Two,extra\n", "line 3: 3 fields where the header has 2"),
        ("Username,LastName\nbad3@class.test,\"unclosed\n", "a quote does not close"),
        ("Email,LastName\nbad4@class.test,Four\n", "line 1: the header needs a Username column"),
        ("Username\nnot-an-email\n", "line 2: the username must look like an email address"),
        ("Username\nbad5@class.test\ncsv1@class.test\n", "csv1@class.test is already a user"),
    ]:
        bad = tmp_path / "bad.csv"
        bad.write_text(body)
        refused = run_cli(org.data_dir, "user", "add", "--csv", str(bad))
        assert refused.returncode != 0 and expected in refused.stderr, (body, refused.stderr)
        assert "nobody was added" in refused.stderr or "no users" in refused.stderr
    listed = run_cli(org.data_dir, "user", "list").stdout
    assert "bad1@class.test" not in listed and "bad5@class.test" not in listed


def test_ten_wrong_passwords_lock_a_user_out_until_the_trainer_unlocks(org):
    added = run_cli(org.data_dir, "user", "add", "locked@class.test", "--password-stdin", stdin="right-password\n")
    assert added.returncode == 0, added.stderr
    for _ in range(10):
        wrong = password_grant(org, "locked@class.test", "wrong")
        assert wrong.status_code == 400 and wrong.json() == {"error": "invalid_grant", "error_description": "authentication failure"}
    # Locked: the right password gets the same answer as a wrong one, as Salesforce gives.
    refused = password_grant(org, "locked@class.test", "right-password")
    assert refused.status_code == 400 and refused.json()["error_description"] == "authentication failure"
    listed = run_cli(org.data_dir, "user", "list").stdout
    assert any("locked@class.test" in line and "LOCKED 15 min" in line for line in listed.splitlines()), listed
    unlocked = run_cli(org.data_dir, "user", "unlock", "locked@class.test")
    assert unlocked.returncode == 0 and "Unlocked locked@class.test" in unlocked.stdout
    assert password_grant(org, "locked@class.test", "right-password").status_code == 200


def test_deactivating_ends_the_session_and_passwd_lets_back_in(org):
    assert run_cli(org.data_dir, "user", "add", "leaver@class.test", "--password-stdin", stdin="first-password\n").returncode == 0
    token = password_grant(org, "leaver@class.test", "first-password").json()["access_token"]
    headers = {"Authorization": f"Bearer {token}"}
    assert requests.get(f"{org.url}/services/data/v59.0/sobjects/Contact/describe", headers=headers, verify=org.ca_path, timeout=30).status_code == 200
    assert run_cli(org.data_dir, "user", "deactivate", "leaver@class.test").returncode == 0
    assert requests.get(f"{org.url}/services/data/v59.0/sobjects/Contact/describe", headers=headers, verify=org.ca_path, timeout=30).status_code == 401
    inactive = password_grant(org, "leaver@class.test", "first-password")
    assert inactive.status_code == 400 and inactive.json()["error_description"] == "inactive user"
    assert run_cli(org.data_dir, "user", "activate", "leaver@class.test").returncode == 0
    changed = run_cli(org.data_dir, "user", "passwd", "leaver@class.test")
    new_password = changed.stdout.rsplit(" ", 1)[-1].strip()
    assert changed.returncode == 0 and password_grant(org, "leaver@class.test", new_password).status_code == 200
    missing = run_cli(org.data_dir, "user", "unlock", "nobody@class.test")
    assert missing.returncode != 0 and "no user nobody@class.test" in missing.stderr


def test_each_trainee_owns_a_copy_for_a_private_class(tmp_path):
    data = tmp_path / "private-class"
    assert run_cli(data, "info").returncode == 0  # creates the org
    assert run_cli(data, "user", "add", "--pattern", "t{n}@class.test", "--count", "2", "--passwords-file", str(tmp_path / "p.csv")).returncode == 0
    seeded = run_cli(data, "seed", "--accounts", "2", "--contacts", "5", "--each-user")
    assert seeded.returncode == 0, seeded.stderr
    assert "owned by t1@class.test" in seeded.stdout and "owned by t2@class.test" in seeded.stdout
    rows = {row["username"]: row["password"] for row in csv.DictReader((tmp_path / "p.csv").open())}
    server = LocalOrgProcess(data, "--sharing", "private", "--quiet")
    try:
        seen = []
        for username in ("t1@class.test", "t2@class.test"):
            token = password_grant(server, username, rows[username]).json()["access_token"]
            result = requests.get(f"{server.url}/services/data/v59.0/query", params={"q": "SELECT Id, LastName FROM Contact"},
                                  headers={"Authorization": f"Bearer {token}"}, verify=server.ca_path, timeout=30).json()
            assert result["totalSize"] == 5, result
            seen.append(result)
        # The same exercise data for both, in records of their own.
        assert sorted(r["LastName"] for r in seen[0]["records"]) == sorted(r["LastName"] for r in seen[1]["records"])
        assert not {r["Id"] for r in seen[0]["records"]} & {r["Id"] for r in seen[1]["records"]}
    finally:
        assert server.stop() == 0


def test_the_trainer_reads_the_org_with_query_and_show(org, sf):
    created = sf.Contact.create({"LastName": "Shown To The Trainer", "Title": "Tab\tInside"})
    queried = run_cli(org.data_dir, "query", f"SELECT Id, LastName, Title, Owner.Username FROM Contact WHERE Id = '{created['id']}'")
    assert queried.returncode == 0, queried.stderr
    header, row = queried.stdout.splitlines()
    assert header.split("\t") == ["Id", "LastName", "Title", "Owner.Username"]
    assert row.split("\t") == [created["id"], "Shown To The Trainer", "Tab Inside", "demo@localorg.test"]
    assert queried.stderr.strip() == "1 record"
    counted = run_cli(org.data_dir, "query", "SELECT COUNT() FROM Contact WHERE LastName = 'Shown To The Trainer'")
    assert counted.returncode == 0 and counted.stderr.strip() == "1 record", counted.stderr

    shown = run_cli(org.data_dir, "show", created["id"])
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.startswith(f"Contact {created['id']}\n")
    assert any(line.split() == ["LastName", "Shown", "To", "The", "Trainer"] for line in shown.stdout.splitlines()), shown.stdout
    as_json = run_cli(org.data_dir, "show", created["id"], "--json")
    assert '"Title": "Tab\\tInside"' in as_json.stdout

    bad = run_cli(org.data_dir, "query", "SELECT Nope FROM Contact")
    assert bad.returncode != 0 and "INVALID_FIELD" in bad.stderr, bad.stderr
    missing = run_cli(org.data_dir, "show", "003Lo00000ZZZZZ")
    assert missing.returncode != 0 and "no record has the id" in missing.stderr, missing.stderr
    malformed = run_cli(org.data_dir, "show", "not-an-id")
    assert malformed.returncode != 0 and "MALFORMED_ID" in malformed.stderr, malformed.stderr
