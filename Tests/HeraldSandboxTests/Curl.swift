import Foundation
import HeraldHTTPTestSupport

/// The `curl` command-line tool as a child process. Pipes are read on threads of their own and the
/// exit is awaited through `terminationHandler`, so no cooperative thread blocks.
enum Curl {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static func run(_ arguments: [String]) async throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["--silent", "--show-error", "--max-time", "30"] + arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        let exit = AsyncStream<Int32>.makeStream()
        process.terminationHandler = { finished in
            exit.continuation.yield(finished.terminationStatus)
            exit.continuation.finish()
        }
        try process.run()
        async let stdout = HeraldExecutable.readToEnd(output.fileHandleForReading)
        async let stderr = HeraldExecutable.readToEnd(errors.fileHandleForReading)
        let status = await exit.stream.first { _ in true } ?? -1
        return Result(status: status, stdout: await stdout, stderr: await stderr)
    }
}
