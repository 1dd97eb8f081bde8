import Foundation
import HeraldHTTPTestSupport
import Synchronization
import Testing

/// The real `herald` executable, as an operator runs it.
///
/// Nothing here blocks a Swift concurrency thread: the pipe is read on a thread of its own and
/// the exit is awaited through `terminationHandler` (blocking both cooperative threads in
/// `waitUntilExit` can starve the very callbacks that report the exit).
@Suite("herald process", .serialized)
struct ProcessTests {
    /// The `herald` built beside the test bundle.
    static var executable: URL {
        var directory = Bundle.main.bundleURL
        while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("herald").path),
            directory.pathComponents.count > 1
        {
            directory.deleteLastPathComponent()
        }
        return directory.appendingPathComponent("herald")
    }

    /// A running `herald serve`: its port, its exit, and everything it wrote to stderr.
    final class Server: Sendable {
        let process: Process
        let port: Int
        let exited: Task<Int32, Never>
        private let log: Mutex<String>

        var stderr: String { log.withLock { $0 } }

        private init(process: Process, port: Int, exited: Task<Int32, Never>, log: String) {
            self.process = process
            self.port = port
            self.exited = exited
            self.log = Mutex(log)
        }

        /// Starts `herald serve --port 0` and reads its start-up line for the bound port.
        static func start(database: String) async throws -> Server {
            let process = Process()
            process.executableURL = ProcessTests.executable
            process.arguments = [
                "serve", "--port", "0", "--database", database, "--user-token-secret",
                "process-test-secret-0123456789abcdef",
            ]
            let errors = Pipe()
            process.standardError = errors
            process.standardOutput = FileHandle.nullDevice
            let exitStatus = AsyncStream<Int32>.makeStream()
            process.terminationHandler = { finished in
                exitStatus.continuation.yield(finished.terminationStatus)
                exitStatus.continuation.finish()
            }
            try process.run()
            let exited = Task { await exitStatus.stream.first { _ in true } ?? -1 }
            // Read stderr on a thread of our own until the start-up line (or the end) arrives.
            let startup: String = await withCheckedContinuation { continuation in
                Thread.detachNewThread {
                    var seen = ""
                    while !seen.contains("herald listening") {
                        let chunk = errors.fileHandleForReading.availableData
                        if chunk.isEmpty { break }
                        seen += String(decoding: chunk, as: UTF8.self)
                    }
                    continuation.resume(returning: seen)
                }
            }
            let line = try #require(
                startup.split(separator: "\n").first { $0.contains("herald listening") }, "\(startup)")
            let port = try #require(
                line.split(separator: " ").first { $0.hasPrefix("port=") }.flatMap { Int($0.dropFirst(5)) })
            let server = Server(process: process, port: port, exited: exited, log: startup)
            Thread.detachNewThread {
                while true {
                    let chunk = errors.fileHandleForReading.availableData
                    if chunk.isEmpty { break }
                    server.log.withLock { $0 += String(decoding: chunk, as: UTF8.self) }
                }
            }
            return server
        }
    }

    @Test(
        "SIGTERM and SIGINT stop the server cleanly: it drains, exits 0 and stops listening",
        arguments: [SIGTERM, SIGINT])
    func signalStopsCleanly(signal: Int32) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "herald-process-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await Server.start(database: "sqlite:" + directory.appendingPathComponent("h.db").path)
        let client = LoopbackHTTPClient(port: server.port)
        #expect(try await client.request("GET", "/healthz").status == 200)

        kill(server.process.processIdentifier, signal)
        #expect(await server.exited.value == 0)
        #expect(server.process.terminationReason == .exit)
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
