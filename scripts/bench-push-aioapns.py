"""The aioapns side of scripts/bench-push.sh: sends COUNT alert pushes, one to each bench
device (the tokens `herald bench push-seed` registers), to the APNs look-alike `herald sandbox`
described by its herald.env, and prints `aioapns <N>/s` (and any failures, counted).

aioapns hard-codes Apple's hosts and port, and mints one provider token per connection; the
sandbox, as strict as APNs, refuses a second new token of one key within 20 minutes
(TooManyProviderTokenUpdates). So this driver points the protocol classes at the sandbox,
trusts its certificate, and lets every connection share one token. Sending is aioapns's
documented way (its examples/client.py): uvloop, and every request started at once, the pool
opening up to CONNECTIONS connections.

    python3 scripts/bench-push-aioapns.py HERALD_ENV COUNT [CONNECTIONS]
"""

import asyncio
import collections
import logging
import os
import ssl
import sys
import time
from urllib.parse import urlparse

import uvloop
from aioapns import APNs, NotificationRequest, PushType, connection

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from herald_sandbox import read_env  # noqa: E402


def point_at_sandbox(base_url):
    url = urlparse(base_url)
    for protocol in (connection.APNsProductionClientProtocol, connection.APNsDevelopmentClientProtocol):
        protocol.APNS_SERVER = url.hostname
        protocol.APNS_PORT = url.port


def share_one_token():
    """Every connection's header provider answers the first one's token (Apple's rule: one
    token per key, refreshed at most every 20 minutes)."""
    original = connection.JWTAuthorizationHeaderProvider.get_header
    shared = {}

    def get_header(self):
        if "header" not in shared:
            shared["header"] = original(self)
        return shared["header"]

    connection.JWTAuthorizationHeaderProvider.get_header = get_header


def device_token(index):
    """As BenchPushSeed.deviceToken: the index in 64 hex digits."""
    return format(index, "064x")


async def main(env_path, count, connections):
    settings = read_env(env_path)
    point_at_sandbox(settings["HERALD_APNS_BASE_URL"])
    share_one_token()
    context = ssl.create_default_context(cafile=settings["HERALD_APNS_CA_FILE"])
    apns = APNs(
        key=settings["HERALD_APNS_KEY_FILE"], key_id=settings["HERALD_APNS_KEY_ID"],
        team_id=settings["HERALD_APNS_TEAM_ID"], topic=settings["HERALD_APNS_TOPIC"],
        max_connections=connections, ssl_context=context)
    # Warm-up: one connection open before the clock starts, as on the herald side.
    await apns.send_notification(NotificationRequest(device_token=device_token(0), message=message(0)))

    async def send(index):
        request = NotificationRequest(
            device_token=device_token(index), message=message(index), push_type=PushType.ALERT)
        try:
            response = await apns.send_notification(request)
            return None if response.is_successful else f"{response.status} {response.description}"
        except Exception as error:  # noqa: BLE001 - counted and printed, the run goes on
            return type(error).__name__

    started = time.monotonic()
    results = await asyncio.gather(*(send(index) for index in range(count)))
    elapsed = time.monotonic() - started
    failures = collections.Counter(result for result in results if result is not None)
    for failure, times in failures.items():
        print(f"  {times} x {failure}", file=sys.stderr)
    print(f"aioapns {int(count / elapsed)}/s ({count} pushes in {elapsed:.2f} s, {sum(failures.values())} failed)")


def message(index):
    """The body herald sends for a bench delivery."""
    return {
        "aps": {"alert": {"title": "Your order shipped", "body": "It arrives on Friday."}, "badge": 1,
                "sound": "default"},
        "orderId": str(index),
    }


if __name__ == "__main__":
    # "Pool is busy, wait..." is logged at every wait for a free stream; failures are counted here.
    logging.getLogger("aioapns").setLevel(logging.CRITICAL)
    uvloop.install()
    asyncio.run(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else 10))
