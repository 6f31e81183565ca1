"""Reliability claims of issue 3: concurrent paging is complete and correct, and a killed server
loses no acknowledged write. Everything talks to 127.0.0.1 only and is bounded in time."""
import concurrent.futures
import signal

import requests

from conftest import LocalOrgProcess, login, run_cli, trusting_session

CONTACTS = 10_000
CLIENTS = 50


def test_fifty_concurrent_clients_page_through_ten_thousand_contacts(tmp_path):
    seeded = run_cli(tmp_path, "seed", "--demo", "--accounts", "100", "--contacts", str(CONTACTS), "--random-seed", "3")
    assert seeded.returncode == 0, seeded.stderr
    server = LocalOrgProcess(tmp_path)
    try:
        token = login(server.url, server.ca_path)["access_token"]

        def page_through(client):
            session = trusting_session(server.ca_path)
            session.headers["Authorization"] = f"Bearer {token}"
            url = f"{server.url}/services/data/v59.0/query?q=SELECT+Id,LastName+FROM+Contact+ORDER+BY+LastName"
            ids = []
            for _ in range(20):  # 10,000 rows in pages of 2,000: 5 pages; the bound only stops a runaway loop
                page = session.get(url, timeout=120).json()
                ids += [record["attributes"]["url"].rsplit("/", 1)[1] for record in page["records"]]
                if page["done"]:
                    return page["totalSize"], ids
                url = server.url + page["nextRecordsUrl"]
            raise AssertionError(f"client {client} never reached done")

        with concurrent.futures.ThreadPoolExecutor(max_workers=CLIENTS) as pool:
            results = list(pool.map(page_through, range(CLIENTS)))
        expected = results[0][1]
        assert len(expected) == CONTACTS == len(set(expected))
        for total, ids in results:
            assert total == CONTACTS and ids == expected
    finally:
        assert server.stop() == 0


def test_a_killed_server_loses_no_acknowledged_write(tmp_path):
    server = LocalOrgProcess(tmp_path, "--http")
    token = login(server.url, verify=False)["access_token"]
    session = requests.Session()
    session.trust_env = False
    session.headers["Authorization"] = f"Bearer {token}"
    acknowledged = []
    try:
        for number in range(40):
            response = session.post(f"{server.url}/services/data/v59.0/sobjects/Contact/", json={"LastName": f"Durable {number}"}, timeout=30)
            assert response.status_code == 201
            acknowledged.append(response.json()["id"])
    finally:
        server.stop(signal.SIGKILL)
    restarted = LocalOrgProcess(tmp_path, "--http")
    try:
        session.headers["Authorization"] = f"Bearer {login(restarted.url, verify=False)['access_token']}"
        result = session.get(f"{restarted.url}/services/data/v59.0/query?q=SELECT+Id+FROM+Contact", timeout=30).json()
        stored = {record["attributes"]["url"].rsplit("/", 1)[1] for record in result["records"]}
        assert stored == set(acknowledged)
    finally:
        assert restarted.stop() == 0
