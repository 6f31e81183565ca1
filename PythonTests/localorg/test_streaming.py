"""localorg's Streaming API driven by a CometD client nobody here wrote: PyPI's aiosfstream-ng
(Salesforce's replay extension on aiocometd). It subscribes to /data/ContactChangeEvent, receives
the event of a trainer's `localorg edit` with Salesforce's header, and gets the same event again
by its replayId after reconnecting, as a subscriber back from a dropped link does.

The subscriber runs in a process of its own: aiohttp reads the CA to trust (SSL_CERT_FILE) once,
when it is imported.
"""
import json
import os
import queue
import subprocess
import sys
import textwrap
import threading

from conftest import run_cli

SUBSCRIBER = textwrap.dedent("""
    import asyncio, json, sys
    from aiosfstream_ng import Client, ReplayMarker, ReplayOption
    from aiosfstream_ng.auth import PasswordAuthenticator

    class LocalOrgAuthenticator(PasswordAuthenticator):
        def __init__(self, url, **kwargs):
            super().__init__(**kwargs)
            self.url = url

        @property
        def _token_url(self):
            return self.url + "/services/oauth2/token"

    async def main(url, channel, replay_from, count):
        auth = LocalOrgAuthenticator(url, consumer_key="forceterm", consumer_secret="",
                                     username="demo@localorg.test", password="localorg-demo")
        replay = {channel: ReplayMarker(date="", replay_id=replay_from)} if replay_from is not None else ReplayOption.NEW_EVENTS
        async with Client(auth, replay=replay) as client:
            await client.subscribe(channel)
            print("subscribed", flush=True)
            received = 0
            async for message in client:
                print(json.dumps(message), flush=True)
                received += 1
                if received >= count:
                    return

    url, channel, replay_from, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    asyncio.run(asyncio.wait_for(main(url, channel, None if replay_from == "new" else int(replay_from), count), 60))
""")


class Subscriber:
    """aiosfstream-ng in a child process, its printed lines in a queue."""

    def __init__(self, org, channel, replay_from="new", count=1):
        environment = dict(os.environ, SSL_CERT_FILE=org.ca_path, NO_PROXY="*")
        self.process = subprocess.Popen([sys.executable, "-c", SUBSCRIBER, org.url, channel, str(replay_from), str(count)],
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment)
        self.lines = queue.Queue()
        threading.Thread(target=lambda: [self.lines.put(line) for line in self.process.stdout], daemon=True).start()

    def next_line(self, timeout=30):
        try:
            return self.lines.get(timeout=timeout).strip()
        except queue.Empty:
            self.process.kill()
            raise AssertionError("no line from aiosfstream-ng: " + self.process.stderr.read())

    def finish(self):
        assert self.process.wait(timeout=30) == 0, self.process.stderr.read()


def first_contact(sf):
    return sf.query("SELECT Id, Title FROM Contact ORDER BY Id LIMIT 1")["records"][0]["Id"]


def test_aiosfstream_receives_a_trainer_edit_and_replays_it_by_replay_id(org, sf):
    contact = first_contact(sf)
    live = Subscriber(org, "/data/ContactChangeEvent")
    assert live.next_line() == "subscribed"
    edited = run_cli(org.data_dir, "edit", "Contact", contact, "Title=Streamed to the room")
    assert edited.returncode == 0, edited.stderr
    message = json.loads(live.next_line())
    live.finish()
    assert message["channel"] == "/data/ContactChangeEvent"
    payload = message["data"]["payload"]
    header = payload["ChangeEventHeader"]
    assert header["entityName"] == "Contact" and header["recordIds"] == [contact] and header["changeType"] == "UPDATE"
    assert set(header["changedFields"]) == {"Title", "LastModifiedDate"}
    assert header["commitUser"].startswith("005") and header["transactionKey"] and header["sequenceNumber"] == 1
    assert header["commitTimestamp"] > 1_700_000_000_000, "milliseconds since 1970"
    assert payload["Title"] == "Streamed to the room"
    replay_id = message["data"]["event"]["replayId"]

    # Back after a drop: subscribing from the replay id before it brings the same event again.
    again = Subscriber(org, "/data/ContactChangeEvent", replay_from=replay_id - 1)
    assert again.next_line() == "subscribed"
    replayed = json.loads(again.next_line())
    again.finish()
    assert replayed["data"]["event"]["replayId"] == replay_id
    assert replayed["data"]["payload"]["ChangeEventHeader"]["recordIds"] == [contact]


def test_an_api_create_and_delete_reach_the_all_changes_channel_with_their_origin(org, sf):
    live = Subscriber(org, "/data/ChangeEvents", count=2)
    assert live.next_line() == "subscribed"
    # Salesforce names the client in changeOrigin only when the request's Call Options header does.
    created = sf.Account.create({"Name": "Streaming Sails"}, headers={"Sforce-Call-Options": "client=pytest-sails/1.0"})
    sf.Account.delete(created["id"])
    events = [json.loads(live.next_line()) for _ in range(2)]
    live.finish()
    headers = [event["data"]["payload"]["ChangeEventHeader"] for event in events]
    assert [header["changeType"] for header in headers] == ["CREATE", "DELETE"]
    assert all(header["recordIds"] == [created["id"]] and header["entityName"] == "Account" for header in headers)
    assert headers[0]["changedFields"] == [] and events[0]["data"]["payload"]["Name"] == "Streaming Sails"
    assert headers[0]["changeOrigin"].startswith("com/salesforce/api/rest/") and headers[0]["changeOrigin"].endswith(";client=pytest-sails/1.0")
    # The delete named no client: the API and its version only.
    assert headers[1]["changeOrigin"].startswith("com/salesforce/api/rest/") and ";client=" not in headers[1]["changeOrigin"]
