import Foundation
import Synchronization

/// The `herald` executable built beside the test bundle, run as a child process.
///
/// Nothing here blocks a Swift concurrency thread: pipes are read on threads of their own and
/// exits are awaited through `terminationHandler` (blocking both cooperative threads in
/// `waitUntilExit` can starve the very callbacks that report the exit).
public enum HeraldExecutable {
    /// The `herald` built beside the test bundle.
    public static var url: URL {
        var directory = Bundle.main.bundleURL
        while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("herald").path),
            directory.pathComponents.count > 1
        {
            directory.deleteLastPathComponent()
        }
        return directory.appendingPathComponent("herald")
    }

    /// Runs one `herald` command to its end and answers its standard output; throws when it
    /// exits with a failure.
    public static func run(_ arguments: [String]) async throws -> String {
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        let exit = AsyncStream<Int32>.makeStream()
        process.terminationHandler = { finished in
            exit.continuation.yield(finished.terminationStatus)
            exit.continuation.finish()
        }
        try process.run()
        async let stdout = readToEnd(output.fileHandleForReading)
        async let stderr = readToEnd(errors.fileHandleForReading)
        let status = await exit.stream.first { _ in true } ?? -1
        let text = await stdout
        guard status == 0 else {
            throw HeraldProcessError.commandFailed(
                "herald \(arguments.joined(separator: " ")) exited \(status): \(await stderr)")
        }
        return text
    }

    /// Reads `handle` to its end on a thread of its own.
    public static func readToEnd(_ handle: FileHandle) async -> String {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var data = Data()
                while true {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    data.append(chunk)
                }
                continuation.resume(returning: String(decoding: data, as: UTF8.self))
            }
        }
    }
}

/// One running `herald serve`: its port, its exit, and everything it wrote to stderr.
public final class HeraldProcess: Sendable {
    public let port: Int
    private let process: Process
    private let exited: Task<Int32, Never>
    private let log: Mutex<String>

    /// Everything the server logged so far.
    public var stderr: String { log.withLock { $0 } }

    /// Whether the process exited by itself or was ended by a signal (valid once it exited).
    public var terminationReason: Process.TerminationReason { process.terminationReason }

    /// The process id, to send signals.
    public var processIdentifier: Int32 { process.processIdentifier }

    private init(process: Process, port: Int, exited: Task<Int32, Never>, log: String) {
        self.process = process
        self.port = port
        self.exited = exited
        self.log = Mutex(log)
    }

    /// Starts `herald serve` on `port` (0: a free one) and waits for its start-up line. A server
    /// that does not start within `deadline` is killed and the start fails.
    public static func start(
        database: String, secret: String, port: Int = 0, deadline: Duration = .seconds(20)
    ) async throws -> HeraldProcess {
        let process = Process()
        process.executableURL = HeraldExecutable.url
        process.arguments = [
            "serve", "--port", String(port), "--database", database, "--user-token-secret", secret,
        ]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        let exitStatus = AsyncStream<Int32>.makeStream()
        process.terminationHandler = { finished in
            exitStatus.continuation.yield(finished.terminationStatus)
            exitStatus.continuation.finish()
        }
        guard FileManager.default.isExecutableFile(atPath: HeraldExecutable.url.path) else {
            throw HeraldProcessError.startFailed("no herald executable at \(HeraldExecutable.url.path); build it first")
        }
        try process.run()
        let exited = Task { await exitStatus.stream.first { _ in true } ?? -1 }
        let watchdog = Task {
            try await Task.sleep(for: deadline)
            process.terminate()
        }
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
        watchdog.cancel()
        guard
            let line = startup.split(separator: "\n").first(where: { $0.contains("herald listening") }),
            let bound = line.split(separator: " ").first(where: { $0.hasPrefix("port=") }).flatMap({
                Int($0.dropFirst(5))
            })
        else {
            process.terminate()
            _ = await exited.value
            throw HeraldProcessError.startFailed(startup)
        }
        let server = HeraldProcess(process: process, port: bound, exited: exited, log: startup)
        Thread.detachNewThread {
            while true {
                let chunk = errors.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                server.log.withLock { $0 += String(decoding: chunk, as: UTF8.self) }
            }
        }
        return server
    }

    /// Sends `signal` (SIGKILL: a crash; SIGTERM: a clean stop) and waits for the exit.
    @discardableResult
    public func stop(signal: Int32 = SIGTERM) async -> Int32 {
        if process.isRunning { kill(process.processIdentifier, signal) }
        return await exited.value
    }
}

/// Why a `herald` child process could not do its part.
public enum HeraldProcessError: Error, CustomStringConvertible {
    case startFailed(String)
    case commandFailed(String)

    public var description: String {
        switch self {
        case .startFailed(let log): "herald did not start: \(log)"
        case .commandFailed(let message): message
        }
    }
}
