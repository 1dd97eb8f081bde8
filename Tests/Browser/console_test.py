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
import tempfile
import time
import unittest
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as conditions
from selenium.webdriver.support.ui import WebDriverWait

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HERALD = os.environ.get("HERALD_BIN", os.path.join(ROOT, ".build", "debug", "herald"))
CHROMEDRIVER = os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")


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
        cls.port = free_port()
        cls.base = f"http://127.0.0.1:{cls.port}"
        cls.server = subprocess.Popen(
            [HERALD, "serve", "--port", str(cls.port), "--database", cls.database, "--log-level", "warning",
             "--user-token-secret", "browser-test-user-token-secret-0123456789"],
            stderr=subprocess.PIPE, text=True)
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
        errors = [entry for entry in self.browser.get_log("browser") if entry["level"] == "SEVERE"
                  and "/console/session" not in entry["message"]]  # the 401 of "not signed in yet"
        self.assertEqual(errors, [], "the page logged errors (a CSP violation would be one)")

    def test_sign_in_reload_and_sign_out(self):
        self.visible("sign-in-form")
        self.browser.save_screenshot(os.path.join(self.screenshots, "sign-in.png"))
        self.sign_in("hk_000000000000_not-a-key")
        self.wait.until(conditions.text_to_be_present_in_element((By.ID, "sign-in-error"), "not valid"))

        self.sign_in(self.key)
        who = self.visible("signed-in-as")
        self.assertIn("console", who.text)
        self.browser.save_screenshot(os.path.join(self.screenshots, "signed-in.png"))
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
