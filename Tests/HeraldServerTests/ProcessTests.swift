import Foundation
import HeraldHTTPTestSupport
import Testing

/// The real `herald` executable, as an operator runs it (started through ``HeraldProcess``,
/// which never blocks a Swift concurrency thread).
@Suite("herald process", .serialized)
struct ProcessTests {
    @Test(
        "SIGTERM and SIGINT stop the server cleanly: it drains, exits 0 and stops listening",
        arguments: [SIGTERM, SIGINT])
    func signalStopsCleanly(signal: Int32) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "herald-process-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await HeraldProcess.start(
            database: "sqlite:" + directory.appendingPathComponent("h.db").path,
            secret: "process-test-secret-0123456789abcdef")
        let client = LoopbackHTTPClient(port: server.port)
        #expect(try await client.request("GET", "/healthz").status == 200)

        #expect(await server.stop(signal: signal) == .exited(0))
        await #expect(throws: (any Error).self) { _ = try await client.request("GET", "/healthz") }
        // The drain messages may still be in the pipe for a moment after the exit.
        var log = server.stderr
        for _ in 0..<100 where !log.contains("herald stopped") {
            try await Task.sleep(for: .milliseconds(10))
            log = server.stderr
        }
        #expect(log.contains("draining") && log.contains("herald stopped"), "\(log)")
    }
}
