"""The Herald console in a real browser: Debian's headless Chromium driven by Selenium.

Runs a real `herald serve` (the debug build, or HERALD_BIN) on a fresh SQLite database and a free
loopback port. Screenshots of each page go to HERALD_SCREENSHOTS (`make screenshots` sets it to
docs/console/, whose PNGs the README shows), else to the test's own temporary directory.
Selenium is given the driver's path, so it never looks for one on the network.
"""

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.request

# The sandbox helper the Python tests and scripts share.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from herald_sandbox import start_sandbox  # noqa: E402
from selenium import webdriver  # noqa: E402
from selenium.common.exceptions import NoAlertPresentException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as conditions
from selenium.webdriver.support.ui import WebDriverWait

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HERALD = os.environ.get("HERALD_BIN", os.path.join(ROOT, ".build", "debug", "herald"))
CHROMEDRIVER = os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
XSS_CORPORA = os.path.join(os.path.dirname(ROOT), "shared", "corpora", "xss")
APNS_TOKEN = "ab" * 32


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class ConsoleInABrowser(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.work = tempfile.TemporaryDirectory(prefix="herald-browser-")
        cls.screenshots = os.environ.get("HERALD_SCREENSHOTS") or os.path.join(cls.work.name, "screenshots")
        cls.database = "sqlite:" + os.path.join(cls.work.name, "herald.db")
        created = subprocess.run(
            [HERALD, "keys", "create", "--name", "console", "--database", cls.database],
            check=True, capture_output=True, text=True)
        cls.key = created.stdout.strip().splitlines()[-1]
        # The provider look-alikes: pushes go to `herald sandbox`, pointed at by the herald.env it writes.
        cls.sandbox, settings = start_sandbox(HERALD, os.path.join(cls.work.name, "sandbox"))
        environment = dict(os.environ, **settings)
        cls.secret = "browser-test-user-token-secret-0123456789"
        cls.port = free_port()
        cls.base = f"http://127.0.0.1:{cls.port}"
        cls.server = subprocess.Popen(
            [HERALD, "serve", "--port", str(cls.port), "--database", cls.database, "--log-level", "warning",
             "--user-token-secret", cls.secret, "--publisher-rate", "0"],
            stderr=subprocess.PIPE, text=True, env=environment)
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(cls.base + "/healthz", timeout=1).read()
                break
            except OSError:
                if time.monotonic() > deadline or cls.server.poll() is not None:
                    raise RuntimeError("herald serve did not start")
                time.sleep(0.1)
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                         "--window-size=1024,768", "--no-first-run", "--disable-background-networking"]:
            options.add_argument(argument)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        cls.browser = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
        cls.wait = WebDriverWait(cls.browser, 10)
        os.makedirs(cls.screenshots, exist_ok=True)

    @classmethod
    def tearDownClass(cls):
        cls.browser.quit()
        cls.server.terminate()
        cls.server.wait(timeout=20)
        cls.sandbox.terminate()
        cls.sandbox.wait(timeout=20)
        cls.work.cleanup()

    def setUp(self):
        self.browser.delete_all_cookies()
        self.browser.get(self.base + "/console")
        self.browser.get_log("browser")  # start each test with an empty console log

    def visible(self, element_id):
        return self.wait.until(conditions.visibility_of_element_located((By.ID, element_id)))

    def sign_in(self, key):
        field = self.visible("api-key")
        field.clear()
        field.send_keys(key)
        self.browser.find_element(By.CSS_SELECTOR, "#sign-in-form button[type=submit]").click()

    def session_state(self, state):
        self.wait.until(lambda browser: browser.find_element(By.TAG_NAME, "body").get_attribute("data-session")
                        == state)

    def expect_no_console_errors(self):
        # Left out: answers the page handles (the 401 of "not signed in yet", a 400 shown beside its
        # field, the 412 of a conflict), and images that cannot load (a hero image on a host this
        # machine cannot reach). A script error or a CSP violation is never left out.
        handled = ("status of 400", "status of 401", "status of 412", "Failed to load resource: net::")
        errors = [entry for entry in self.browser.get_log("browser") if entry["level"] == "SEVERE"
                  and not (entry.get("source") == "network" and any(h in entry["message"] for h in handled))]
        self.assertEqual(errors, [], "the page logged errors (a CSP violation would be one)")

    def expect_no_dialog(self):
        try:
            alert = self.browser.switch_to.alert
            text = alert.text
            alert.dismiss()
            self.fail(f"a hostile payload opened a dialog: {text!r}")
        except NoAlertPresentException:
            pass
        self.assertIsNone(self.browser.execute_script("return window.__xss ?? null"))

    def call(self, method, path, body=None, key=None, token=None, headers=None):
        request = urllib.request.Request(self.base + path, method=method,
                                         data=None if body is None else json.dumps(body).encode())
        request.add_header("Content-Type", "application/json")
        if key or token:
            request.add_header("Authorization", f"Bearer {key or token}")
        for name, value in (headers or {}).items():
            request.add_header(name, value)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                text = response.read().decode()
                return response.status, (json.loads(text) if text else None), response.headers
        except urllib.error.HTTPError as error:
            text = error.read().decode()
            return error.code, (json.loads(text) if text else None), error.headers

    def user_token(self, user):
        minted = subprocess.run([HERALD, "token", "--user", user, "--user-token-secret", self.secret],
                                check=True, capture_output=True, text=True)
        return minted.stdout.strip().splitlines()[-1]

    def signed_in(self):
        self.sign_in(self.key)
        self.session_state("signed-in")

    def go(self, page):
        self.browser.execute_script("location.hash = arguments[0]", page)
        self.wait.until(lambda browser: browser.find_element(By.TAG_NAME, "body").get_attribute("data-page")
                        == page.split("/")[0])

    def body_state(self, name, value):
        self.wait.until(lambda browser: browser.find_element(By.TAG_NAME, "body").get_attribute(f"data-{name}")
                        == value)

    def type_into(self, element_id, text):
        field = self.browser.find_element(By.ID, element_id)
        field.clear()
        field.send_keys(text)

    def set_value(self, element_id, text):
        self.browser.execute_script(
            "const f = document.getElementById(arguments[0]); f.value = arguments[1];"
            "f.dispatchEvent(new Event('input', {bubbles: true}));", element_id, text)

    def preview_ready(self):
        self.browser.execute_script("document.body.dataset.preview = 'waiting'")
        self.set_value("compose-title", self.browser.find_element(By.ID, "compose-title").get_attribute("value"))
        self.body_state("preview", "ready")

    def shot(self, name):
        """A screenshot of the page from its top (the README shows these)."""
        self.browser.execute_script("window.scrollTo(0, 0)")
        self.browser.save_screenshot(os.path.join(self.screenshots, name))

    def text(self, selector):
        return self.browser.find_element(By.CSS_SELECTOR, selector).text

    def test_compose_shows_every_preview_as_the_server_rules(self):
        self.call("PUT", "/v1/app-config", {"deepLinks": {"allowedPrefixes": ["myapp://orders/"]}}, key=self.key)
        self.signed_in()
        self.go("compose")
        self.type_into("compose-type", "order.shipped")
        self.type_into("compose-title", "Your order shipped")
        self.set_value("compose-body", "Arrives Friday. " * 15)
        self.browser.find_element(By.ID, "add-pair").click()
        self.browser.find_element(By.ID, "pair-key-0").send_keys("orderId")
        self.browser.find_element(By.ID, "pair-value-0").send_keys("123")
        self.type_into("compose-deeplink", "myapp://promo/9")
        self.type_into("detail-hero", "https://images.example/hero.png")
        self.set_value("detail-html", '<p onclick="window.__xss=1">Hello <b>there</b><script>window.__xss=2</script></p>')
        self.type_into("detail-path", "/orders/123")
        self.preview_ready()

        self.assertEqual(self.text("#type-chip"), "Orders")
        self.assertIn("the push shows the first 150", self.text("#body-count"))
        for banner in ["#preview-ios", "#preview-android"]:
            body = self.text(f"{banner} [data-part=body]")
            self.assertTrue(body.endswith("…") and len(body) <= 150, body)
            self.assertEqual(self.text(f"{banner} [data-part=title]"), "Your order shipped")
        row = self.browser.find_element(By.CSS_SELECTOR, "#preview-row .inbox-row")
        self.assertEqual(row.get_attribute("data-chevron"), "yes")
        self.assertEqual(self.text("#preview-row .chip"), "Orders")
        self.assertTrue(self.browser.find_elements(By.CSS_SELECTOR, "#preview-row .unread-dot"))
        detail = self.browser.find_element(By.CSS_SELECTOR, "#preview-detail .detail")
        self.assertEqual(detail.get_attribute("data-layout"), "hero")
        self.assertEqual(self.text("#preview-detail .badge"), "New")
        self.assertEqual(self.text("#preview-detail [data-part=cta]"), "View Details")
        html = self.browser.find_element(By.CSS_SELECTOR, "#preview-detail [data-part=html]")
        self.assertEqual(html.find_element(By.TAG_NAME, "b").text, "there")
        self.assertEqual(html.find_elements(By.CSS_SELECTOR, "script, [onclick]"), [])
        self.assertIn("ignores it", self.text("#deeplink-check"))
        self.shot("compose.png")

        # Links as the server's sanitizer keeps them: mailto and relative stay, javascript: goes.
        self.set_value("detail-html", '<p><a href="mailto:help@example.com">mail</a> <a href="/help">help</a> '
                                      '<a href="java\tscript:window.__xss=3">bad</a></p>')
        self.preview_ready()
        links = self.browser.find_elements(By.CSS_SELECTOR, "#preview-detail [data-part=html] a")
        self.assertEqual([link.get_attribute("href") for link in links],
                         ["mailto:help@example.com", self.base + "/help", None])

        # A plain general notification: no chevron, compact layout, the push text.
        self.type_into("compose-type", "general")
        for field in ["detail-hero", "detail-path", "compose-deeplink"]:
            self.browser.find_element(By.ID, field).clear()
        self.set_value("detail-html", "")
        self.preview_ready()
        self.assertEqual(self.browser.find_element(By.CSS_SELECTOR, "#preview-row .inbox-row")
                         .get_attribute("data-chevron"), "no")
        self.assertEqual(self.browser.find_element(By.CSS_SELECTOR, "#preview-detail .detail")
                         .get_attribute("data-layout"), "compact")
        self.assertIn("Arrives Friday", self.text("#preview-detail [data-part=text]"))

        # A server validation error appears beside its field.
        self.type_into("detail-hero", "http://plain.example/x.png")
        self.body_state("preview", "invalid")
        error = self.browser.find_element(By.CSS_SELECTOR, '[data-error-for="detail.heroImageURL"]')
        self.assertIn("https", error.text)
        self.expect_no_dialog()
        self.expect_no_console_errors()

    def test_send_to_a_user_and_watch_the_timeline_reach_sent(self):
        token = self.user_token("carol")
        status, _, _ = self.call("POST", "/v1/me/devices", {"token": APNS_TOKEN, "provider": "apns",
                                                             "platform": "ios"}, token=token)
        self.assertEqual(status, 200)
        self.signed_in()
        self.go("compose")
        self.type_into("compose-type", "order.shipped")
        self.type_into("compose-title", "Shipped to Carol")
        self.type_into("compose-body", "It arrives Friday")
        self.type_into("audience-user", "carol")
        send = self.browser.find_element(By.ID, "send")
        self.browser.execute_script("arguments[0].click(); arguments[0].click();", send)  # a double click
        link = self.wait.until(conditions.presence_of_element_located((By.CSS_SELECTOR, "#send-status a")))
        time.sleep(0.5)
        status, listed, _ = self.call("GET", "/v1/notifications?userId=carol", key=self.key)
        self.assertEqual(len(listed["items"]), 1, "the double click sent once")
        link.click()
        self.wait.until(lambda browser: "sent" in (browser.find_element(By.ID, "timeline")
                                                   .get_attribute("data-statuses") or "").split())
        self.assertIn("Sent", self.text("#timeline"))
        self.assertIn("Created", self.text("#timeline"))
        # Only the one-line summary is a live region: the redrawn timeline is not announced.
        self.assertEqual(self.text("#timeline-status"), "1 delivery: 1 sent.")
        self.assertIn("apns answered HTTP 200", self.text("#timeline"), "the provider's status")
        self.assertEqual(self.browser.find_elements(By.CSS_SELECTOR, "#timeline[aria-live], #timeline-body[aria-live]"), [])
        self.shot("messages.png")
        self.go("users")
        self.type_into("user-id", "carol")
        self.browser.find_element(By.CSS_SELECTOR, "#user-form button").click()
        self.body_state("user", "loaded")
        self.assertEqual(self.text("#user-heading"), "User carol")
        self.assertIn("active", self.text("#user-result"))
        self.assertIn("Shipped to Carol", self.text("#user-result"))
        self.shot("users.png")
        self.go("overview")
        self.body_state("overview", "loaded")
        self.shot("overview.png")
        self.expect_no_console_errors()

    def test_broadcast_to_a_thousand_users_reaches_100_percent(self):
        self.signed_in()
        self.go("compose")
        self.type_into("compose-type", "announcement.launch")
        self.type_into("compose-title", "We launched")
        self.browser.find_element(By.ID, "push-send").click()  # inbox only
        self.browser.find_element(By.ID, "audience-list-radio").click()
        self.set_value("audience-list", "\n".join(f"fan-{n:04d}" for n in range(1000)))
        self.browser.find_element(By.ID, "send").click()
        confirm = self.visible("confirm-text")
        self.assertIn("1000 listed users", confirm.text)
        self.assertEqual(self.browser.switch_to.active_element.get_attribute("id"), "confirm-cancel",
                         "the safe choice has the focus")
        self.browser.find_element(By.ID, "confirm-send").click()
        self.body_state("broadcast", "completed")
        bar = self.browser.find_element(By.ID, "broadcast-progress")
        self.assertEqual(bar.get_attribute("value"), "100")
        self.assertIn("1000 of 1000 users (100%)", self.text("#broadcast-label"))
        self.browser.execute_script("document.getElementById('broadcast').scrollIntoView()")
        self.browser.save_screenshot(os.path.join(self.screenshots, "broadcast.png"))
        self.expect_no_console_errors()

    def test_two_people_editing_app_config_get_a_conflict(self):
        self.signed_in()
        self.go("app-config")
        self.body_state("config", "loaded")
        self.type_into("allowlist", "myapp://mine/")
        self.browser.find_element(By.CSS_SELECTOR, "#config-form button[type=submit]").click()
        self.visible("config-save")
        self.assertIn("myapp://mine/", self.text("#config-diff .added"))
        # An edit after the review makes its diff stale: Save hides until the next review.
        self.browser.find_element(By.ID, "allowlist").send_keys("x")
        self.assertFalse(self.browser.find_element(By.ID, "config-save").is_displayed())
        self.type_into("allowlist", "myapp://mine/")
        # Leaving the page and coming back keeps unsaved edits.
        self.go("keys")
        self.go("app-config")
        self.wait.until(conditions.text_to_be_present_in_element((By.ID, "config-status"), "not saved yet"))
        self.assertEqual(self.browser.find_element(By.ID, "allowlist").get_attribute("value"), "myapp://mine/")
        self.browser.find_element(By.CSS_SELECTOR, "#config-form button[type=submit]").click()
        self.visible("config-save")
        self.shot("app-config.png")
        # Someone else saves first.
        _, _, headers = self.call("GET", "/v1/app-config/document", key=self.key)
        status, _, _ = self.call("PUT", "/v1/app-config", {"deepLinks": {"allowedPrefixes": ["myapp://theirs/"]}},
                                 key=self.key, headers={"If-Match": headers["ETag"]})
        self.assertEqual(status, 200)
        self.browser.find_element(By.ID, "config-save").click()
        self.body_state("config", "conflict")
        self.assertIn("Someone else saved", self.text("#config-status"))
        _, stored, _ = self.call("GET", "/v1/app-config/document", key=self.key)
        self.assertEqual(stored["deepLinks"]["allowedPrefixes"], ["myapp://theirs/"], "never a silent overwrite")
        self.browser.find_element(By.ID, "config-reload").click()
        self.body_state("config", "loaded")
        self.assertEqual(self.browser.find_element(By.ID, "allowlist").get_attribute("value"), "myapp://theirs/")

    def test_keys_are_created_shown_once_and_revoked(self):
        self.signed_in()
        self.go("keys")
        self.body_state("keys", "loaded")
        self.type_into("key-name", "from-the-console")
        self.browser.find_element(By.CSS_SELECTOR, "#key-form button").click()
        secret = self.visible("new-key").text
        self.assertTrue(secret.startswith("hk_"))
        self.assertEqual(self.call("GET", "/v1/keys", key=secret)[0], 200)
        self.shot("keys.png")
        key_id = "key_" + secret.split("_")[1]
        row = self.wait.until(conditions.presence_of_element_located((By.CSS_SELECTOR, f'tr[data-key="{key_id}"]')))
        row.find_element(By.TAG_NAME, "button").click()
        self.browser.find_element(By.CSS_SELECTOR, f'tr[data-key="{key_id}"] button.danger').click()
        self.wait.until(lambda browser: not browser.find_elements(By.CSS_SELECTOR, f'tr[data-key="{key_id}"]'))
        self.assertEqual(self.call("GET", "/v1/keys", key=secret)[0], 401)

    def test_every_page_is_labelled_keyboard_reachable_and_fits_a_tablet(self):
        from selenium.webdriver.common.keys import Keys
        self.signed_in()
        self.browser.set_window_size(768, 1024)
        try:
            for page in ["overview", "compose", "messages", "users", "app-config", "keys"]:
                self.go(page)
                time.sleep(0.3)
                unlabelled = self.browser.execute_script(
                    """
                    return [...document.querySelectorAll('#app input, #app select, #app textarea, #app button')]
                      .filter((control) => control.offsetParent !== null)
                      .filter((control) => !(control.labels?.length || control.getAttribute('aria-label')
                                              || (control.tagName === 'BUTTON' && control.textContent.trim())))
                      .map((control) => control.id || control.outerHTML.slice(0, 60));
                    """)
                self.assertEqual(unlabelled, [], f"{page}: controls without a label")
                overflow = self.browser.execute_script(
                    "return document.documentElement.scrollWidth - document.documentElement.clientWidth")
                self.assertLessEqual(overflow, 0, f"{page} scrolls sideways at tablet width")
            # A new page puts the focus on its heading; the skip link moves to the content and
            # leaves the page as it is.
            self.go("users")
            self.assertEqual(self.browser.switch_to.active_element.get_attribute("id"), "users-title")
            self.browser.execute_script("document.querySelector('a.skip').click()")
            self.assertEqual(self.browser.switch_to.active_element.get_attribute("id"), "main")
            self.assertEqual(self.browser.find_element(By.TAG_NAME, "body").get_attribute("data-page"), "users")
            self.assertTrue(self.browser.find_element(By.ID, "page-users").is_displayed())
            # The nav is reachable by keyboard: Tab to "Keys" and press Enter.
            self.go("overview")
            self.browser.find_element(By.CSS_SELECTOR, 'nav a[href="#overview"]').send_keys(Keys.TAB * 5)
            focused = self.browser.switch_to.active_element
            self.assertEqual(focused.text, "Keys")
            focused.send_keys(Keys.ENTER)
            self.body_state("page", "keys")
            outline = self.browser.execute_script(
                "return getComputedStyle(document.activeElement).outlineStyle")
            self.assertNotEqual(outline, "none", "the focus is visible")
        finally:
            self.browser.set_window_size(1024, 768)

    def test_hostile_notifications_are_inert_on_every_page(self):
        payloads = []
        for name in sorted(os.listdir(XSS_CORPORA)):
            if name.endswith(".json"):
                with open(os.path.join(XSS_CORPORA, name)) as corpus:
                    payloads.extend(json.load(corpus))
        self.assertGreater(len(payloads), 2000)
        tripwire = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>'
        published = 0
        for payload in payloads:
            title = (payload.strip() or "blank")[:200]
            status, _, _ = self.call("POST", "/v1/notifications", {
                "recipients": ["mallory"], "type": "general", "title": title, "body": payload[:2000],
                "data": {"p": payload[:1000]}, "detail": {"html": payload[:10000] + tripwire}}, key=self.key)
            published += status == 202
        self.assertGreater(published, 2000, "nearly every payload is a valid notification")
        self.signed_in()
        self.expect_no_dialog()
        self.go("messages")
        self.body_state("messages", "loaded")
        more = self.browser.find_element(By.ID, "messages-more")
        while more.is_displayed():
            rows = len(self.browser.find_elements(By.CSS_SELECTOR, "#messages-rows tr"))
            more.click()
            self.wait.until(lambda browser: len(browser.find_elements(By.CSS_SELECTOR, "#messages-rows tr")) > rows)
        self.assertGreaterEqual(len(self.browser.find_elements(By.CSS_SELECTOR, "#messages-rows tr")), published)
        self.expect_no_dialog()
        first = self.browser.find_element(By.CSS_SELECTOR, "#messages-rows tr a")
        first.click()
        self.wait.until(lambda browser: browser.find_element(By.ID, "timeline").get_attribute("data-statuses")
                        is not None)
        self.go("users")
        self.type_into("user-id", "mallory")
        self.browser.find_element(By.CSS_SELECTOR, "#user-form button").click()
        self.body_state("user", "loaded")
        self.expect_no_dialog()
        # The detail page's HTML of every payload, as the server's sanitizer stored it and the
        # preview draws it: through the page's own module.
        rendered = self.browser.execute_async_script(
            """
            const [payloads, done] = [arguments[0], arguments[arguments.length - 1]];
            import("/console/assets/dom.js").then(async (dom) => {
              const box = document.createElement("div");
              document.body.append(box);
              let count = 0;
              for (const payload of payloads) {
                const answer = await dom.api("POST", "/v1/previews",
                  {type: "general", title: "x", body: payload.slice(0, 2000), detail: {html: payload.slice(0, 10000)}});
                if (answer.status !== 200) continue;
                box.append(dom.sanitizedFragment(answer.json.detailPage.html ?? ""));
                box.append(document.createTextNode(answer.json.inboxRow.body));
                count += 1;
              }
              await new Promise((resolve) => setTimeout(resolve, 500));
              done([count, box.querySelectorAll("script, iframe, object, embed, [onerror], [onload], [onclick]").length]);
            });
            """, payloads)
        self.assertGreater(rendered[0], 2000)
        self.assertEqual(rendered[1], 0, "no executable element or handler survived")
        self.go("compose")
        self.set_value("compose-title", tripwire)
        self.set_value("detail-html", tripwire)
        self.preview_ready()
        self.shot("hostile-preview.png")
        self.expect_no_dialog()
        self.expect_no_console_errors()

    def test_sign_in_reload_and_sign_out(self):
        self.visible("sign-in-form")
        self.shot("sign-in.png")
        self.sign_in("hk_000000000000_not-a-key")
        self.wait.until(conditions.text_to_be_present_in_element((By.ID, "sign-in-error"), "not valid"))

        self.sign_in(self.key)
        who = self.visible("signed-in-as")
        self.assertIn("console", who.text)
        self.shot("signed-in.png")
        cookie = self.browser.get_cookie("herald_console")
        self.assertTrue(cookie["httpOnly"])
        self.assertEqual(cookie["sameSite"], "Strict")
        self.assertEqual(self.browser.execute_script("return document.cookie"), "", "script cannot read it")

        self.browser.refresh()
        self.session_state("signed-in")
        self.assertIn("console", self.visible("signed-in-as").text, "a reload keeps the session")
        self.expect_no_console_errors()

        self.visible("sign-out").click()
        self.wait.until(conditions.text_to_be_present_in_element((By.ID, "sign-in-error"), "Signed out."))
        self.assertIsNone(self.browser.get_cookie("herald_console"))

    def test_the_same_compose_sent_again_is_answered_as_already_sent(self):
        self.signed_in()
        self.go("compose")
        self.type_into("compose-type", "general")
        self.type_into("compose-title", "Once only")
        self.type_into("audience-user", "erin")
        self.browser.find_element(By.ID, "send").click()
        self.wait.until(conditions.text_to_be_present_in_element((By.ID, "send-status"), "Sent to erin"))
        first = self.text("#send-status")
        self.assertNotIn("already sent", first)
        self.browser.find_element(By.ID, "send").click()
        self.wait.until(conditions.text_to_be_present_in_element((By.ID, "send-status"), "already sent"))
        self.assertEqual(len(self.call("GET", "/v1/notifications?userId=erin", key=self.key)[1]["items"]), 1)
        # Another audience is another send, with its own key.
        self.type_into("audience-user", "frank")
        self.browser.find_element(By.ID, "send").click()
        self.wait.until(conditions.text_to_be_present_in_element((By.ID, "send-status"), "Sent to frank"))
        self.assertNotIn("already sent", self.text("#send-status"))
        self.assertEqual(len(self.call("GET", "/v1/notifications?userId=frank", key=self.key)[1]["items"]), 1)
        self.expect_no_console_errors()

    def test_signing_out_leaves_nothing_of_the_session_on_the_page(self):
        self.signed_in()
        self.go("keys")
        self.body_state("keys", "loaded")
        self.type_into("key-name", "shown-once")
        self.browser.find_element(By.CSS_SELECTOR, "#key-form button").click()
        secret = self.visible("new-key").text
        self.go("users")
        self.type_into("user-id", "erin")
        self.browser.find_element(By.CSS_SELECTOR, "#user-form button").click()
        self.body_state("user", "loaded")
        self.go("app-config")
        self.body_state("config", "loaded")
        self.type_into("allowlist", "myapp://draft/")
        self.go("compose")
        self.type_into("compose-title", "A draft")
        self.go("messages")
        self.body_state("messages", "loaded")
        self.visible("sign-out").click()
        self.session_state("signed-out")
        left = self.browser.execute_script(
            """
            const text = (id) => document.getElementById(id).textContent;
            const value = (id) => document.getElementById(id).value;
            return [text("key-secret"), text("keys-rows"), text("user-result"), text("messages-rows"),
                    text("overview-body"), value("allowlist"), value("compose-title"), value("user-id")];
            """)
        self.assertEqual(left, [""] * 8)
        self.assertNotIn(secret, self.browser.page_source)
        self.signed_in()
        self.go("keys")
        self.body_state("keys", "loaded")
        self.assertFalse(self.browser.find_element(By.ID, "key-secret").is_displayed())
        self.assertEqual(self.call("DELETE", "/v1/keys/key_" + secret.split("_")[1], key=self.key)[0], 204)

    def test_a_post_without_the_csrf_token_is_refused(self):
        self.sign_in(self.key)
        self.visible("signed-in-as")
        body = json.dumps({"recipients": ["alice"], "type": "order.shipped", "title": "t", "body": "b"})
        status = self.browser.execute_async_script(
            """
            const done = arguments[arguments.length - 1];
            fetch("/v1/notifications", {method: "POST", headers: {"Content-Type": "application/json"},
                                        body: arguments[0], credentials: "same-origin"})
              .then((response) => done(response.status), () => done(-1));
            """, body)
        self.assertEqual(status, 403)

    def test_revoking_the_key_signs_the_console_out(self):
        created = subprocess.run(
            [HERALD, "keys", "create", "--name", "to-revoke", "--database", self.database],
            check=True, capture_output=True, text=True)
        key = created.stdout.strip().splitlines()[-1]
        self.sign_in(key)
        self.assertIn("to-revoke", self.visible("signed-in-as").text)
        key_id = "key_" + key.split("_")[1]
        subprocess.run([HERALD, "keys", "revoke", key_id, "--database", self.database], check=True,
                       capture_output=True)
        self.browser.refresh()
        self.session_state("signed-out")
        self.visible("sign-in-form")
        self.assertFalse(self.browser.find_element(By.ID, "signed-in-as").is_displayed())

    def test_the_page_is_never_framed(self):
        policy = urllib.request.urlopen(self.base + "/console").headers["Content-Security-Policy"]
        self.assertIn("frame-ancestors 'none'", policy)
        self.assertNotIn("unsafe-inline", policy)


if __name__ == "__main__":
    unittest.main(verbosity=2)
