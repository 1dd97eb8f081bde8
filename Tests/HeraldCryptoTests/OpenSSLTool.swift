import Foundation
import HeraldHTTPTestSupport

/// Runs the `openssl` command-line tool through ``ChildProcess`` (no cooperative thread blocks).
enum OpenSSLTool {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs `openssl arguments` in `directory` and answers its standard output.
    static func run(_ arguments: [String], in directory: URL? = nil) async throws -> String {
        let result = try await ChildProcess.run("/usr/bin/openssl", arguments, directory: directory?.path)
        guard result.exit == .exited(0) else {
            throw Failure(
                description: "openssl \(arguments.joined(separator: " ")) ended \(result.exit): \(result.stderr)")
        }
        return result.stdout
    }
}
