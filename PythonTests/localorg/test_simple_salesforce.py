"""simple-salesforce, an independent Salesforce client, as the judge of localorg's wire formats."""
import datetime
import email.utils
import signal

import pytest
import requests
from simple_salesforce.exceptions import (SalesforceExpiredSession, SalesforceGeneralError,
                                          SalesforceMalformedRequest, SalesforceResourceNotFound)

from conftest import SEEDED_CONTACTS, LocalOrgProcess, login, run_cli, trusting_session

SYNC_FIELDS = {
    "Contact": ["FirstName", "LastName", "Title", "MobilePhone", "Email", "Department", "HomePhone", "AccountId"],
    "Account": ["Name", "Industry", "Phone", "Website", "BillingStreet", "BillingCity", "BillingPostalCode", "BillingCountry"],
}


def test_describe_has_every_field_forceterm_syncs(sf):
    for object_name, fields in SYNC_FIELDS.items():
        describe = getattr(sf, object_name).describe()
        described = {field["name"]: field for field in describe["fields"]}
        assert set(fields) <= set(described)
    contact = {field["name"]: field for field in sf.Contact.describe()["fields"]}
    assert contact["LastName"]["nillable"] is False and contact["LastName"]["length"] == 80
    assert contact["AccountId"]["referenceTo"] == ["Account"]
    assert sf.Contact.metadata()["objectDescribe"]["keyPrefix"] == "003"
    names = [entry["name"] for entry in sf.describe()["sobjects"]]
    assert names == ["Account", "Contact", "User", "RecordType", "Organization"]


def test_crud_round_trip_with_unicode(sf):
    created = sf.Contact.create({"FirstName": "Søren", "LastName": "陈 Ørsted", "Email": "soren@example.com"})
    assert created["success"] is True and created["id"].startswith("003") and len(created["id"]) == 18
    record = sf.Contact.get(created["id"])
    assert record["Name"] == "Søren 陈 Ørsted"
    assert record["CreatedDate"].endswith(".000+0000")
    assert sf.Contact.update(created["id"], {"Title": "Ingénieur"}) == 204
    assert sf.Contact.get(created["id"])["Title"] == "Ingénieur"
    assert sf.Contact.delete(created["id"]) == 204
    with pytest.raises(SalesforceResourceNotFound) as deleted:
        sf.Contact.get(created["id"])
    assert deleted.value.content[0]["errorCode"] == "ENTITY_IS_DELETED"
    recycled = sf.query_all(f"SELECT Id, IsDeleted FROM Contact WHERE Id = '{created['id']}'", include_deleted=True)
    assert [record["IsDeleted"] for record in recycled["records"]] == [True]
    assert sf.query(f"SELECT COUNT() FROM Contact WHERE Id = '{created['id'][:15]}'")["totalSize"] == 0


def test_upsert_by_external_id(sf):
    assert sf.Contact.upsert("ExternalKey__c/pytest-1", {"LastName": "Upserted"}) == 201
    assert sf.Contact.upsert("ExternalKey__c/pytest-1", {"LastName": "Upserted again"}) == 200
    assert sf.Contact.get_by_custom_id("ExternalKey__c", "pytest-1")["LastName"] == "Upserted again"


def test_query_pages_and_query_all_collects_every_page(sf):
    first = sf.query("SELECT Id, Name, Account.Name FROM Contact ORDER BY Name")
    assert first["totalSize"] >= SEEDED_CONTACTS
    assert first["done"] is False and len(first["records"]) == 2000
    assert first["nextRecordsUrl"].startswith("/services/data/v59.0/query/01g")
    second = sf.query_more(first["nextRecordsUrl"], identifier_is_url=True)
    assert len(first["records"]) + len(second["records"]) == first["totalSize"]

    small_pages = sf.query_all("SELECT Id FROM Contact", headers={"Sforce-Query-Options": "batchSize=200"})
    ids = [record["Id"] for record in small_pages["records"]]
    assert len(ids) == small_pages["totalSize"] >= SEEDED_CONTACTS
    assert len(set(ids)) == len(ids)


