"""The org as the trainer sees it over REST, from inside the server's network namespace: how many
records a query finds, and changes to many records at once (bench_field.py's second day).

Run as `org_rest.py count|edit …` inside ft-server; bench_field.py calls it through `ip netns exec`.
"""
import argparse
import json
import os
import ssl
import subprocess
import sys
import urllib.parse
import urllib.request

TRAINER, TRAINER_PASSWORD = "trainer@localorg.test", "localorg-trainer"


def run_in(namespace, command):
    result = subprocess.run(["ip", "netns", "exec", namespace] + command, capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"bench-field: {' '.join(command)} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}")
    return result


def server_session(url, ca):
    context = ssl.create_default_context(cafile=ca)
    form = urllib.parse.urlencode({"grant_type": "password", "client_id": "forceterm", "username": TRAINER,
                                   "password": TRAINER_PASSWORD}).encode()
    token = json.load(urllib.request.urlopen(urllib.request.Request(url + "/services/oauth2/token", data=form), context=context))["access_token"]
    return context, {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}, url + "/services/data/v62.0"


def server_count(arguments):
    """Run inside ft-server: the totalSize of a SOQL query."""
    context, headers, base = server_session(arguments.url, arguments.ca)
    answer = json.load(urllib.request.urlopen(urllib.request.Request(
        base + "/query?" + urllib.parse.urlencode({"q": arguments.soql}), headers=headers), context=context))
    print(answer["totalSize"])


def server_edit(arguments):
    """Run inside ft-server: changes `count` records of `type` as the trainer, over REST."""
    context, headers, base = server_session(arguments.url, arguments.ca)
    soql = f"SELECT Id FROM {arguments.type} ORDER BY Id LIMIT {arguments.count}"
    ids = [row["Id"] for row in json.load(urllib.request.urlopen(urllib.request.Request(
        base + "/query?" + urllib.parse.urlencode({"q": soql}), headers=headers), context=context))["records"]]
    changed = []
    for start in range(0, len(ids), 200):
        records = [{"attributes": {"type": arguments.type}, "id": id, arguments.field: arguments.value} for id in ids[start:start + 200]]
        body = json.dumps({"allOrNone": True, "records": records}).encode()
        urllib.request.urlopen(urllib.request.Request(base + "/composite/sobjects", data=body, headers=headers, method="PATCH"),
                               context=context).read()
        changed += ids[start:start + 200]
    print(json.dumps(changed))


def count_on_server(server, soql):
    """How many records a SOQL query finds on the server (asked from inside ft-server)."""
    return int(run_in("ft-server", [sys.executable, os.path.abspath(__file__), "count", "--url", server.url, "--ca", server.ca,
                                    "--soql", soql]).stdout)


def change_on_server(server, soup_type, count, field, value):
    output = run_in("ft-server", [sys.executable, os.path.abspath(__file__), "edit", "--url", server.url, "--ca", server.ca,
                                  "--type", soup_type, "--count", str(count), "--field", field, "--value", value]).stdout
    return json.loads(output)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    count = commands.add_parser("count")
    edit = commands.add_parser("edit")
    for command in (count, edit):
        command.add_argument("--url", required=True)
        command.add_argument("--ca", required=True)
    count.add_argument("--soql", required=True)
    for option in ("--type", "--field", "--value"):
        edit.add_argument(option, required=True)
    edit.add_argument("--count", type=int, required=True)
    arguments = parser.parse_args()
    server_count(arguments) if arguments.command == "count" else server_edit(arguments)


if __name__ == "__main__":
    main()
