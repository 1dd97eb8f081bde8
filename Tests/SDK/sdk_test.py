"""The providers' official SDKs against `herald sandbox`: aioapns (APNs), firebase-admin (FCM HTTP
v1 and Google's OAuth token endpoint) and exponent_server_sdk (Expo), from PyPI, unpatched.

Each SDK gets only what a developer gives it to reach a server other than the real one: its
endpoint pointed at the sandbox (aioapns's protocol classes name the host and port;
firebase-admin's messaging service names the FCM URL and the service account names the token
URI; exponent_server_sdk takes `host`) and the sandbox's CA trusted (an SSL context for aioapns,
REQUESTS_CA_BUNDLE for requests, SSL_CERT_FILE for httpx). Transports, scopes, audiences and
payloads are the SDKs' own. What the sandbox accepted is read back from its admin endpoints.

Runs the debug build's `herald sandbox` (or HERALD_BIN) on a free loopback port.
"""

import asyncio
import gzip
import json
import os
import ssl
import sys
import tempfile
import time
import unittest
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from herald_sandbox import start_sandbox  # noqa: E402
HERALD = os.environ.get("HERALD_BIN", os.path.join(ROOT, ".build", "debug", "herald"))

APNS_TOKEN = "c0ffee" * 10 + "beef"
FCM_TOKEN = "fcm-sdk-token:APA91b" + "x" * 40
EXPO_TOKEN = "ExponentPushToken[sdk-test-token-1]"
EXPO_GZIP_TOKEN = "ExponentPushToken[sdk-test-token-2]"


