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
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CNGHTTP2", pkgConfig: "libnghttp2", providers: [.apt(["libnghttp2-dev"])]),
        .systemLibrary(name: "CPostgres", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),

        // Shared wire types, catalog and validation (client and server).
        .target(name: "HeraldModel"),
        // Hashing, HMAC, random bytes and JWTs over OpenSSL.
        .target(name: "HeraldCrypto", dependencies: ["COpenSSL"]),
        // HTTP server over libmicrohttpd: transport, router, SSE, limits, graceful stop.
        .target(name: "HeraldHTTP", dependencies: ["CMicroHTTPD"]),
        // Loopback HTTP/1.1 client for tests (plain sockets, SSE reader).
        .target(name: "HeraldHTTPTestSupport", dependencies: ["HeraldHTTP"]),
        // Store protocol, the SQLite store (SQLite/) and the PostgreSQL store over libpq (Postgres/).
        .target(name: "HeraldStore", dependencies: ["CSQLite", "CPostgres", "HeraldModel"]),
        // The one HTTP/2 core over libnghttp2 and OpenSSL, internal to the package: the epoll loop
        // and its wake, the session for either role, TLS context and stream, socket I/O, the
        // checker of native calls. The push client and the sandbox server build on it.
        .target(name: "HeraldHTTP2", dependencies: ["CNGHTTP2", "COpenSSL", "HeraldCrypto"]),
        // Push delivery to APNs, FCM and Expo: provider auth (Auth/), the HTTP/2 client: its origin
        // pool over HeraldHTTP2 (Transport/NGHTTP2/) or libcurl multi (Transport/), the APNs
        // client (APNs/), verdicts and retry policy (Delivery/).
        .target(
            name: "HeraldPush",
            dependencies: ["CCurl", "CNGHTTP2", "HeraldModel", "HeraldCrypto", "HeraldHTTP2"]),
        // The application: routes, auth, live hub, metrics, the delivery worker (Push/), and the
        // command line, whose `herald sandbox` runs the provider sandbox.
        .target(
            name: "HeraldServer",
            dependencies: ["HeraldModel", "HeraldCrypto", "HeraldHTTP", "HeraldStore", "HeraldPush", "HeraldSandbox"]),
        // The provider sandbox: an HTTP/2 server (h2c and TLS) over HeraldHTTP2 that accepts and
        // dispatches (HTTP2/), the APNs, FCM and Expo look-alikes on it, its key material (Credentials/).
        .target(
            name: "HeraldSandbox",
            dependencies: ["CNGHTTP2", "COpenSSL", "HeraldModel", "HeraldCrypto", "HeraldHTTP2"]),
        .executableTarget(name: "herald", dependencies: ["HeraldServer"]),
        // The client SDK: screen models, their dependencies, the live API client.
        .target(name: "HeraldKit", dependencies: ["HeraldModel"]),
        // Test clock and strict fakes of every HeraldKit dependency.
        .target(name: "HeraldKitTestSupport", dependencies: ["HeraldKit", "HeraldModel"]),

        .testTarget(name: "HeraldModelTests", dependencies: ["HeraldModel", "HeraldCrypto", "HeraldHTTPTestSupport"]),
        .testTarget(name: "HeraldHTTPTests", dependencies: ["HeraldHTTP", "HeraldHTTPTestSupport"]),
        .testTarget(name: "HeraldPushTests", dependencies: ["HeraldPush", "HeraldCrypto", "HeraldHTTPTestSupport"]),
        .testTarget(name: "HeraldStoreTests", dependencies: ["HeraldStore", "HeraldModel"]),
        .testTarget(
            name: "HeraldServerTests",
            dependencies: [
                "HeraldServer", "HeraldHTTPTestSupport", "HeraldCrypto", "HeraldModel", "HeraldStore", "HeraldSandbox",
                "HeraldPush",
            ]
        ),
        .testTarget(
            name: "HeraldSandboxTests", dependencies: ["HeraldSandbox", "HeraldHTTPTestSupport", "HeraldCrypto"]),
        .testTarget(name: "HeraldKitTests", dependencies: ["HeraldKit", "HeraldKitTestSupport", "HeraldModel"]),
        // The SDK's live client against a real `herald` process on loopback.
        .testTarget(
            name: "HeraldKitEndToEndTests",
            dependencies: ["HeraldKit", "HeraldKitTestSupport", "HeraldModel", "HeraldHTTPTestSupport"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
