#!/usr/bin/env python3
"""Turns the REST and Composite requests of Salesforce's published Postman collection into seeds for
localorg's fuzzer (one file per request, in the harness's text format), so the fuzzer starts from
what real clients send. The collection is read where it lies (../shared/real-salesforce); nothing
of it is kept in the project.

Usage: postman_seeds.py COLLECTION.json OUTPUT_DIRECTORY
"""
import json
import pathlib
import re
import sys

VALUES = {"SOBJECT_API_NAME": "Account", "RECORD_ID": "{ACCOUNT}", "USER_ID": "{USER}", "FIELD_NAME": "AccountNumber",
          "FIELD_VALUE": "PM-1", "RELATIONSHIP_FIELD_NAME": "Contacts", "RECORD_TYPE_ID": "012000000000000AAA"}
QUERY_VALUES = {"q": "SELECT Id, Name FROM Account", "ids": "{ACCOUNT}", "fields": "Name,AccountNumber",
                "start": "2020-01-01T00:00:00Z", "end": "2030-01-01T00:00:00Z", "sObjects": "Account", "allOrNone": "false"}


def requests(items, folder=()):
    for item in items:
        if "item" in item:
            yield from requests(item["item"], folder + (item.get("name", ""),))
        elif folder and folder[0] in ("REST", "Composite") and "request" in item:
            yield item["name"], item["request"]


def seed(request):
    url = request.get("url", {})
    raw = url.get("raw", "") if isinstance(url, dict) else url
    path = raw.split("?", 1)[0].replace("{{_endpoint}}", "").replace("{{version}}", "60.0")
    path = re.sub(r":([A-Za-z_]+)", lambda m: VALUES.get(m.group(1), "x1"), path)
    query = "&".join(f"{entry['key']}={entry.get('value') or QUERY_VALUES.get(entry['key'], '')}".replace(" ", "+")
                     for entry in url.get("query", []) if isinstance(url, dict) and not entry.get("disabled"))
    body = (request.get("body") or {}).get("raw", "").replace("{{version}}", "60.0")
    head = f"{request.get('method', 'GET')} {path}{'?' + query if query else ''}\n"
    if body:
        head += "Content-Type: application/json\n"
    return head + "\n" + body


def main():
    collection, output = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    output.mkdir(parents=True, exist_ok=True)
    document = json.loads(collection.read_text())
    count = 0
    for count, (name, request) in enumerate(requests(document.get("item", [])), start=1):
        slug = re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-").lower()
        (output / f"postman-{count:03d}-{slug}.txt").write_text(seed(request))
    print(f"{count} seeds from {collection.name}")


if __name__ == "__main__":
    main()
