import HeraldHTTP

/// Usage text of every command.
enum Help {
    static let main = """
        herald: the Herald notification server.

        Usage: herald <command> [options]

        Commands:
          serve         Run the server (inbox, preferences, devices, live updates, app config).
          migrate       Apply database migrations and exit.
          keys          Create, list and revoke publisher API keys (keys create|list|revoke).
          token         Mint a user token for development.
          send          Publish a notification from the shell (development).
          broadcast     Send a notification to every user or a list, as a background job.
          bench         Seed data and mint tokens for scripts/bench-inbox.sh and bench-push.sh.
          sandbox       Run the local push provider sandbox (APNs, FCM and Expo look-alikes).

        Every option has an environment twin: --port is HERALD_PORT, --database is HERALD_DATABASE_URL.
        Flags win over the environment. Run `herald <command> --help` for a command's options.

        Example:
          herald serve --port 8080 --database sqlite:./herald.db
        """

    static let serve = """
        Usage: herald serve [--host 127.0.0.1] [--port 8080] [--database URL]

        Options (environment twin in brackets):
          --host HOST                 Address to listen on [HERALD_HOST] (default 127.0.0.1)
          --port PORT                 Port, 0 picks a free one [HERALD_PORT] (default 8080)
          --database URL              sqlite:./herald.db, sqlite:///abs/path.db, sqlite::memory: or
                                      postgres://user[:password]@host:port/db (shared by several servers)
                                      [HERALD_DATABASE_URL] (default sqlite:./herald.db)
          --database-pool-size N      PostgreSQL connections per process, 1 to 100; a request
                                      waits up to 5 s for a free one, then gets 503
                                      [HERALD_DATABASE_POOL_SIZE] (default 8)
          --user-token-secret SECRET  HS256 secret for user tokens [HERALD_USER_TOKEN_SECRET]
                                      (generated and kept in the database when unset)
          --max-body-bytes N          Largest request body; larger gets 413 [HERALD_MAX_BODY_BYTES]
                                      (default 1048576)
          --max-token-lifetime SECONDS
                                      Longest a user token may still have to live: one whose exp
                                      is further away (beyond 60 s of clock skew) gets 401; 60 to
                                      31536000 [HERALD_MAX_TOKEN_LIFETIME] (default 2592000, 30 days)
          --http-threads N            libmicrohttpd threads (epoll, one per core is plenty)
                                      [HERALD_HTTP_THREADS] (default 2)
          --max-json-depth N          Deepest nesting of a JSON body (objects and arrays); deeper
                                      gets 400 json_too_deep [HERALD_MAX_JSON_DEPTH] (default 32)
          --max-connections N         Most open connections [HERALD_MAX_CONNECTIONS] (default: the
                                      open-files limit less 256 kept for the database, logs and
                                      push connections; at most half the limit is kept;
                                      a larger value is lowered to it)
          --max-connections-per-address N
                                      Most open connections from one client address; more are
                                      closed at once, 0 = no cap [HERALD_MAX_CONNECTIONS_PER_ADDRESS]
                                      (default 512)
          --request-head-timeout SECONDS
                                      From connecting to a whole request head; later gets 408 and
                                      the connection closes [HERALD_REQUEST_HEAD_TIMEOUT] (default 10)
          --request-body-timeout SECONDS
                                      From a request head to the end of its body; later gets 408
                                      and the connection closes [HERALD_REQUEST_BODY_TIMEOUT]
                                      (default 30)
          --request-timeout SECONDS   A handler slower than this is stopped and answered 503
                                      timeout [HERALD_REQUEST_TIMEOUT] (default 30)
          --max-streams-per-user N    Live-update streams one user may hold; a new one ends the
                                      oldest with event: closed, reason replaced
                                      [HERALD_MAX_STREAMS_PER_USER] (default 16)
          --idle-timeout SECONDS      A connection with nothing to do is closed, and a kept-alive
                                      one must send its next request head within it
                                      [HERALD_IDLE_TIMEOUT] (default 60)
          --log-level LEVEL           trace, debug, info, notice, warning, error, critical
                                      [HERALD_LOG_LEVEL] (default info)

        Publisher limits (per API key; every publisher call counts):
          --publisher-rate N          Calls a second a key regains, fractions allowed (0.5: one
                                      every 2 s); over it: 429 rate_limited with Retry-After;
                                      0 turns it off [HERALD_PUBLISHER_RATE] (default 100)
          --publisher-burst N         Calls a key may make at once, 1 to 1000000
                                      [HERALD_PUBLISHER_BURST] (default 1000)
          --max-active-broadcasts N   Broadcasts a key may have queued or running at once; one more
                                      gets 409 too_many_broadcasts; 0: no cap
                                      [HERALD_MAX_ACTIVE_BROADCASTS] (default 5)
          --max-publish-bytes N       Most one POST /v1/notifications may store: recipients x the
                                      bytes of title, body, data, deepLink and detail; over it:
                                      413 publish_too_large [HERALD_MAX_PUBLISH_BYTES]
                                      (default 16777216)

        Push delivery (APNs is on only when key file, key id, team id and topic are all given):
          --apns-key-file PATH        .p8 signing key [HERALD_APNS_KEY_FILE]
          --apns-key-id ID            Key id of the .p8 key [HERALD_APNS_KEY_ID]
          --apns-team-id ID           Apple developer team id [HERALD_APNS_TEAM_ID]
          --apns-topic BUNDLE_ID      The app's bundle id, sent as apns-topic [HERALD_APNS_TOPIC]
          --apns-base-url URL         One gateway for every device [HERALD_APNS_BASE_URL] (default:
                                      production devices https://api.push.apple.com, development
                                      devices https://api.sandbox.push.apple.com)
          --apns-ca-file PATH         PEM certificates to trust instead of the system's, e.g. the
                                      sandbox's [HERALD_APNS_CA_FILE]
          --fcm-service-account PATH  Service-account JSON key of the Firebase project; turns FCM on
                                      [HERALD_FCM_SERVICE_ACCOUNT]
          --fcm-base-url URL          FCM endpoint [HERALD_FCM_BASE_URL] (default
                                      https://fcm.googleapis.com)
          --fcm-ca-file PATH          PEM certificates to trust for FCM and the account's token_uri
                                      [HERALD_FCM_CA_FILE]
          --push-concurrency N        Sends in flight at once [HERALD_PUSH_CONCURRENCY] (default 256)
          --push-batch-size N         Outbox rows claimed per batch [HERALD_PUSH_BATCH_SIZE] (default 1024)
          --push-lease SECONDS        How long a claimed row waits before another claim
                                      [HERALD_PUSH_LEASE] (default 60)
          --push-retry-base SECONDS   First retry's backoff ceiling, doubling per attempt
                                      [HERALD_PUSH_RETRY_BASE] (default 1)
          --push-retry-cap SECONDS    Longest retry wait [HERALD_PUSH_RETRY_CAP] (default 1800)
          --push-max-attempts N       Attempts before a delivery fails [HERALD_PUSH_MAX_ATTEMPTS]
                                      (default 8)
          --push-http-engine ENGINE   HTTP/2 client of the providers: nghttp2 or libcurl
                                      [HERALD_PUSH_HTTP_ENGINE] (default nghttp2)
        Rows for a provider that is not configured (APNs or FCM without settings) end failed
        with reason provider_not_configured.

        Expo (on by default: it needs no key material):
          --expo-base-url URL         The Expo push service [HERALD_EXPO_BASE_URL]
                                      (default https://exp.host)
          --expo-access-token TOKEN   Access token of a project with enhanced push security, sent
                                      as Authorization: Bearer [HERALD_EXPO_ACCESS_TOKEN]
          --expo-ca-file PATH         PEM certificates to trust instead of the system's, e.g. the
                                      sandbox's [HERALD_EXPO_CA_FILE]
          --expo-receipt-delay SECONDS
                                      Wait after a ticket before fetching its receipt
                                      [HERALD_EXPO_RECEIPT_DELAY] (default 900)

        SIGTERM or SIGINT stops accepting, lets in-flight requests and pushes finish and exits.

        Example:
          HERALD_PORT=9000 herald serve --database sqlite:/var/lib/herald/herald.db
        """

