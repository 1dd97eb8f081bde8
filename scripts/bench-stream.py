#!/usr/bin/env python3
"""Live-update figures for a running or freshly started herald (release build).

Opens N idle SSE streams (default 10,000) spread over users, reads the server's thread count
and resident memory, then publishes notifications to one user at a time and measures how long
each takes to reach that user's open stream. Prints figures; asserts nothing about timing.

    scripts/bench-stream.py [--streams 10000] [--samples 200]

BENCH_HERALD=PATH runs a binary built elsewhere (a before/after in one session) instead of building;
BENCH_SERVE_FLAGS adds flags to `herald serve` (e.g. `--connection-memory 32768`). RSS is read from
/proc/<pid>/status once every stream has its first bytes; the last line is

    stream: <N> streams, idle <A> MiB, open <B> MiB, <C> KiB per stream, <T> threads, p99 <X> ms
"""
import argparse, json, os, resource, selectors, socket, subprocess, sys, tempfile, time, urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def sh(*args):
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def open_stream(port, token):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(f"GET /v1/me/stream HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\nAccept: text/event-stream\r\n\r\n".encode())
    s.setblocking(False)
    return s


def proc_status(pid):
    """The process's thread count and resident memory in KiB."""
    fields = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            fields[key] = value.strip()
    return int(fields["Threads"]), int(fields["VmRSS"].split()[0])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--streams", type=int, default=10_000)
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--port", type=int, default=18090)
    args = parser.parse_args()

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    if hard < args.streams + 100:
        sys.exit(f"the open-file limit {hard} is below {args.streams} streams")

    herald = os.environ.get("BENCH_HERALD")
    if not herald:
        sh("swift", "build", "-c", "release", "--product", "herald")
        herald = os.path.join(sh("swift", "build", "-c", "release", "--show-bin-path").strip(), "herald")
    work = tempfile.mkdtemp()
    db = f"sqlite:{work}/stream.db"
    secret = "stream-bench-user-token-secret-0123456789"
    users = 1000
    key = sh(herald, "keys", "create", "--name", "bench", "--database", db).strip().splitlines()[-1]
    sh(herald, "bench", "tokens", "--users", str(users), "--output", f"{work}/tokens.txt", "--database", db, "--user-token-secret", secret)
    tokens = open(f"{work}/tokens.txt").read().split()
    server = subprocess.Popen([herald, "serve", "--port", str(args.port), "--database", db, "--user-token-secret", secret,
                               "--log-level", "warning", "--max-connections-per-address", "0"] + os.environ.get("BENCH_SERVE_FLAGS", "").split(), stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{args.port}/healthz").read()
                break
            except OSError:
                time.sleep(0.1)
        threads_idle, rss_idle = proc_status(server.pid)

        sel = selectors.DefaultSelector()
        streams = []
        started = time.monotonic()
        for i in range(args.streams):
            s = open_stream(args.port, tokens[i % users])
            streams.append(s)
            sel.register(s, selectors.EVENT_READ, i % users)
        # Wait until every stream has sent its first bytes (headers and the counts event).
        deadline = time.monotonic() + 120
        seen = set()
        while len(seen) < len(streams) and time.monotonic() < deadline:
            for k, _ in sel.select(timeout=1):
                s = k.fileobj
                if s.recv(65536):
                    seen.add(s)
        open_seconds = time.monotonic() - started
        threads_open, rss_open = proc_status(server.pid)

        # Latency: publish to one user, wait for notification.created on one of their streams.
        by_user = {}
        for s in streams:
            by_user.setdefault(sel.get_key(s).data, []).append(s)
        latencies = []
        for n in range(args.samples):
            user = n % users
            target = by_user[user][0]
            body = json.dumps({"recipients": [f"bench-user-{user}"], "type": "order.shipped", "title": f"t{n}", "body": "b"}).encode()
            request = urllib.request.Request(f"http://127.0.0.1:{args.port}/v1/notifications", data=body, method="POST",
                                             headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"})
            t0 = time.monotonic()
            urllib.request.urlopen(request).read()
            got = b""
            while b"notification.created" not in got and time.monotonic() - t0 < 5:
                for k, _ in sel.select(timeout=1):
                    data = k.fileobj.recv(65536)
                    if k.fileobj is target:
                        got += data
            latencies.append((time.monotonic() - t0) * 1000)
        latencies.sort()
        p50 = latencies[len(latencies) // 2]
        p99 = latencies[int(len(latencies) * 0.99) - 1]
        per_stream = (rss_open - rss_idle) / max(1, len(seen))
        print(f"streams: opened {len(seen)}/{args.streams} in {open_seconds:.1f} s; server threads {threads_idle} idle, "
              f"{threads_open} with streams open; RSS {rss_idle / 1024:.1f} MiB -> {rss_open / 1024:.1f} MiB")
        print(f"latency: publish-to-receive p50 {p50:.2f} ms, p99 {p99:.2f} ms, max {latencies[-1]:.2f} ms "
              f"over {len(latencies)} notifications with {len(seen)} streams open")
        print(f"stream: {len(seen)} streams, idle {rss_idle / 1024:.1f} MiB, open {rss_open / 1024:.1f} MiB, "
              f"{per_stream:.1f} KiB per stream, {threads_open} threads, p99 {p99:.2f} ms")
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
