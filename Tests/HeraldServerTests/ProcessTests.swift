import Foundation
import HeraldHTTPTestSupport
import Testing

/// The real `herald` executable, as an operator runs it.
@Suite("herald process")
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

    /// Starts `herald serve` on a free port and answers the process and its port.
    static func serve(database: String) throws -> (Process, Int, Pipe) {
        let process = Process()
        process.executableURL = executable
        process.arguments = [
            "serve", "--port", "0", "--database", database, "--user-token-secret",
            "process-test-secret-0123456789abcdef",
        ]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        // The start-up log line carries the bound port: `... msg="herald listening" ... port=N`.
        var seen = ""
        while !seen.contains("herald listening") {
            let chunk = errors.fileHandleForReading.availableData
            guard !chunk.isEmpty else { break }
            seen += String(decoding: chunk, as: UTF8.self)
        }
        let line = try #require(seen.split(separator: "\n").first { $0.contains("herald listening") })
        let port = try #require(
            line.split(separator: " ").first { $0.hasPrefix("port=") }.flatMap { Int($0.dropFirst(5)) })
        return (process, port, errors)
    }

    @Test(
        "SIGTERM and SIGINT stop the server cleanly: it drains, exits 0 and stops listening",
        arguments: [SIGTERM, SIGINT])
    func signalStopsCleanly(signal: Int32) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "herald-process-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let (process, port, errors) = try Self.serve(
            database: "sqlite:" + directory.appendingPathComponent("h.db").path)
        let client = LoopbackHTTPClient(port: port)
        #expect(try await client.request("GET", "/healthz").status == 200)

        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0)
        let log = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(log.contains("draining") && log.contains("herald stopped"), "\(log)")
        await #expect(throws: (any Error).self) { _ = try await client.request("GET", "/healthz") }
    }
}
