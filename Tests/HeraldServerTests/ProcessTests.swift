import Foundation
import HeraldHTTPTestSupport
import HeraldSandbox
import HeraldTestSupport
import Testing

@testable import HeraldServer

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
        let maps = try procFile("/proc/\(server.pid)/maps")
        #expect(!maps.contains("libpq.so"), "\(maps)")
        #expect(!maps.contains("libFoundationInternationalization.so"), "\(maps)")
        // ... though it finds them where it would load them from.
        #expect(!server.stderr.contains("named time zones are unavailable"), "\(server.stderr)")
        #expect(await server.stop() == .exited(0))
    }

    @Test(
        "a server that cannot load named time zones says so at start, refuses them with a 400 saying why, and keeps UTC"
    )
    func namedTimeZonesMissing() async throws {
        // A server packaged as from `ldd herald`, which no longer lists FoundationInternationalization
        // and ICU: a copy of the executable whose RUNPATH is its own directory, beside the
        // toolchain's other libraries.
        let maps = try procFile("/proc/self/maps")
        let paths = maps.split(separator: "\n").compactMap { $0.split(separator: " ").last.map(String.init) }
        let essentials = try #require(paths.first { $0.hasSuffix("/libFoundationEssentials.so") })
        let toolchain = URL(fileURLWithPath: essentials).deletingLastPathComponent().path
        let package = try TemporaryDirectory("herald-slim")
        defer { package.remove() }
        for library in try FileManager.default.contentsOfDirectory(atPath: toolchain)
        where library.hasSuffix(".so") && !NamedTimeZoneSupport.libraries.contains(library) {
            try FileManager.default.createSymbolicLink(
                atPath: package.path(library), withDestinationPath: toolchain + "/" + library)
        }
        var executable = try Data(contentsOf: HeraldExecutable.url)
        let runPath = Data((toolchain + ":$ORIGIN").utf8)
        let found = try #require(executable.firstRange(of: runPath), "the executable's RUNPATH names \(toolchain)")
        executable.replaceSubrange(found, with: Data("$ORIGIN".utf8) + Data(count: runPath.count - 7))
        // Written with a descriptor closed on exec: one inherited by a process another test
        // starts meanwhile would make running the copy fail (ETXTBSY).
        try PrivateFile.write(executable, to: package.path("herald"), mode: 0o755)

        // Without LD_LIBRARY_PATH, which could point at the toolchain's directory.
        let server = try await HeraldProcess.start(
            secret: TestServer.secret, wrapper: ["/usr/bin/env", "-u", "LD_LIBRARY_PATH"],
            executable: package.path("herald"))
        #expect(server.stderr.contains("named time zones are unavailable"), "\(server.stderr)")
        #expect(
            server.stderr.contains("libFoundationInternationalization.so is in none"), "\(server.stderr)")

        func quietHours(_ zone: String) async throws -> LoopbackResponse {
            try await Self.setQuietHours(zone: zone, port: server.port)
        }
        let refused = try await quietHours("America/New_York")
        expectError(refused, 400, "invalid")
        #expect(refused.text.contains("cannot load"), "\(refused.text)")
        expectError(try await quietHours("PST"), 400, "invalid")
        #expect(try await quietHours("UTC").status == 200)
        #expect(await server.stop() == .exited(0))
    }

    @Test(
        "named time zones are missing when FoundationInternationalization is in none of the loader's directories, or ICU is not beside it"
    )
    func namedTimeZoneLibrariesSearched() throws {
        let first = try TemporaryDirectory("herald-zones")
        let second = try TemporaryDirectory("herald-zones")
        defer {
            first.remove()
            second.remove()
        }
        let none = try #require(NamedTimeZoneSupport.problem(searching: [first.path, second.path]))
        #expect(none.hasPrefix("libFoundationInternationalization.so is in none"), "\(none)")
        #expect(none.contains("(\(first.path):\(second.path);"), "\(none)")
        // ICU in another of the directories does not count: the library looks beside itself.
        #expect(FileManager.default.createFile(atPath: first.path("lib_FoundationICU.so"), contents: Data()))
        #expect(
            FileManager.default.createFile(
                atPath: second.path("libFoundationInternationalization.so"), contents: Data()))
        let apart = try #require(NamedTimeZoneSupport.problem(searching: ["/nonexistent", first.path, second.path]))
        #expect(
            apart.hasPrefix("lib_FoundationICU.so is not beside \(second.path)/libFoundationInternationalization.so"),
            "\(apart)")
        #expect(FileManager.default.createFile(atPath: second.path("lib_FoundationICU.so"), contents: Data()))
        #expect(NamedTimeZoneSupport.problem(searching: ["/nonexistent", first.path, second.path]) == nil)
        // This test process: its loader's directories hold both (the toolchain's, by RUNPATH).
        #expect(NamedTimeZoneSupport.problem(searching: NamedTimeZoneSupport.librarySearchPath()) == nil)
        // No directories known (glibc could not say): no claim either way.
        #expect(NamedTimeZoneSupport.problem(searching: []) == nil)
    }

    @Test(
        "the executable loads named time zones with the first one asked for (UTC needs none): New York is stored, PST is refused"
    )
    func namedTimeZonesLoadOnFirstUse() async throws {
        let server = try await HeraldProcess.start(secret: TestServer.secret)
        func quietHours(_ zone: String) async throws -> LoopbackResponse {
            try await Self.setQuietHours(zone: zone, port: server.port)
        }
        let maps = { try procFile("/proc/\(server.pid)/maps") }
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

    /// Alice's quiet hours, 22:00 to 07:00 in `zone`, set through `PATCH /v1/me/preferences`.
    private static func setQuietHours(zone: String, port: Int) async throws -> LoopbackResponse {
        let token = try TestTokens.sign(sub: "alice", exp: Date().addingTimeInterval(3600))
        let headers = [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")]
        let body = #"{"quietHours":{"start":"22:00","end":"07:00","timeZone":"\#(zone)"}}"#
        return try await LoopbackHTTPClient(port: port).request(
            "PATCH", "/v1/me/preferences", headers: headers, body: Array(body.utf8))
    }
}
