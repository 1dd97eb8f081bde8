# Herald: the two commands.
#   make run   installs what is missing, builds in release mode and starts the server
#   make test  installs what is missing, builds and runs every test
.PHONY: run test deps build release lint format bench-inbox venv browser-test sdk-test screenshots

SWIFT ?= swift
# libcurl4: FoundationNetworking (URLSession on Linux, used by HeraldKit) loads it at run time.
# libnghttp2-dev: HeraldHTTP2, the one HTTP/2 core of the push client and the sandbox (the
# push transport tests run against the sandbox's own HTTP/2 server).
# zlib1g-dev: the sandbox's gzip request bodies (Expo's).
# libpq-dev: the PostgreSQL store. postgresql: the server binaries of the tests' throwaway cluster.
# chromium, chromium-driver, python3-venv: the console's browser tests (Selenium from PyPI in .venv).
DEBIAN_PACKAGES := libmicrohttpd-dev libsqlite3-dev libssl-dev libcurl4 curl libnghttp2-dev \
	pkg-config wrk libpq-dev postgresql zlib1g-dev chromium chromium-driver python3-venv
SELENIUM := selenium==4.51.0
# The providers' official SDKs that the sandbox must satisfy, unpatched (Tests/SDK/sdk_test.py).
PROVIDER_SDKS := aioapns==4.0 exponent_server_sdk==2.2.0 firebase-admin==7.7.0

deps:
	@missing=""; for p in $(DEBIAN_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		SUDO=$$( [ "$$(id -u)" -eq 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

run: release
	@scripts/run-dev.sh

# Zero warnings is a rule: the test build treats them as errors. A hung test fails the run
# after 30 minutes instead of holding CI to its limit. Swift Testing runs at most 6 tests at
# once: unbounded, ~150 suites (servers, sandboxes, child processes) on 2 cores starved the
# cooperative threads for more than 10 s on a loaded machine; 6 is as fast and never did.
# The tests get a throwaway PostgreSQL cluster (HERALD_TEST_POSTGRES_URL), removed afterwards
# even when they fail.
test: deps
	$(SWIFT) build --build-tests -Xswiftc -warnings-as-errors
	SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=6 scripts/pg-test-cluster.sh run timeout 1800 $(SWIFT) test --skip-build
	$(MAKE) --no-print-directory sdk-test
	$(MAKE) --no-print-directory browser-test

# The Python environment of the browser and SDK tests, from PyPI: Selenium (given the driver's
# path, /usr/bin/chromedriver, so it never downloads one) and the providers' SDKs.
venv:
	@.venv/bin/python -c "import selenium, aioapns, exponent_server_sdk, firebase_admin" 2>/dev/null || \
		{ python3 -m venv .venv && .venv/bin/pip install -q "$(SELENIUM)" $(PROVIDER_SDKS); }

# aioapns, firebase-admin and exponent_server_sdk against `herald sandbox` (the debug build).
sdk-test: deps venv
	timeout 300 .venv/bin/python -W ignore::DeprecationWarning -W ignore::ResourceWarning Tests/SDK/sdk_test.py

# The console in headless Chromium against a real herald serve (the debug build).
browser-test: deps venv
	timeout 600 .venv/bin/python Tests/Browser/console_test.py

# The README's console screenshots (docs/console/*.png), taken by the browser tests.
screenshots: deps venv
	$(SWIFT) build
	HERALD_SCREENSHOTS=docs/console .venv/bin/python Tests/Browser/console_test.py

lint:
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests

format:
	$(SWIFT) format --in-place --recursive Package.swift Sources Tests

bench-inbox: release
	scripts/bench-inbox.sh
