"""The trainer's page in a real headless browser: Debian's chromium, driven through its
chromedriver by selenium. Twelve trainees (real forceterm processes, each with its own store and
session) sync at once while the trainer's page is open; the page's counts must equal the lines the
server logged, a trainee's change must reach the live feed within a second of the sync that sent
it, and the record's history page must show it. A trainee is refused on the page.

Everything runs on loopback. Needs chromium and chromium-driver (`make test-python` installs them;
skipped, saying so, without them). Binaries from FORCETERM_BIN_DIR or .build/debug.
"""
import base64
import csv
import json
import os
import pathlib
import re
import shutil
import subprocess

import pytest
import requests
from process_output import Output

REPO = pathlib.Path(__file__).resolve().parents[2]
from built import BIN_DIR as BINARIES, serve
CHROMIUM, CHROMEDRIVER = shutil.which("chromium"), shutil.which("chromedriver")
TRAINEES = 12
CONTACTS = 60

pytestmark = pytest.mark.skipif(CHROMIUM is None or CHROMEDRIVER is None,
                                reason="needs Debian's chromium and chromium-driver (make test-python installs them)")


def spki_pin(pem_path):
    """The base64 SHA-256 of a certificate's public key: chromium trusts a chain holding it, and
    no other certificate, so the page is checked over real TLS against localorg's own CA."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    certificate = x509.load_pem_x509_certificate(pathlib.Path(pem_path).read_bytes())
    spki = certificate.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    digest = hashes.Hash(hashes.SHA256())
    digest.update(spki)
    return base64.b64encode(digest.finalize()).decode()


def open_browser(tmp_path, ca_path):
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    options = Options()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1400,1000",
                     f"--user-data-dir={tmp_path / 'chromium-profile'}", f"--ignore-certificate-errors-spki-list={spki_pin(ca_path)}"):
        options.add_argument(argument)
    os.environ.setdefault("SE_OFFLINE", "true")  # never let selenium fetch a driver: Debian's is the one
    return webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)


def sign_in(driver, url, username, password):
    from selenium.webdriver.common.by import By
    driver.get(f"{url}/trainer")
    driver.find_element(By.ID, "username").send_keys(username)
    driver.find_element(By.ID, "password").send_keys(password)
    driver.find_element(By.ID, "sign-in").click()


def wait(driver, condition, seconds, message):
    from selenium.webdriver.support.ui import WebDriverWait
    return WebDriverWait(driver, seconds, poll_frequency=0.05).until(condition, message)


def page_counts(driver):
    """username → the numbers in that user's row of the page's table."""
    from selenium.webdriver.common.by import By
    counts = {}
    for row in driver.find_elements(By.CSS_SELECTOR, "#activity tbody tr"):
        cells = {cell.get_attribute("data-field"): int(cell.text) for cell in row.find_elements(By.CSS_SELECTOR, "td[data-field]")}
        counts[row.get_attribute("data-username")] = cells
    return counts


def logged_requests(lines):
    """username → how many request lines the server printed for them."""
    counts = {}
    for line in lines:
        match = re.match(r"\S+Z (\S+) [A-Z]+ /", line)
        if match:
            counts[match.group(1)] = counts.get(match.group(1), 0) + 1
    return counts


def test_the_trainer_watches_twelve_trainees_sync_live(tmp_path):
    from selenium.webdriver.common.by import By
    data = tmp_path / "org"
    localorg, forceterm = BINARIES / "localorg", BINARIES / "forceterm"
    subprocess.run([localorg, "seed", "--data", data, "--accounts", "5", "--contacts", str(CONTACTS)], check=True, capture_output=True)
    subprocess.run([localorg, "user", "add", "--data", data, "--pattern", "trainee{n}@class.test", "--count", str(TRAINEES),
                    "--passwords-file", tmp_path / "class.csv"], check=True, capture_output=True)
    with open(tmp_path / "class.csv", newline="") as file:
        passwords = {row["username"]: row["password"] for row in csv.DictReader(file)}
    # The pattern's numbers are padded to the count's width: trainee01 … trainee12.
    trainees = list(passwords)
    assert trainees[0] == "trainee01@class.test" and len(trainees) == TRAINEES
    first = trainees[0]
    server, ready = serve(data, "--port", "0", stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    served = Output(server)
    driver = None
    try:
        url, fingerprint = ready["url"], ready["caFingerprint"].removeprefix("SHA256:")
        ca = data / "ca.pem"
        driver = open_browser(tmp_path, ca)

        # A trainee is refused at the page's door, in the browser and with their API token.
        sign_in(driver, url, first, passwords[first])
        # The click only starts the form's submission: wait for the answer's page.
        notice = wait(driver, lambda d: d.find_elements(By.ID, "notice"), 30, "no refusal page after a trainee signed in")
        assert "for administrators" in notice[0].text
        token = requests.post(f"{url}/services/oauth2/token", data={
            "grant_type": "password", "client_id": "forceterm", "username": trainees[1],
            "password": passwords[trainees[1]]}, verify=ca, timeout=30).json()["access_token"]
        refused = requests.get(f"{url}/trainer/activity", headers={"Authorization": f"Bearer {token}"}, verify=ca, timeout=30)
        assert refused.status_code == 403 and refused.json()[0]["errorCode"] == "INSUFFICIENT_ACCESS"

        # The org's administrator: a made-up password, kept for the trainer in the data directory.
        administrator, administrator_password = (data / "admin-password").read_text().split()
        sign_in(driver, url, administrator, administrator_password)
        wait(driver, lambda d: len(page_counts(d)) == TRAINEES + 1, 10, "the page lists every user")
        wait(driver, lambda d: d.find_element(By.ID, "feed-state").text == "(live)", 10, "the live feed connects")

        # Twelve laptops sign in, then sync at once.
        homes = []
        for number, username in enumerate(trainees, start=1):
            home = {"XDG_DATA_HOME": str(tmp_path / f"laptop{number}" / "data"), "XDG_CONFIG_HOME": str(tmp_path / f"laptop{number}" / "config"),
                    "PATH": os.environ["PATH"]}
            login = subprocess.run([forceterm, "login", "--login-url", url, "--trust", f"SHA256:{fingerprint}", "--username", username,
                                    "--password-stdin"], input=passwords[username] + "\n", capture_output=True, text=True, env=home, timeout=120)
            assert login.returncode == 0, login.stdout + login.stderr
            homes.append(home)
        syncs = [subprocess.Popen([forceterm, "sync", "--json"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=home)
                 for home in homes]
        for sync in syncs:
            output, _ = sync.communicate(timeout=600)
            assert sync.returncode == 0, output
        for home in homes:
            listed = subprocess.run([forceterm, "list", "contacts", "--format", "json"], capture_output=True, text=True, env=home, timeout=120)
            assert listed.stdout.count('"soup": "contacts"') == CONTACTS

        # One trainee changes a contact and syncs: the request reaches the open page within a second.
        listed = subprocess.run([forceterm, "list", "contacts", "--format", "json"], capture_output=True, text=True, env=homes[0], timeout=120)
        contact_id = re.search(r'"Id": "(003\w+)"', listed.stdout).group(1)
        updated = subprocess.run([forceterm, "update", contact_id, "Title=Live from the room"], capture_output=True, text=True, env=homes[0])
        assert updated.returncode == 0, updated.stdout + updated.stderr
        sync = subprocess.run([forceterm, "sync", "--json"], capture_output=True, text=True, env=homes[0], timeout=300)
        assert sync.returncode == 0, sync.stdout + sync.stderr
        sent = served.wait_for(r"^(\S+Z trainee01@class\.test (?:PATCH|POST) /services/data/\S+ 20\d.*)$", timeout=10).group(1)
        wait(driver, lambda d: d.execute_script("return document.getElementById('feed').textContent.includes(arguments[0])", sent), 1.0,
             f"the feed shows {sent!r} within a second")

        # The page's counts are the server's log, trainee by trainee, once the feed has caught up.
        logged = logged_requests(served.settle())
        expected = {name: logged.get(name, 0) for name in trainees}
        assert all(count > 0 for count in expected.values()), expected
        shown = {}

        def counts_match(d):
            shown.update({name: cells["requests"] for name, cells in page_counts(d).items() if name in expected})
            return shown == expected
        from selenium.common.exceptions import TimeoutException
        try:
            wait(driver, counts_match, 5, "the page's request counts equal the log's")
        except TimeoutException:
            assert shown == expected, "the page's request counts differ from the log's"
        counts = page_counts(driver)
        assert counts[first]["recordsChanged"] == 1
        # The class's only refusals: the first two trainees at the page's door (form and token).
        assert {name: (counts[name]["errors"], counts[name]["conflicts"]) for name in expected} == \
            {name: (1 if name in trainees[:2] else 0, 0) for name in expected}

        # The record's history, opened from the page.
        driver.find_element(By.ID, "record-id").send_keys(contact_id)
        driver.find_element(By.ID, "show-history").click()
        history = wait(driver, lambda d: d.find_element(By.ID, "history"), 5, "the history page opens").text
        assert first in history and "Live from the room" in history, history
        assert re.search(r"Changed Title from .* to “Live from the room”", history), history
        driver.save_screenshot(str(tmp_path / "history.png"))
    finally:
        if driver is not None:
            driver.quit()
        if server.poll() is None:
            server.terminate()
        server.wait(timeout=30)