    static let migrate = """
        Usage: herald migrate [--database URL]

        Applies the numbered migrations the database lacks and exits. `serve` does this too.

        Options (environment twin in brackets):
          --database URL   sqlite:./herald.db, sqlite:///abs/path.db, or
                           postgres://user[:password]@host:port/db [HERALD_DATABASE_URL]
                           (default sqlite:./herald.db). Processes migrating one PostgreSQL
                           database at once apply each migration once.
        """

    static let keys = """
        Usage: herald keys create [--name NAME] [--database URL]
               herald keys list [--database URL]
               herald keys revoke ID [--database URL]

        create  Creates a publisher API key. The key is the last line of the output; only its
                SHA-256 hash is stored, so keep it. Publishers send it as
                `Authorization: Bearer <key>`.
        list    Lists the keys that are not revoked, oldest first: id, name, created, last used
                (written at most once a minute per server, so up to a minute behind).
        revoke  Revokes the key with this id (`key_...`, from `keys list`; the key itself works
                too). Every server on the database refuses it within a second, without a restart.
                An unknown id exits 1; revoking a revoked key again changes nothing.

        Options (environment twin in brackets):
          --name NAME      A label for the key, 1 to 100 characters (default "default")
          --database URL   sqlite:./herald.db or postgres://... [HERALD_DATABASE_URL]

        Rotating a key: create the new one, deploy it to the publisher, then revoke the old one
        (its last use shows when nothing sends with it any more).

        Examples:
          KEY=$(herald keys create --name backend | tail -n 1)
          herald keys list
          herald keys revoke key_0123456789ab
        """