class OfficialSDKsAgainstTheSandbox(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.work = tempfile.TemporaryDirectory(prefix="herald-sdk-")
        cls.sandbox, cls.env = start_sandbox(HERALD, os.path.join(cls.work.name, "sandbox"))
        cls.base = cls.env["HERALD_EXPO_BASE_URL"]
        cls.ca_file = cls.env["HERALD_APNS_CA_FILE"]
        # Trust the sandbox's certificate, as a developer would: requests (firebase-admin's sends,
        # google-auth's token refresh, exponent_server_sdk) and httpx (firebase-admin's async sends).
        os.environ["REQUESTS_CA_BUNDLE"] = cls.ca_file
        os.environ["SSL_CERT_FILE"] = cls.ca_file
        cls.admin_context = ssl.create_default_context(cafile=cls.ca_file)

    @classmethod
    def tearDownClass(cls):
        cls.sandbox.terminate()
        cls.sandbox.wait(timeout=30)
        cls.work.cleanup()

    def admin(self, path, method="GET", body=None):
        request = urllib.request.Request(
            self.base + path, method=method, data=None if body is None else json.dumps(body).encode(),
            headers={"content-type": "application/json"})
        with urllib.request.urlopen(request, context=self.admin_context, timeout=10) as answer:
            text = answer.read()
        return json.loads(text) if text else None

    # APNs

    def test_aioapns_sends_an_alert_with_every_field_and_a_background_update(self):
        from aioapns import APNs, NotificationRequest, PushType, connection

        host, port = self.base.removeprefix("https://").split(":")
        for protocol in (connection.APNsProductionClientProtocol, connection.APNsDevelopmentClientProtocol):
            protocol.APNS_SERVER = host
            protocol.APNS_PORT = int(port)

        async def send():
            # One client, one connection: the sandbox, as APNs, takes one new provider token per
            # key every 20 minutes, and aioapns makes one per connection.
            with open(self.env["HERALD_APNS_KEY_FILE"]) as key:
                signing_key = key.read()
            apns = APNs(
                key=signing_key, key_id=self.env["HERALD_APNS_KEY_ID"],
                team_id=self.env["HERALD_APNS_TEAM_ID"], topic=self.env["HERALD_APNS_TOPIC"],
                max_connections=1, ssl_context=ssl.create_default_context(cafile=self.ca_file))
            alert = NotificationRequest(
                device_token=APNS_TOKEN, notification_id="0190a3f4-7b6c-7def-8123-456789abcdef",
                message={
                    "aps": {
                        "alert": {"title": "Your order shipped", "subtitle": "Order 42", "body": "Arrives Friday"},
                        "sound": {"name": "chime.caf", "critical": 1, "volume": 0.8},
                        "badge": 3, "thread-id": "order-42", "category": "ORDER_ACTIONS",
                        "mutable-content": 1, "interruption-level": "time-sensitive", "relevance-score": 0.7,
                    },
                    "imageURL": "https://cdn.example.com/parcel.png", "notificationId": "n-1",
                },
                time_to_live=3600, priority=10, collapse_key="order-42", push_type=PushType.ALERT)
            background = NotificationRequest(
                device_token=APNS_TOKEN, message={"aps": {"content-available": 1}, "refresh": "inbox"},
                priority=5, push_type=PushType.BACKGROUND)
            results = [await apns.send_notification(alert), await apns.send_notification(background)]
            return results

        results = asyncio.run(send())
        self.assertEqual([result.is_successful for result in results], [True, True],
                         [result.description for result in results])
        accepted = [item for item in self.admin("/admin/apns/accepted")["accepted"]
                    if item["deviceToken"] == APNS_TOKEN]
        self.assertEqual(len(accepted), 2, accepted)
        alert, background = accepted
        self.assertEqual(alert["apnsId"].lower(), "0190a3f4-7b6c-7def-8123-456789abcdef")
        self.assertEqual(alert["payload"]["aps"]["interruption-level"], "time-sensitive")
        self.assertEqual(alert["payload"]["aps"]["sound"]["critical"], 1)
        self.assertEqual(alert["pushType"], "alert")
        self.assertEqual(alert["collapseId"], "order-42")
        self.assertEqual(alert["payload"]["imageURL"], "https://cdn.example.com/parcel.png")
        self.assertEqual(background["pushType"], "background")
        self.assertEqual(background["priority"], 5)

    # FCM

    def firebase_app(self, name):
        import firebase_admin
        from firebase_admin import credentials, messaging

        # The only change from Google's service: the FCM URL (the token URI is in the account file).
        messaging._MessagingService.FCM_URL = self.base + "/v1/projects/{0}/messages:send"
        account = credentials.Certificate(self.env["HERALD_FCM_SERVICE_ACCOUNT"])
        return firebase_admin.initialize_app(account, name=name)

    def fcm_message(self, token, label):
        from firebase_admin import messaging

        return messaging.Message(
            token=token, data={"notificationId": label, "type": "order.shipped"},
            notification=messaging.Notification(
                title="Your order shipped", body="Arrives Friday", image="https://cdn.example.com/parcel.png"),
            android=messaging.AndroidConfig(
                priority="high", ttl=3600, collapse_key="order-42",
                notification=messaging.AndroidNotification(
                    channel_id="orders", click_action="ORDER_ACTIONS", sound="default", tag="order-42",
                    notification_count=2, visibility="private", priority="high"),
                fcm_options=messaging.AndroidFCMOptions(analytics_label="orders")),
            apns=messaging.APNSConfig(
                headers={"apns-priority": "10"},
                payload=messaging.APNSPayload(aps=messaging.Aps(
                    alert=messaging.ApsAlert(title="Your order shipped", subtitle="Order 42"),
                    badge=2, sound=messaging.CriticalSound("chime.caf", critical=True, volume=0.8),
                    category="ORDER_ACTIONS", thread_id="order-42", mutable_content=True)),
                fcm_options=messaging.APNSFCMOptions(analytics_label="orders", image="https://cdn.example.com/a.png")),
            webpush=messaging.WebpushConfig(
                headers={"TTL": "3600"}, data={"k": "v"},
                notification=messaging.WebpushNotification(title="Web", body="Body"),
                fcm_options=messaging.WebpushFCMOptions(link="https://example.com/orders/42")),
            fcm_options=messaging.FCMOptions(analytics_label="orders"))

    def test_firebase_admin_sends_over_http1_and_http2_with_its_own_token_and_payload(self):
        from firebase_admin import messaging

        app = self.firebase_app("sdk-send")
        if True:  # The app is not deleted: its async client's connections belong to a closed loop.
            name = messaging.send(self.fcm_message(FCM_TOKEN, "sync"), app=app)
            self.assertTrue(name.startswith("projects/"), name)
            dry = messaging.send(self.fcm_message(FCM_TOKEN, "dry"), dry_run=True, app=app)
            self.assertTrue(dry.startswith("projects/"), dry)
            # send_each_async speaks HTTP/2 through httpx.
            batch = asyncio.run(messaging.send_each_async(
                [self.fcm_message(FCM_TOKEN, "async-1"), self.fcm_message(FCM_TOKEN, "async-2")],
                dry_run=False, app=app))
            self.assertEqual(batch.success_count, 2, [r.exception for r in batch.responses])
            # A token the sandbox was told to refuse as unregistered: the SDK's own error type.
            self.admin("/admin/fcm/faults", "POST", {"deviceToken": FCM_TOKEN + "-gone", "fault": "unregistered"})
            with self.assertRaises(messaging.UnregisteredError):
                messaging.send(self.fcm_message(FCM_TOKEN + "-gone", "gone"), app=app)
        accepted = [item for item in self.admin("/admin/fcm/accepted")["accepted"] if item["token"] == FCM_TOKEN]
        labels = sorted(item["message"]["data"]["notificationId"] for item in accepted)
        self.assertEqual(labels, ["async-1", "async-2", "sync"])
        sync = next(item for item in accepted if item["message"]["data"]["notificationId"] == "sync")
        self.assertEqual(sync["message"]["android"]["priority"], "high")
        self.assertEqual(sync["message"]["fcm_options"]["analytics_label"], "orders")
        self.assertEqual(sync["message"]["android"]["notification"]["channel_id"], "orders")

    # Expo

    def expo_client(self):
        import requests
        from exponent_server_sdk import PushClient

        session = requests.Session()
        # The access token, as the SDK's README shows for enhanced push security.
        session.headers.update({
            "Authorization": "Bearer " + self.env["HERALD_EXPO_ACCESS_TOKEN"],
            "accept": "application/json", "accept-encoding": "gzip, deflate", "content-type": "application/json",
        })
        return PushClient(host=self.base, session=session)

    def test_exponent_server_sdk_sends_every_field_and_reads_receipts(self):
        from exponent_server_sdk import PushMessage, PushTicketError

        client = self.expo_client()
        tickets = client.publish_multiple([
            PushMessage(
                to=EXPO_TOKEN, title="Your order shipped", body="Arrives Friday", data={"notificationId": "e-1"},
                sound="default", ttl=3600, expiration=int(time.time()) + 3600, priority="high", badge=2,
                category="ORDER_ACTIONS", display_in_foreground=True, channel_id="orders", subtitle="Order 42",
                mutable_content=True),
            PushMessage(to=EXPO_TOKEN, body="Second", data={"notificationId": "e-2"}),
        ])
        for ticket in tickets:
            ticket.validate_response()
        receipts = client.check_receipts_multiple(tickets)
        self.assertEqual([receipt.status for receipt in receipts], ["ok", "ok"])
        # Over 4,096 bytes: Expo's MessageTooBig ticket, which the SDK raises as a ticket error.
        [big] = client.publish_multiple([PushMessage(to=EXPO_TOKEN, body="x" * 5000)])
        self.assertEqual(big.details["error"], "MessageTooBig")
        with self.assertRaises(PushTicketError):
            big.validate_response()
        accepted = [item for item in self.admin("/admin/expo/accepted")["accepted"] if item["to"] == EXPO_TOKEN]
        self.assertEqual([item["message"]["data"]["notificationId"] for item in accepted], ["e-1", "e-2"])
        self.assertEqual(accepted[0]["message"]["categoryId"], "ORDER_ACTIONS")
        self.assertEqual(accepted[0]["message"]["_displayInForeground"], True)

    def test_expo_takes_a_gzip_body_as_expo_s_sdks_send_it(self):
        messages = [{"to": EXPO_GZIP_TOKEN, "title": "Zipped", "body": "b" * 2000, "data": {"notificationId": "gz"}}]
        request = urllib.request.Request(
            self.base + "/--/api/v2/push/send", method="POST", data=gzip.compress(json.dumps(messages).encode()),
            headers={"content-type": "application/json", "content-encoding": "gzip",
                     "authorization": "Bearer " + self.env["HERALD_EXPO_ACCESS_TOKEN"]})
        with urllib.request.urlopen(request, context=self.admin_context, timeout=10) as answer:
            self.assertEqual(json.loads(answer.read())["data"][0]["status"], "ok")
        corrupt = urllib.request.Request(
            self.base + "/--/api/v2/push/send", method="POST", data=b"\x1f\x8bnot gzip",
            headers={"content-type": "application/json", "content-encoding": "gzip",
                     "authorization": "Bearer " + self.env["HERALD_EXPO_ACCESS_TOKEN"]})
        with self.assertRaises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(corrupt, context=self.admin_context, timeout=10)
        self.assertEqual(refused.exception.code, 400)


if __name__ == "__main__":
    unittest.main(verbosity=2)
