import Foundation
import HeraldTestSupport
import Synchronization

/// The `herald` executable built beside the test bundle, run as a child process.
///
/// Started through ``ChildProcess``: nothing blocks a Swift concurrency thread (blocking both
/// cooperative threads in a wait can starve the very callbacks that report the exit).
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
        let result = try await ChildProcess.run(url.path, arguments)
        guard result.exit == .exited(0) else {
            throw HeraldProcessError.commandFailed(
                "herald \(arguments.joined(separator: " ")) ended \(result.exit): \(result.stderr)")
        }
        return result.stdout
    }
}

/// One running `herald serve` (or `herald sandbox`): its port, its exit, and everything it wrote to stderr.
public final class HeraldProcess: Sendable {
    public let port: Int
    private let child: ChildProcess
    private let log: Mutex<String>
    /// The directory of a database made for this process alone, removed once it has stopped.
    private let scratch: TemporaryDirectory?

    /// Everything the server logged so far.
    public var stderr: String { log.withLock { $0 } }

    /// The process id, for reading `/proc/<pid>`.
    public var pid: pid_t { child.pid }

    /// How the process ended; `nil` while it runs.
    public var exit: ChildProcess.Exit? { child.exitIfEnded }

    private init(child: ChildProcess, port: Int, log: String, scratch: TemporaryDirectory?) {
        self.child = child
        self.port = port
        self.log = Mutex(log)
        self.scratch = scratch
    }

    /// The `sqlite:` URL of the database made by ``start(secret:extraArguments:wrapper:deadline:)``.
    public var database: String? { scratch.map { "sqlite:" + $0.path("herald.db") } }

    /// Starts `herald serve` on a SQLite database of its own (``database``) in a fresh temporary
    /// directory, which ``stop(signal:)`` removes after the exit. `executable` runs another copy
    /// of `herald` than the one built beside the tests.
    public static func start(
        secret: String, extraArguments: [String] = [], wrapper: [String] = [], executable: String? = nil,
        deadline: Duration = .seconds(20)
    ) async throws -> HeraldProcess {
        let scratch = try TemporaryDirectory("herald-serve")
        do {
            return try await launch(
                [
                    "serve", "--port", "0", "--database", "sqlite:" + scratch.path("herald.db"),
                    "--user-token-secret", secret,
                ] + extraArguments, startupLine: "herald listening", wrapper: wrapper, executable: executable,
                deadline: deadline, scratch: scratch)
        } catch {
            scratch.remove()
            throw error
        }
    }

    /// Starts `herald serve` on `port` (0: a free one) with `extraArguments` and waits for its
    /// start-up line. A server that does not start within `deadline` is killed and the start fails.
    /// `wrapper` runs it through another program, e.g. `["/usr/bin/prlimit", "--nofile=1024:1024"]`.
    public static func start(
        database: String, secret: String, port: Int = 0, extraArguments: [String] = [],
        wrapper: [String] = [], deadline: Duration = .seconds(20)
    ) async throws -> HeraldProcess {
        try await launch(
            ["serve", "--port", String(port), "--database", database, "--user-token-secret", secret]
                + extraArguments,
            startupLine: "herald listening", wrapper: wrapper, deadline: deadline)
    }

    /// Starts `herald` with `arguments` and waits for the stderr line containing `startupLine`,
    /// which names the bound port as `port=N` (`herald sandbox` prints `herald sandbox listening`).
    public static func launch(
        _ arguments: [String], startupLine: String, wrapper: [String] = [], deadline: Duration = .seconds(20)
    ) async throws -> HeraldProcess {
        try await launch(
            arguments, startupLine: startupLine, wrapper: wrapper, executable: nil, deadline: deadline, scratch: nil)
    }

    private static func launch(
        _ arguments: [String], startupLine: String, wrapper: [String], executable: String?, deadline: Duration,
        scratch: TemporaryDirectory?
    ) async throws -> HeraldProcess {
        let program = executable ?? HeraldExecutable.url.path
        guard FileManager.default.isExecutableFile(atPath: program) else {
            throw HeraldProcessError.startFailed("no herald executable at \(program); build it first")
        }
        let child =
            try wrapper.isEmpty
            ? ChildProcess.spawn(program, arguments, captureOutput: false)
            : ChildProcess.spawn(wrapper[0], Array(wrapper.dropFirst()) + [program] + arguments, captureOutput: false)
        guard let errors = child.standardError else { throw HeraldProcessError.startFailed("no stderr pipe") }
        let watchdog = Task {
            try await Task.sleep(for: deadline)
            child.send(SIGTERM)
        }
        // Read stderr on a thread of our own until the start-up line (or the end) arrives.
        let startup: String = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var seen = ""
                while !seen.contains(startupLine) {
                    let chunk = errors.availableData
                    if chunk.isEmpty { break }
                    seen += String(decoding: chunk, as: UTF8.self)
                }
                continuation.resume(returning: seen)
            }
        }
        watchdog.cancel()
        guard
            let line = startup.split(separator: "\n").first(where: { $0.contains(startupLine) }),
            let bound = line.split(separator: " ").first(where: { $0.hasPrefix("port=") }).flatMap({
                Int($0.dropFirst(5))
            })
        else {
            child.send(SIGTERM)
            _ = await child.exit()
            throw HeraldProcessError.startFailed(startup)
        }
        let server = HeraldProcess(child: child, port: bound, log: startup, scratch: scratch)
        Thread.detachNewThread {
            while true {
                let chunk = errors.availableData
                if chunk.isEmpty { break }
                server.log.withLock { $0 += String(decoding: chunk, as: UTF8.self) }
            }
        }
        return server
    }

    /// Sends `signal` (SIGKILL: a crash; SIGTERM: a clean stop) and waits for the exit.
    @discardableResult
    public func stop(signal: Int32 = SIGTERM) async -> ChildProcess.Exit {
        child.send(signal)
        let exit = await child.exit()
        scratch?.remove()
        return exit
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
