import Foundation
import HeraldSandbox
import HeraldTestSupport

/// Sandbox key material for tests, made once per test process and copied into a fresh directory
/// for each fixture (which may change its files: the FCM `token_uri`, say).
///
/// Making it costs an RSA 2048 key, two P-256 keys and a certificate: up to a second of CPU on a
/// cooperative thread. Made anew by every push fixture, that starved the other tests running
/// beside them on a loaded 2-core machine.
enum TestSandboxCredentials {
    private static let template: Result<String, any Error> = Result {
        let directory = try makeDirectory("herald-sandbox-template")
        _ = try SandboxCredentials.loadOrCreate(in: directory)
        return directory
    }

    /// A copy of the shared credentials in a new temporary directory named after `prefix`.
    static func fresh(prefix: String) throws -> SandboxCredentials {
        let template = try template.get()
        let directory = try makeDirectory(prefix)
        for name in try FileManager.default.contentsOfDirectory(atPath: template) {
            try FileManager.default.copyItem(atPath: template + "/" + name, toPath: directory + "/" + name)
        }
        return try SandboxCredentials.loadOrCreate(in: directory)
    }

    private static func makeDirectory(_ prefix: String) throws -> String {
        try TemporaryDirectory(prefix).path
    }
}
