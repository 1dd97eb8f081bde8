#!/usr/bin/env python3
"""Where a 1,000-recipient publish's writes go, page by page (SQLite).

Copies a database seeded by `scripts/bench-publish.sh` (BENCH_SEEDED=FILE keeps one), then
runs ROUNDS publish-shaped transactions on the copy, each to the 1,000 users `herald bench
push-seed` made: 1,000 notification rows (with their list JSON), 1,000 stream events, 1,000
delivery rows and the counters, the same rows and indexes the server's publish writes, as
`INSERT ... SELECT` statements. As `herald serve` does, it turns SQLite's automatic
checkpoint off and checkpoints between transactions (passively), so each commit's WAL frames
are that transaction's alone. After the last round it reads the page number of every frame of
the last commit from the WAL and maps it to its table or index with `dbstat`.

It prints the statements' times and the pages per b-tree of the last round, then times the
inbox page the server reads most (20 items and one more, newest first, through
`notifications_inbox`, as `InboxStatements.pageQuery` asks for it) for seeded users, and ends with
`publish pages: <P> pages (<M> MiB) per publish, statements <S> ms, commit <C> ms, page read <R> us`.

    scripts/publish-pages.py SEEDED_DB [--rounds 40] [--ddl "DROP INDEX notifications_user"]

`--ddl` runs statements on the copy first (a variant to measure: an index dropped or changed,
`PRAGMA page_size` with `VACUUM`). The rounds give the recipients a history: their index
entries spread over more pages as it grows, and the page count with it.

`--shared-list` measures a layout not built: the list JSON stored once per publish (a
`notification_lists` row) instead of in every recipient's row and inbox index entry, which
then name it (`list_id`); the page read joins it (the server would splice each row's id into
it). The seeded rows each get a list row of their own (the worst case for the read: no two of a
user's items share one), and the table's copy of the list JSON is emptied.
"""

import argparse
import collections
import os
import shutil
import sqlite3
import struct
import sys
import tempfile
import time

RECIPIENTS = 1000
READS = 20_000
PAGE_QUERY = """SELECT seq, list_json, read_at, seen_at FROM notifications INDEXED BY notifications_inbox
    WHERE user_id = ? AND deleted_at IS NULL AND hidden = 0 AND seq < 9223372036854775807
    ORDER BY seq DESC LIMIT 21"""
LIST_JSON = (
    '{"id":"00000000-0000-7000-8000-000000000000","type":"order.shipped","category":null,'
    '"title":"Your order shipped","body":"It arrives on Friday.","data":{"orderId":"42"},'
    '"deepLink":null,"hasDetail":false,"createdAt":"2026-12-07T00:00:00Z"'
)


SHARED_LIST_DDL = """
CREATE TABLE notification_lists (id INTEGER PRIMARY KEY, list_json TEXT NOT NULL);
INSERT INTO notification_lists (id, list_json) SELECT seq, list_json FROM notifications;
ALTER TABLE notifications ADD COLUMN list_id INTEGER;
UPDATE notifications SET list_id = seq, list_json = '';
DROP INDEX notifications_inbox;
CREATE INDEX notifications_inbox ON notifications (
    user_id, seq, list_id, read_at, seen_at, deleted_at, hidden
) WHERE deleted_at IS NULL AND hidden = 0;
VACUUM;
"""
SHARED_PAGE_QUERY = """SELECT n.seq, l.list_json, n.read_at, n.seen_at
    FROM notifications AS n INDEXED BY notifications_inbox JOIN notification_lists AS l ON l.id = n.list_id
    WHERE n.user_id = ? AND n.deleted_at IS NULL AND n.hidden = 0 AND n.seq < 9223372036854775807
    ORDER BY n.seq DESC LIMIT 21"""


def publish(db, round_number, shared_list=False):
    """One publish's statements in one transaction; answers each statement's seconds."""
    key = f"zz{round_number:05d}"
    now = 1_765_000_000_000 + round_number
    # Shared: one list row for the publish, which each recipient's row names instead of a copy.
    lists = [("list", "INSERT INTO notification_lists (list_json) VALUES (?)", (LIST_JSON,))] if shared_list else []
    list_columns, list_values, list_parameters = (
        ("list_json, list_id", "'', last_insert_rowid()", ()) if shared_list else ("list_json", "?", (LIST_JSON,)))
    notifications = lists + [(
        "notifications",
        f"""INSERT INTO notifications (id, user_id, type, category, hidden, title, body, data,
               deep_link, detail, has_detail, push, created_at, {list_columns})
           SELECT ? || printf('%06d', i), 'bench-push-user-' || i, 'order.shipped', NULL, 0,
               'Your order shipped', 'It arrives on Friday.', '{{"orderId":"42"}}', NULL, NULL, 0,
               '{{"send":true}}', ?, {list_values} FROM recipients""",
        (key, now) + list_parameters,
    )]
    statements = notifications + [
        (
            "stream events",
            """INSERT INTO stream_events (user_id, kind, payload, created_at)
               SELECT 'bench-push-user-' || i, 'notification.created', ?, ? FROM recipients""",
            (LIST_JSON + "}", now),
        ),
        (
            "deliveries",
            """INSERT INTO deliveries (id, notification_id, user_id, device_token, provider, platform,
                   environment, status, attempts, next_attempt_at, expires_at, created_at, updated_at)
               SELECT 'd' || ? || printf('%06d', i), ? || printf('%06d', i), 'bench-push-user-' || i,
                   'token' || i, 'apns', 'ios', 'production', 'queued', 0, ?, NULL, ?, ?
               FROM recipients""",
            (key, key, now, now, now),
        ),
        (
            "counters",
            """INSERT INTO user_counters (user_id, unread, unseen)
               SELECT 'bench-push-user-' || i, 1, 1 FROM recipients WHERE true
               ON CONFLICT (user_id) DO UPDATE SET unread = user_counters.unread + excluded.unread,
                   unseen = user_counters.unseen + excluded.unseen""",
            (),
        ),
    ]
    times = []
    db.execute("BEGIN IMMEDIATE")
    for name, sql, parameters in statements:
        started = time.perf_counter()
        db.execute(sql, parameters)
        times.append((name, time.perf_counter() - started))
    started = time.perf_counter()
    db.execute("COMMIT")
    times.append(("commit", time.perf_counter() - started))
    return times