def test_where_clauses_and_date_literals_in_every_client_form(sf):
    total = sf.query("SELECT COUNT() FROM Contact")["totalSize"]
    for literal in ["2000-01-01T00:00:00Z", "2000-01-01T00:00:00+00:00", "2000-01-01T00:00:00.000+0000"]:
        assert sf.query(f"SELECT COUNT() FROM Contact WHERE LastModifiedDate > {literal}")["totalSize"] == total
    with_account = sf.query("SELECT COUNT() FROM Contact WHERE AccountId != null")["totalSize"]
    without = sf.query("SELECT COUNT() FROM Contact WHERE AccountId = null")["totalSize"]
    assert with_account + without == total and with_account > 0
    records = sf.query("SELECT LastName, Account.Name FROM Contact WHERE Account.Name != null "
                       "ORDER BY Account.Name DESC NULLS LAST, LastName LIMIT 5 OFFSET 2")["records"]
    assert len(records) == 5 and all(record["Account"]["Name"] for record in records)


def test_aggregates(sf):
    groups = sf.query("SELECT Industry, COUNT(Id) accounts FROM Account GROUP BY Industry ORDER BY COUNT(Id) DESC")
    assert groups["done"] is True and groups["totalSize"] == len(groups["records"]) > 1
    assert all(row["attributes"]["type"] == "AggregateResult" for row in groups["records"])
    counts = [row["accounts"] for row in groups["records"]]
    assert counts == sorted(counts, reverse=True)
    assert sum(counts) == sf.query("SELECT COUNT() FROM Account")["totalSize"]


def test_query_errors_are_salesforce_errors(sf):
    with pytest.raises(SalesforceMalformedRequest) as invalid_field:
        sf.query("SELECT Bogus FROM Contact")
    assert invalid_field.value.content[0]["errorCode"] == "INVALID_FIELD"
    assert "ERROR at Row:1:Column:8" in invalid_field.value.content[0]["message"]
    with pytest.raises(SalesforceMalformedRequest) as malformed:
        sf.query("SELECT Id FRM Contact")
    assert malformed.value.content[0]["errorCode"] == "MALFORMED_QUERY"


def test_validation_errors(sf):
    with pytest.raises(SalesforceMalformedRequest) as missing:
        sf.Contact.create({"FirstName": "No last name"})
    assert missing.value.content == [{"message": "Required fields are missing: [LastName]",
                                      "errorCode": "REQUIRED_FIELD_MISSING", "fields": ["LastName"]}]
    with pytest.raises(SalesforceMalformedRequest) as email:
        sf.Contact.create({"LastName": "X", "Email": "nope"})
    assert email.value.content[0]["errorCode"] == "INVALID_EMAIL_ADDRESS"
    with pytest.raises(SalesforceMalformedRequest) as reference:
        sf.Contact.create({"LastName": "X", "AccountId": "001Lo0000000zzzAAA"})
    assert reference.value.content[0]["errorCode"] == "INVALID_CROSS_REFERENCE_KEY"


def test_bad_session_raises_expired_session(org):
    from simple_salesforce import Salesforce
    stranger = Salesforce(instance_url=org.url, session_id="00D!not.valid", session=trusting_session(org.ca_path), version="59.0")
    with pytest.raises(SalesforceExpiredSession) as expired:
        stranger.query("SELECT Id FROM Contact")
    assert expired.value.content == [{"message": "Session expired or invalid", "errorCode": "INVALID_SESSION_ID"}]


def test_organization_limits_and_usage(sf):
    assert sf.is_sandbox() is True
    limits = sf.limits()
    assert limits["DailyApiRequests"]["Max"] >= limits["DailyApiRequests"]["Remaining"] > 0
    sf.query("SELECT Id FROM Contact LIMIT 1")
    assert sf.api_usage["api-usage"].used >= 1


def test_updated_and_deleted_windows(sf):
    now = datetime.datetime.now(datetime.timezone.utc)
    updated = sf.Contact.updated(now - datetime.timedelta(days=29), now)
    assert len(updated["ids"]) > 0 and updated["latestDateCovered"].endswith(":00.000+0000")
    deleted = sf.Contact.deleted(now - datetime.timedelta(days=1), now)
    assert set(deleted) == {"deletedRecords", "earliestDateAvailable", "latestDateCovered"}


