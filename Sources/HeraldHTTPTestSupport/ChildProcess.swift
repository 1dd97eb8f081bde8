import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A child process started with `posix_spawn`, for tests that run tools (`herald`, `curl`,
/// `openssl`).
///
/// Foundation's `Process.run()` in Swift 6.3.1 on Linux crashes now and then: it copies all
/// 256 bytes of each `/proc/self/fd` entry's `d_name` and can read past glibc's buffer into an
/// unmapped page (swift-corelibs-foundation PR #5472). A test process with many sockets open
/// hit it in about half the runs. Nothing here blocks a Swift concurrency thread: the exit is
/// awaited by a thread of its own.
public final class ChildProcess: Sendable {
    /// How the child ended.
    public enum Exit: Sendable, Equatable {
        case exited(Int32)
        case signaled(Int32)

        /// The exit code; -1 for a child ended by a signal.
        public var code: Int32 {
            if case .exited(let code) = self { return code }
            return -1
        }
    }

    public struct SpawnError: Error, CustomStringConvertible {
        public let description: String
    }

    public let pid: pid_t
    /// The read end of the child's standard output, when captured.
    public let standardOutput: FileHandle?
    /// The read end of the child's standard error, when captured.
    public let standardError: FileHandle?
    private let state = Mutex<(exit: Exit?, waiters: [CheckedContinuation<Exit, Never>])>((nil, []))

    private init(pid: pid_t, standardOutput: FileHandle?, standardError: FileHandle?) {
        self.pid = pid
        self.standardOutput = standardOutput
        self.standardError = standardError
    }

    /// Starts `path` with `arguments` (standard input from `/dev/null`), in `directory` when given.
    public static func spawn(
        _ path: String, _ arguments: [String], directory: String? = nil, captureOutput: Bool = true,
        captureError: Bool = true
    ) throws -> ChildProcess {
        // Pipes are made close-on-exec in two steps (`pipe2` is not visible to Swift); holding
        // one lock over pipes and spawn keeps another child from inheriting a write end.
        try spawning.withLock { _ in
            try spawnLocked(
                path, arguments, directory: directory, captureOutput: captureOutput, captureError: captureError)
        }
    }

    private static let spawning = Mutex(())

    private static func spawnLocked(
        _ path: String, _ arguments: [String], directory: String?, captureOutput: Bool, captureError: Bool
    ) throws -> ChildProcess {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        _ = posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        let output = try captureOutput ? makePipe() : nil
        let errors = try captureError ? makePipe() : nil
        if let output {
            _ = posix_spawn_file_actions_adddup2(&actions, output.write, 1)
        } else {
            _ = posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        }
        if let errors {
            _ = posix_spawn_file_actions_adddup2(&actions, errors.write, 2)
        } else {
            _ = posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        }
        // glibc's `addchdir_np` is not visible to Swift: a shell changes directory, then execs.
        let command =
            directory.map { ["/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", $0, path] + arguments }
            ?? [path] + arguments
        let argv = command.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        // The child starts with no signal blocked and every signal at its default action: the
        // spawning thread may be a dispatch worker that blocks most signals, and a child that
        // inherited that mask (bash, say) would never see the SIGTERM a test sends it.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        _ = posix_spawnattr_setsigmask(&attributes, &noSignals)
        _ = posix_spawnattr_setsigdefault(&attributes, &allSignals)
        _ = posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let result = posix_spawn(&pid, command[0], &actions, &attributes, argv, environ)
        if let output { close(output.write) }
        if let errors { close(errors.write) }
        guard result == 0 else {
            if let output { close(output.read) }
            if let errors { close(errors.read) }
            throw SpawnError(description: "posix_spawn \(path): \(String(cString: strerror(result)))")
        }
        let child = ChildProcess(
            pid: pid,
            standardOutput: output.map { FileHandle(fileDescriptor: $0.read, closeOnDealloc: true) },
            standardError: errors.map { FileHandle(fileDescriptor: $0.read, closeOnDealloc: true) })
        Thread.detachNewThread { child.reap() }
        return child
    }

    /// Runs `path` to its end and answers how it ended and what it wrote.
    public static func run(
        _ path: String, _ arguments: [String], directory: String? = nil
    ) async throws -> (exit: Exit, stdout: String, stderr: String) {
        let child = try spawn(path, arguments, directory: directory)
        async let stdout = readToEnd(child.standardOutput)
        async let stderr = readToEnd(child.standardError)
        let exit = await child.exit()
        return (exit, await stdout, await stderr)
    }

    /// Waits for the child to end.
    public func exit() async -> Exit {
        await withCheckedContinuation { continuation in
            let ended = state.withLock { state -> Exit? in
                if let exit = state.exit { return exit }
                state.waiters.append(continuation)
                return nil
            }
            if let ended { continuation.resume(returning: ended) }
        }
    }

    /// How the child ended; `nil` while it runs.
    public var exitIfEnded: Exit? { state.withLock { $0.exit } }

    /// Sends `signal` to the child (nothing once it has ended).
    public func send(_ signal: Int32) {
        if exitIfEnded == nil { kill(pid, signal) }
    }

    /// Reads `handle` to its end on a thread of its own (empty for `nil`).
    public static func readToEnd(_ handle: FileHandle?) async -> String {
        guard let handle else { return "" }
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(returning: String(decoding: handle.readDataToEndOfFile(), as: UTF8.self))
            }
        }
    }

    private func reap() {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let low = status & 0x7f
        let exit: Exit = low == 0 ? .exited((status >> 8) & 0xff) : .signaled(low)
        let waiters = state.withLock { state in
            state.exit = exit
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: exit) }
    }

    private static func makePipe() throws -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else {
            throw SpawnError(description: "pipe: \(String(cString: strerror(errno)))")
        }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return (fds[0], fds[1])
    }
}
