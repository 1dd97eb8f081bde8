import Foundation
import HeraldHTTPTestSupport

/// A self-signed certificate for 127.0.0.1 and localhost, made once per test run with the
/// `openssl` command: the server's key and certificate, and the CA file a client trusts.
struct TestCertificate: Sendable {
    let keyFile: String
    let certificateFile: String

    /// The run's certificate.
    static let shared = Task { try await make() }

    private static func make() async throws -> TestCertificate {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("h2-cert-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let certificate = TestCertificate(
            keyFile: directory.appendingPathComponent("key.pem").path,
            certificateFile: directory.appendingPathComponent("cert.pem").path)
        let result = try await ChildProcess.run(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
                "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
                "-keyout", certificate.keyFile, "-out", certificate.certificateFile,
            ])
        guard result.exit == .exited(0) else {
            throw NGHTTPDError(message: "openssl could not make a test certificate: \(result.stderr)")
        }
        return certificate
    }
}