    static let token = """
        Usage: herald token --user ID [--ttl SECONDS] [--database URL] [--user-token-secret SECRET]
                            [--max-token-lifetime SECONDS]

        Mints an HS256 user token for ID, signed with the server's secret (read from the
        database unless given). The token is the last line of the output. Default TTL 86400 s;
        at most --max-token-lifetime [HERALD_MAX_TOKEN_LIFETIME] (default 2592000, 30 days),
        the longest a server with the same setting accepts.

        Example:
          TOKEN=$(herald token --user alice | tail -n 1)
          curl -H "Authorization: Bearer $TOKEN" http://127.0.0.1:8080/v1/me/notifications
        """

    static let send = """
        Usage: herald send --user ID --type TYPE --title TITLE --body BODY [--deep-link URL]
                           [--no-push] [--url http://127.0.0.1:8080] [--api-key KEY] [--database URL]

        Publishes one notification through a running server's POST /v1/notifications.
        Without --api-key (HERALD_API_KEY), creates a key named "herald send" in the database.

        Example:
          herald send --user alice --type order.shipped --title "Your order shipped" --body "Arrives Friday"
        """
}

extension Help {
    static let bench = """
        Usage: herald bench seed [--users 10000] [--notifications 1000000] [--database URL]
               herald bench push-seed [--devices 100000] [--database URL]
               herald bench tokens --output FILE [--users 10000] [--database URL]
               herald bench sanitize [--repeat 3]

        `seed` publishes notifications round-robin over the users bench-user-0 ... bench-user-N-1,
        1,000 per transaction. `push-seed` registers one production APNs device for each of the
        users bench-push-user-0 ... N-1 and publishes one notification with push to all of them,
        so the outbox holds N queued APNs deliveries (run it with the worker off: no `serve`).
        `tokens` writes one user token per line for those users. `sanitize` times the HTML
        sanitizer on inputs that once cost it quadratic time (best of --repeat runs each).
        """
}