def test_composite_collections(sf):
    created = sf.restful("composite/sobjects", method="POST", json={"allOrNone": False, "records": [
        {"attributes": {"type": "Account"}, "Name": "Composite Ltd"},
        {"attributes": {"type": "Contact"}, "FirstName": "Missing last name"},
    ]})
    assert [result["success"] for result in created] == [True, False]
    assert created[1]["errors"][0]["statusCode"] == "REQUIRED_FIELD_MISSING"
    retrieved = sf.restful("composite/sobjects/Account", method="POST", json={"ids": [created[0]["id"]], "fields": ["Name"]})
    assert retrieved[0]["Name"] == "Composite Ltd"


def test_server_side_edit_by_another_user_makes_if_unmodified_since_fail(org, sf):
    created = sf.Contact.create({"LastName": "Conflict"})
    seen = sf.Contact.get(created["id"])
    seen_at = datetime.datetime.strptime(seen["LastModifiedDate"], "%Y-%m-%dT%H:%M:%S.%f%z")
    import time
    time.sleep(1.1)  # timestamps have whole-second precision
    edited = run_cli(org.data_dir, "edit", "Contact", created["id"], "Title=Changed on the server")
    assert edited.returncode == 0, edited.stderr
    after = sf.Contact.get(created["id"])
    assert after["Title"] == "Changed on the server" and after["LastModifiedById"] != seen["LastModifiedById"]
    with pytest.raises(SalesforceGeneralError) as conflict:
        sf.Contact.update(created["id"], {"Title": "Mine"},
                          headers={"If-Unmodified-Since": email.utils.format_datetime(seen_at, usegmt=True)})
    assert conflict.value.status == 412


def test_oauth_errors_and_refresh(org, token):
    bad = requests.post(f"{org.url}/services/oauth2/token", data={
        "grant_type": "password", "client_id": "forceterm", "username": "demo@localorg.test", "password": "wrong"},
        verify=org.ca_path, timeout=30)
    assert bad.status_code == 400
    assert bad.json() == {"error": "invalid_grant", "error_description": "authentication failure"}
    refreshed = requests.post(f"{org.url}/services/oauth2/token", data={
        "grant_type": "refresh_token", "client_id": "forceterm", "refresh_token": token["refresh_token"]},
        verify=org.ca_path, timeout=30)
    assert refreshed.status_code == 200 and refreshed.json()["access_token"] != token["access_token"]
    userinfo = requests.get(f"{org.url}/services/oauth2/userinfo", verify=org.ca_path, timeout=30,
                            headers={"Authorization": f"Bearer {refreshed.json()['access_token']}"})
    assert userinfo.json()["preferred_username"] == "demo@localorg.test"


def test_tls_is_refused_without_the_local_ca(org):
    with pytest.raises(requests.exceptions.SSLError):
        requests.get(f"{org.url}/services/data/", timeout=30)


def test_expired_tokens_get_401_and_server_stops_cleanly_on_sigint(tmp_path):
    server = LocalOrgProcess(tmp_path, "--token-ttl", "1")
    try:
        token = login(server.url, server.ca_path)
        import time
        time.sleep(2.1)
        response = requests.get(f"{server.url}/services/data/v59.0/sobjects/", verify=server.ca_path, timeout=30,
                                headers={"Authorization": f"Bearer {token['access_token']}"})
        assert response.status_code == 401
        assert response.json() == [{"message": "Session expired or invalid", "errorCode": "INVALID_SESSION_ID"}]
    finally:
        assert server.stop(signal.SIGINT) == 0, "".join(server.output)