def last_commit_pages(wal_path, page_size):
    """The page numbers the WAL's last commit wrote (frames of the current salt, after the
    previous commit frame)."""
    with open(wal_path, "rb") as wal:
        data = wal.read()
    salt = data[16:24]
    frame = 24 + page_size
    commits = []  # frames of each commit
    current = []
    offset = 32
    while offset + frame <= len(data):
        page, size_after = struct.unpack(">II", data[offset : offset + 8])
        if data[offset + 8 : offset + 16] != salt:
            break
        current.append(page)
        if size_after:
            commits.append(current)
            current = []
        offset += frame
    return commits[-1] if commits else []


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("database", help="a database seeded by scripts/bench-publish.sh (BENCH_SEEDED)")
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--ddl", action="append", default=[], help="statements to run on the copy first")
    parser.add_argument("--shared-list", action="store_true",
                        help="the list JSON once per publish, named by each row (a layout not built)")
    args = parser.parse_args()
    if not os.path.isfile(args.database):
        sys.exit(f"{args.database}: no such file")

    work = tempfile.mkdtemp()
    try:
        path = os.path.join(work, "publish.db")
        shutil.copyfile(args.database, path)
        if os.path.isfile(args.database + "-wal"):
            shutil.copyfile(args.database + "-wal", path + "-wal")
        db = sqlite3.connect(path, isolation_level=None)
        for pragma in ("journal_mode = WAL", "synchronous = NORMAL", "cache_size = -65536",
                       "wal_autocheckpoint = 0", "foreign_keys = ON"):
            db.execute(f"PRAGMA {pragma}")
        for statement in args.ddl + ([SHARED_LIST_DDL] if args.shared_list else []):
            db.executescript(statement)
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        seeded = db.execute("SELECT count(*) FROM devices WHERE user_id LIKE 'bench-push-user-%'").fetchone()[0]
        if seeded < RECIPIENTS:
            sys.exit(f"{args.database} has {seeded} bench-push users, not {RECIPIENTS}: seed it with bench-publish.sh")
        db.execute("CREATE TEMP TABLE recipients (i INTEGER PRIMARY KEY)")
        db.executemany("INSERT INTO recipients VALUES (?)", [(i,) for i in range(RECIPIENTS)])
        page_size = db.execute("PRAGMA page_size").fetchone()[0]

        for round_number in range(args.rounds):
            # The checkpoint the server's checkpointer would run: each commit starts a fresh WAL.
            db.execute("PRAGMA wal_checkpoint(PASSIVE)")
            times = publish(db, round_number, args.shared_list)
        pages = last_commit_pages(path + "-wal", page_size)
        owners = dict(db.execute("SELECT pageno, name FROM dbstat"))
        by_tree = collections.Counter(owners.get(page, "?") for page in pages)

        print(f"page size {page_size}, {args.rounds} rounds; the last one:")
        for name, seconds in times:
            print(f"  {name:<14} {seconds * 1000:7.1f} ms")
        for name, count in by_tree.most_common():
            print(f"  {count:6d} pages  {name}")
        readers = [row[0] for row in db.execute(
            "SELECT user_id FROM user_counters WHERE user_id NOT LIKE 'bench-push-user-%' LIMIT 10000")]
        started = time.perf_counter()
        query = SHARED_PAGE_QUERY if args.shared_list else PAGE_QUERY
        for index in range(READS):
            db.execute(query, (readers[(index * 7919) % len(readers)],)).fetchall()
        read = (time.perf_counter() - started) / READS * 1e6
        statements = sum(seconds for name, seconds in times if name != "commit") * 1000
        commit = times[-1][1] * 1000
        mebibytes = len(pages) * (page_size + 24) / (1 << 20)
        print(f"publish pages: {len(pages)} pages ({mebibytes:.1f} MiB) per publish, "
              f"statements {statements:.1f} ms, commit {commit:.1f} ms, page read {read:.1f} us")
    finally:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
