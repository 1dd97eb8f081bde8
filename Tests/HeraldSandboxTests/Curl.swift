import Foundation
import HeraldHTTPTestSupport

/// The `curl` command-line tool as a child process (``ChildProcess``: no cooperative thread blocks).
enum Curl {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static func run(_ arguments: [String]) async throws -> Result {
        let result = try await ChildProcess.run(
            "/usr/bin/curl", ["--silent", "--show-error", "--max-time", "30"] + arguments)
        return Result(status: result.exit.code, stdout: result.stdout, stderr: result.stderr)
    }
}