def test_device_flow_approved_from_the_command_line(org):
    start = requests.post(f"{org.url}/services/oauth2/token", data={"response_type": "device_code", "client_id": "forceterm"},
                          verify=org.ca_path, timeout=30).json()
    assert start["verification_uri"] == f"{org.url}/setup/connect" and start["interval"] == 5
    poll = {"grant_type": "device", "client_id": "forceterm", "code": start["device_code"]}
    pending = requests.post(f"{org.url}/services/oauth2/token", data=poll, verify=org.ca_path, timeout=30)
    assert pending.status_code == 400 and pending.json()["error"] == "authorization_pending"
    approved = run_cli(org.data_dir, "approve", start["user_code"], "--as", "trainer@localorg.test")
    assert approved.returncode == 0, approved.stderr
    tokens = requests.post(f"{org.url}/services/oauth2/token", data=poll, verify=org.ca_path, timeout=30).json()
    userinfo = requests.get(f"{org.url}/services/oauth2/userinfo", verify=org.ca_path, timeout=30,
                            headers={"Authorization": f"Bearer {tokens['access_token']}"}).json()
    assert userinfo["preferred_username"] == "trainer@localorg.test"


def test_child_subqueries(sf):
    accounts = sf.query("SELECT Name, (SELECT LastName FROM Contacts ORDER BY LastName) FROM Account ORDER BY Name")["records"]
    with_contacts = [account for account in accounts if account["Contacts"] is not None]
    assert with_contacts, "seeded accounts have contacts"
    children = with_contacts[0]["Contacts"]
    assert children["done"] is True and children["totalSize"] == len(children["records"])
    assert all(child["attributes"]["type"] == "Contact" for child in children["records"])


def test_sosl_search(sf):
    sf.Contact.create({"FirstName": "Xanthippe", "LastName": "Sökmen"})
    found = sf.search("FIND {Xanthippe} IN NAME FIELDS RETURNING Contact(Name, Email)")
    assert [record["Name"] for record in found["searchRecords"]] == ["Xanthippe Sökmen"]
    assert sf.quick_search("Sökmen")["searchRecords"][0]["attributes"]["type"] == "Contact"
    with pytest.raises(SalesforceMalformedRequest) as malformed:
        sf.search("FIND Xanthippe")
    assert malformed.value.content[0]["errorCode"] == "MALFORMED_SEARCH"


def test_gzip_in_both_directions(org, token):
    import gzip
    import json
    session = requests.Session()
    session.trust_env = False
    session.verify = org.ca_path
    headers = {"Authorization": f"Bearer {token['access_token']}", "Content-Type": "application/json"}
    described = session.get(f"{org.url}/services/data/v59.0/sobjects/Contact/describe", headers={**headers, "Accept-Encoding": "gzip"}, timeout=30)
    assert described.headers["Content-Encoding"] == "gzip" and described.json()["name"] == "Contact"
    identity = session.get(f"{org.url}/services/data/v59.0/sobjects/Contact/describe", headers={**headers, "Accept-Encoding": "identity"}, timeout=30)
    assert "Content-Encoding" not in identity.headers
    body = gzip.compress(json.dumps({"LastName": "Compressed upload"}).encode())
    created = session.post(f"{org.url}/services/data/v59.0/sobjects/Contact/", data=body,
                           headers={**headers, "Content-Encoding": "gzip"}, timeout=30)
    assert created.status_code == 201, created.text


def test_command_line_user_add_delete_and_info(org, sf):
    added = run_cli(org.data_dir, "user", "add", "sam@localorg.test", "--password-stdin", "--first-name", "Sam", stdin="correct horse\n")
    assert added.returncode == 0, added.stderr
    token = login(org.url, org.ca_path, username="sam@localorg.test", password="correct horse")
    assert token["access_token"]
    duplicate = run_cli(org.data_dir, "user", "add", "sam@localorg.test", "--password-stdin", stdin="again\n")
    assert duplicate.returncode != 0 and "DUPLICATE_USERNAME" in duplicate.stderr

    created = sf.Contact.create({"LastName": "Removed by the trainer"})
    deleted = run_cli(org.data_dir, "delete", "Contact", created["id"])
    assert deleted.returncode == 0, deleted.stderr
    with pytest.raises(SalesforceResourceNotFound):
        sf.Contact.get(created["id"])
    missing = run_cli(org.data_dir, "delete", "Contact", created["id"])
    assert missing.returncode != 0 and "ENTITY_IS_DELETED" in missing.stderr

    info = run_cli(org.data_dir, "info")
    assert info.returncode == 0 and "sam@localorg.test" in info.stdout and "Contact" in info.stdout


