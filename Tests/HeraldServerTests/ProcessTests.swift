import Foundation
import HeraldHTTPTestSupport
import HeraldTestSupport
import Testing

/// The real `herald` executable, as an operator runs it (started through ``HeraldProcess``,
/// which never blocks a Swift concurrency thread).
@Suite("herald process", .serialized)
struct ProcessTests {
    @Test(
        "an idle server runs no push client thread (the HTTP/2 engines start with their first push) and, on SQLite, maps no libpq"
    )
    func idleServerStartsNoPushClient() async throws {
        let server = try await HeraldProcess.start(secret: "idle-server-secret-0123456789abcdef")
        var threads: [String] = []
        // A thread names itself once running: wait for the streams' thread, which every server starts.
        try await eventually("the streams' thread is named", within: .seconds(30)) {
            threads = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(server.pid)/task").map {
                (try? String(contentsOfFile: "/proc/\(server.pid)/task/\($0)/comm", encoding: .utf8))?
                    .trimmingCharacters(in: .newlines) ?? ""
            }
            return threads.contains("herald-streams")
        }
        #expect(!threads.contains("herald-h2c"), "\(threads)")
        // libpq (and the Kerberos and LDAP libraries it links) is loaded only for PostgreSQL,
        // FoundationInternationalization (and ICU) only for the first named time zone.
        let maps = try String(contentsOfFile: "/proc/\(server.pid)/maps", encoding: .utf8)
        #expect(!maps.contains("libpq.so"), "\(maps)")
        #expect(!maps.contains("libFoundationInternationalization.so"), "\(maps)")
        #expect(await server.stop() == .exited(0))
    }

    @Test(
        "the executable loads named time zones with the first one asked for (UTC needs none): New York is stored, PST is refused"
    )
    func namedTimeZonesLoadOnFirstUse() async throws {
        let server = try await HeraldProcess.start(secret: TestServer.secret)
        let client = LoopbackHTTPClient(port: server.port)
        let token = try TestTokens.sign(sub: "alice", exp: Date().addingTimeInterval(3600))
        let headers = [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")]
        func quietHours(_ zone: String) async throws -> LoopbackResponse {
            let body = #"{"quietHours":{"start":"22:00","end":"07:00","timeZone":"\#(zone)"}}"#
            return try await client.request("PATCH", "/v1/me/preferences", headers: headers, body: Array(body.utf8))
        }
        let maps = { try String(contentsOfFile: "/proc/\(server.pid)/maps", encoding: .utf8) }
        #expect(try !maps().contains("libFoundationInternationalization.so"))
        // UTC needs no zone data.
        let utc = try await quietHours("UTC")
        #expect(utc.status == 200, "\(utc.text)")
        #expect(try await quietHours("Etc/UTC").status == 200)
        #expect(try !maps().contains("libFoundationInternationalization.so"))

        let stored = try await quietHours("America/New_York")
        #expect(stored.status == 200, "\(stored.text)")
        #expect((stored.object["quietHours"] as? [String: String])?["timeZone"] == "America/New_York")
        #expect(try maps().contains("libFoundationInternationalization.so"))
        expectError(try await quietHours("PST"), 400, "invalid")
        #expect(try await quietHours("Etc/GMT+2").status == 200)
        #expect(await server.stop() == .exited(0))
    }

    @Test(
        "the executable links neither Foundation nor FoundationNetworking (nor libcurl through it), nor libpq, nor ICU"
    )
    func linkedLibraries() async throws {
        let linked = try await ChildProcess.run("/usr/bin/ldd", [HeraldExecutable.url.path])
        #expect(linked.exit == .exited(0), "\(linked.stderr)")
        #expect(linked.stdout.contains("libFoundationEssentials.so"), "\(linked.stdout)")
        // libpq is loaded (dlopen) when a PostgreSQL database is opened, never linked.
        // FoundationInternationalization is loaded with the first named time zone (TimeZones).
        for library in [
            "libFoundation.so", "libFoundationNetworking.so", "libFoundationXML.so", "libcurl", "libpq",
            "libFoundationInternationalization.so", "lib_FoundationICU.so",
        ] {
            // An incremental build from before the server dropped Foundation can keep objects whose
            // autolink entries still ask for it, though their sources no longer import it (SwiftPM
            // recompiles only changed files): `swift package clean` then builds it as CI does.
            #expect(
                !linked.stdout.contains(library),
                "\(library) is linked (a stale incremental build? see the comment):\n\(linked.stdout)")
        }
    }

    @Test(
        "SIGTERM and SIGINT stop the server cleanly: it drains, exits 0 and stops listening",
        arguments: [SIGTERM, SIGINT])
    func signalStopsCleanly(signal: Int32) async throws {
        let server = try await HeraldProcess.start(secret: "process-test-secret-0123456789abcdef")
        let client = LoopbackHTTPClient(port: server.port)
        #expect(try await client.request("GET", "/healthz").status == 200)

        #expect(await server.stop(signal: signal) == .exited(0))
        await #expect(throws: (any Error).self) { _ = try await client.request("GET", "/healthz") }
        // The drain messages may still be in the pipe for a moment after the exit.
        _ = try await becomesTrue { server.stderr.contains("herald stopped") }
        let log = server.stderr
        #expect(log.contains("draining") && log.contains("herald stopped"), "\(log)")
    }
}
