// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Herald",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .executable(name: "herald", targets: ["herald"]),
        .library(name: "HeraldModel", targets: ["HeraldModel"]),
        .library(name: "HeraldKit", targets: ["HeraldKit"]),
        .library(name: "HeraldKitTestSupport", targets: ["HeraldKitTestSupport"]),
    ],
    targets: [
        // System libraries, each behind a shim header.
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CNGHTTP2", pkgConfig: "libnghttp2", providers: [.apt(["libnghttp2-dev"])]),
        // libpq is loaded when a PostgreSQL database is first opened, not linked (see its shim).
        .systemLibrary(name: "CPostgres", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CThreads"),

        // Shared wire types, catalog and validation (client and server): all an app links.
        .target(name: "HeraldModel"),
        // What the server's modules share and an app never needs: the publisher API's types and
        // their validation, the push policy and push text rules, the HTML sanitizer, JSON shape
        // checks and the JSON writer.
        .target(name: "HeraldServerModel", dependencies: ["HeraldModel"]),
        // Hashing, HMAC, random bytes and JWTs over OpenSSL.
        .target(name: "HeraldCrypto", dependencies: ["COpenSSL", "HeraldModel"]),
        // The one logger the application hands to every module (HTTP, store, push, sandbox).
        .target(name: "HeraldLog"),
        // The named threads the server runs its loops on (event loops, streams, listeners).
        .target(name: "HeraldThreads", dependencies: ["CThreads"]),
        // HTTP server over libmicrohttpd: transport, router, SSE, limits, graceful stop.
        .target(name: "HeraldHTTP", dependencies: ["CMicroHTTPD", "HeraldLog", "HeraldModel", "HeraldThreads"]),
        // What every test target shares: temporary directories removed after use, `eventually`.
        .target(name: "HeraldTestSupport"),
        // Loopback HTTP/1.1 client for tests (plain sockets on HeraldHTTP2's socket reactor, SSE
        // reader), the `herald` child process.
        .target(
            name: "HeraldHTTPTestSupport",
            dependencies: ["HeraldHTTP", "HeraldHTTP2", "HeraldModel", "HeraldTestSupport"]),
        // Store protocol, the SQLite store (SQLite/) and the PostgreSQL store over libpq (Postgres/).
        .target(
            name: "HeraldStore",
            dependencies: ["CSQLite", "CPostgres", "HeraldLog", "HeraldModel", "HeraldServerModel", "HeraldThreads"]),
        // The one HTTP/2 core over libnghttp2 and OpenSSL, internal to the package but for the one
        // vocabulary both sides speak (HTTP2Header, HTTP2Request, HTTP2Response, public, which
        // HeraldPush and HeraldSandbox re-export): the epoll loop and its wake, the session for
        // either role, TLS context and stream, socket I/O, the checker of native calls. The push
        // client and the sandbox server build on it.
        .target(name: "HeraldHTTP2", dependencies: ["CNGHTTP2", "COpenSSL", "HeraldCrypto", "HeraldThreads"]),
        // Push delivery to APNs, FCM and Expo: the provider payloads (Payloads/), provider auth
        // (Auth/), the HTTP/2 client: its origin pool over HeraldHTTP2 (Transport/), the APNs
        // client (APNs/), verdicts and retry policy (Delivery/).
        .target(
            name: "HeraldPush",
            dependencies: [
                "CNGHTTP2", "HeraldLog", "HeraldModel", "HeraldServerModel", "HeraldCrypto", "HeraldHTTP2",
                "HeraldThreads",
            ]),
        // The application: routes, auth, live hub, metrics, the delivery worker (Push/), webhooks
        // (Webhooks/: the worker and the one HTTP/1.1 client, on HeraldHTTP2's sockets and TLS), and
        // the command line, whose `herald sandbox` runs the provider sandbox.
        .target(
            name: "HeraldServer",
            dependencies: [
                "HeraldModel", "HeraldServerModel", "HeraldCrypto", "HeraldHTTP", "HeraldHTTP2", "HeraldStore",
                "HeraldPush", "HeraldSandbox", "HeraldThreads", "CThreads",
            ],
            // The HTTP contract, compiled into the binary (no bundle to ship beside it).
            resources: [
                .embedInCode("Resources/openapi.json"),
                // The console's pages, styles and scripts, written here: no build step, no CDN.
                .embedInCode("Resources/console/index.html"),
                .embedInCode("Resources/console/console.css"),
                .embedInCode("Resources/console/console.js"),
                .embedInCode("Resources/console/dom.js"),
                .embedInCode("Resources/console/compose.js"),
                .embedInCode("Resources/console/messages.js"),
                .embedInCode("Resources/console/admin.js"),
            ]),
        // The provider sandbox: an HTTP/2 and HTTP/1.1 server (h2c, TLS and cleartext HTTP/1.1) over
        // HeraldHTTP2 that accepts and dispatches (HTTP2/), the APNs, FCM and Expo look-alikes on
        // it, its key material (Credentials/), gzip request bodies through zlib (Expo's).
        .target(
            name: "HeraldSandbox",
            dependencies: [
                "CNGHTTP2", "COpenSSL", "CZlib", "HeraldLog", "HeraldModel", "HeraldServerModel", "HeraldCrypto",
                "HeraldHTTP2",
                "HeraldThreads",
            ]),
        .executableTarget(name: "herald", dependencies: ["HeraldServer"]),
        // The client SDK: screen models, their dependencies, the live API client.
        .target(name: "HeraldKit", dependencies: ["HeraldModel"]),
        // Test clock and strict fakes of every HeraldKit dependency.
        .target(name: "HeraldKitTestSupport", dependencies: ["HeraldKit", "HeraldModel"]),

        .testTarget(name: "HeraldModelTests", dependencies: ["HeraldModel", "HeraldServerModel"]),
        .testTarget(
            name: "HeraldCryptoTests", dependencies: ["HeraldCrypto", "HeraldHTTPTestSupport", "HeraldTestSupport"]),
        .testTarget(name: "HeraldServerModelTests", dependencies: ["HeraldServerModel", "HeraldModel"]),
        .testTarget(
            name: "HeraldHTTPTests", dependencies: ["HeraldHTTP", "HeraldHTTPTestSupport", "HeraldTestSupport"]),
        .testTarget(
            name: "HeraldPushTests",
            dependencies: [
                "HeraldPush", "HeraldServerModel", "HeraldModel", "HeraldCrypto", "HeraldHTTPTestSupport",
                "HeraldThreads",
                "HeraldTestSupport", "HeraldSandbox",
            ]),
        .testTarget(
            name: "HeraldStoreTests",
            dependencies: [
                "HeraldStore", "HeraldLog", "HeraldModel", "HeraldServerModel", "HeraldHTTPTestSupport",
                "HeraldThreads",
                "HeraldTestSupport",
            ]),
        .testTarget(
            name: "HeraldServerTests",
            dependencies: [
                "HeraldServer", "HeraldHTTPTestSupport", "HeraldTestSupport", "HeraldCrypto", "HeraldModel",
                "HeraldServerModel", "HeraldStore", "HeraldSandbox", "HeraldPush", "HeraldThreads",
            ]
        ),
        .testTarget(
            name: "HeraldSandboxTests",
            dependencies: ["HeraldSandbox", "HeraldHTTPTestSupport", "HeraldTestSupport", "HeraldCrypto"]),
        // HeraldServerModel only to check the client against the server's push rules.
        .testTarget(
            name: "HeraldKitTests",
            dependencies: ["HeraldKit", "HeraldKitTestSupport", "HeraldModel", "HeraldServerModel"]),
        // The SDK's live client against a real `herald` process on loopback.
        .testTarget(
            name: "HeraldKitEndToEndTests",
            dependencies: [
                "HeraldKit", "HeraldKitTestSupport", "HeraldModel", "HeraldHTTPTestSupport", "HeraldTestSupport",
                "HeraldPush", "HeraldServerModel",
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