def test_soap_login_through_simple_salesforce(org):
    from simple_salesforce import Salesforce, SalesforceLogin
    from simple_salesforce.exceptions import SalesforceAuthenticationFailed
    session = trusting_session(org.ca_path)
    session_id, instance = SalesforceLogin(username="demo@localorg.test", password="localorg-demo", security_token="",
                                           scratch_url=org.url, session=session, sf_version="59.0")
    assert instance == org.url.split("//", 1)[1]
    sf = Salesforce(session_id=session_id, instance=instance, session=session, version="59.0")
    assert sf.query("SELECT COUNT() FROM Contact")["totalSize"] > 0
    with pytest.raises(SalesforceAuthenticationFailed) as failed:
        SalesforceLogin(username="demo@localorg.test", password="wrong", security_token="", scratch_url=org.url,
                        session=session, sf_version="59.0")
    assert failed.value.code == "INVALID_LOGIN"
    with pytest.raises(SalesforceAuthenticationFailed):
        SalesforceLogin(username="demo@localorg.test", password="localorg-demo", security_token="", scratch_url=org.url,
                        session=session, sf_version="65.0")


def test_composite_batch_composite_and_tree(sf):
    tree = sf.restful("composite/tree/Account", method="POST", json={"records": [
        {"attributes": {"type": "Account", "referenceId": "acc"}, "Name": "Tree via pytest",
         "Contacts": {"records": [{"attributes": {"type": "Contact", "referenceId": "con"}, "LastName": "Leaf"}]}}]})
    assert tree["hasErrors"] is False and [result["referenceId"] for result in tree["results"]] == ["acc", "con"]
    account_id = tree["results"][0]["id"]
    batch = sf.restful("composite/batch", method="POST", json={"batchRequests": [
        {"method": "PATCH", "url": f"v59.0/sobjects/Account/{account_id}", "richInput": {"Phone": "+1 555 0100"}},
        {"method": "GET", "url": f"v59.0/sobjects/Account/{account_id}?fields=Phone"}]})
    assert batch["hasErrors"] is False and batch["results"][1]["result"]["Phone"] == "+1 555 0100"
    composite = sf.restful("composite", method="POST", json={"allOrNone": True, "compositeRequest": [
        {"method": "POST", "url": "/services/data/v59.0/sobjects/Contact", "referenceId": "new", "body": {"LastName": "Ref", "AccountId": account_id}},
        {"method": "GET", "url": "/services/data/v59.0/sobjects/Contact/@{new.id}?fields=AccountId", "referenceId": "read"}]})
    responses = composite["compositeResponse"]
    assert [response["httpStatusCode"] for response in responses] == [201, 200]
    assert responses[1]["body"]["AccountId"] == account_id and all("httpHeaders" in response for response in responses)


def test_private_sharing_hides_other_users_records(tmp_path):
    from simple_salesforce import Salesforce
    server = LocalOrgProcess(tmp_path, "--sharing", "private")
    try:
        def client(username, password):
            token = login(server.url, server.ca_path, username=username, password=password)
            return Salesforce(instance_url=server.url, session_id=token["access_token"], session=trusting_session(server.ca_path), version="59.0")
        admin = client("demo@localorg.test", "localorg-demo")
        trainer = client("trainer@localorg.test", "localorg-trainer")
        hidden = admin.Contact.create({"LastName": "Admin only"})
        mine = trainer.Contact.create({"LastName": "Trainer's"})
        assert [record["LastName"] for record in trainer.query("SELECT LastName FROM Contact")["records"]] == ["Trainer's"]
        assert admin.query("SELECT COUNT() FROM Contact")["totalSize"] == 2
        with pytest.raises(SalesforceResourceNotFound):
            trainer.Contact.get(hidden["id"])
        with pytest.raises(SalesforceMalformedRequest) as refused:
            trainer.Contact.update(hidden["id"], {"Title": "x"})
        assert refused.value.content[0]["errorCode"] == "INSUFFICIENT_ACCESS_OR_READONLY"
        assert admin.Contact.get(mine["id"])["LastName"] == "Trainer's"
    finally:
        assert server.stop() == 0