extension Help {
    static let sandbox = """
        Usage: herald sandbox [--host 127.0.0.1] [--port 8090] [--state-dir DIR]

        Runs the local push provider sandbox over HTTP/2: an APNs look-alike that checks
        provider tokens, headers and payloads as strictly as Apple's servers; an FCM HTTP v1
        look-alike with its OAuth2 token endpoint (POST /token) that checks service-account
        assertions, access tokens and message bodies as strictly as Google's; and an Expo push
        service look-alike (send and getReceipts, with an access token) as strict as Expo's. Each
        records what it accepts.

        Options (environment twin in brackets):
          --host HOST        Address to listen on (default 127.0.0.1)
          --port PORT        Port, 0 picks a free one [HERALD_SANDBOX_PORT] (default 8090)
          --state-dir DIR    Where the key material is kept and reused [HERALD_SANDBOX_STATE_DIR]
                             (default ./.herald-sandbox)

        On first start DIR gets the APNs .p8 key (AuthKey_<KEYID>.p8) with its ids (apns.json),
        an FCM service account (fcm-service-account.json, RSA 2048), the Expo access token
        (expo.json) and a self-signed TLS certificate (sandbox-cert.pem, sandbox-key.pem). Every
        start rewrites the service account's token_uri with the port listened on, and writes
        DIR/herald.env: the HERALD_APNS_*, HERALD_FCM_* and HERALD_EXPO_* settings (absolute
        paths) that point `herald serve` at this sandbox. It logs
        `herald sandbox listening ... port=N env=PATH`.

        Admin endpoints (same port; over TLS trust DIR/sandbox-cert.pem):
          GET    /admin/apns/accepted  The accepted notifications, oldest first, and counts per status
          POST   /admin/apns/faults    {"deviceToken", "fault", "retryAfter"?, "delayMilliseconds"?,
                                       "times"?}; fault is unregistered, badDeviceToken,
                                       tooManyRequests, serviceUnavailable, delay, dropConnection
                                       or none (clears that token's fault)
          DELETE /admin/apns/faults    Clears every fault
          GET    /admin/fcm/accepted   The accepted FCM messages, oldest first, counts per status and
                                       the number of access tokens issued
          POST   /admin/fcm/faults     {"deviceToken", "fault", "retryAfter"?, "delayMilliseconds"?,
                                       "times"?}; fault is unregistered, senderIdMismatch,
                                       tooManyRequests, unavailable, delay, dropConnection or none
          DELETE /admin/fcm/faults     Clears every FCM fault
          DELETE /admin/fcm/access-tokens  Revokes every access token issued (the next send gets 401)
          GET    /admin/expo/accepted  The accepted Expo messages with their tickets, the size of
                                       each send, and counts per status
          POST   /admin/expo/faults    {"token", "fault", "retryAfter"?, "delayMilliseconds"?,
                                       "times"?}; fault is deviceNotRegisteredTicket,
                                       deviceNotRegisteredReceipt, messageRateExceeded,
                                       messageRateExceededReceipt, tooManyRequests, unavailable,
                                       delay, dropConnection or none
          DELETE /admin/expo/faults    Clears every Expo fault

        The port speaks HTTP/2 over TLS (ALPN h2) and cleartext HTTP/2 with prior knowledge
        (h2c, e.g. curl --http2-prior-knowledge http://127.0.0.1:8090/...): the first byte a
        client sends tells which. herald.env uses TLS.

        SIGTERM or SIGINT sends GOAWAY, lets streams in progress finish and exits 0.

        Examples:
          herald sandbox --state-dir ./.herald-sandbox &
          set -a; . ./.herald-sandbox/herald.env; set +a; herald serve
          curl -s --cacert ./.herald-sandbox/sandbox-cert.pem https://127.0.0.1:8090/admin/apns/accepted
        """
}

extension Logger.Level {
    /// Parses `info`, `warning`, ...
    init?(name: String) {
        let all: [(String, Logger.Level)] = [
            ("trace", .trace), ("debug", .debug), ("info", .info), ("notice", .notice),
            ("warning", .warning), ("error", .error), ("critical", .critical),
        ]
        guard let match = all.first(where: { $0.0 == name.lowercased() }) else { return nil }
        self = match.1
    }
}
