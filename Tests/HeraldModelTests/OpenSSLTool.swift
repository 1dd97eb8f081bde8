import Foundation

/// Runs the `openssl` command-line tool. Nothing blocks a cooperative thread: pipes are read
/// on threads of their own and the exit arrives through `terminationHandler`.
enum OpenSSLTool {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// A fresh empty directory under the system's temporary directory.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("herald-openssl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Runs `openssl arguments` in `directory` and answers its standard output.
    static func run(_ arguments: [String], in directory: URL? = nil) async throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
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
        guard status == 0 else {
            throw Failure(description: "openssl \(arguments.joined(separator: " ")) exited \(status): \(await stderr)")
        }
        return await stdout
    }

    /// Reads `handle` to its end on a thread of its own.
    private static func readToEnd(_ handle: FileHandle) async -> String {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(returning: String(decoding: handle.readDataToEndOfFile(), as: UTF8.self))
            }
        }
    }
}
