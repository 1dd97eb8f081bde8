import COpenSSL
import FoundationEssentials

/// A certificate and its private key in PEM files: what the TLS listener presents.
public struct TLSIdentity: Sendable, Equatable {
    /// The certificate; clients trust it as their CA file (`curl --cacert`).
    public var certificatePath: String
    public var privateKeyPath: String

    public init(certificatePath: String, privateKeyPath: String) {
        self.certificatePath = certificatePath
        self.privateKeyPath = privateKeyPath
    }

    /// The identity kept in `directory` as `sandbox-cert.pem` and `sandbox-key.pem`, made on first
    /// use: a self-signed P-256 certificate for `localhost` and `127.0.0.1`, valid ten years. Later
    /// starts reuse it, so clients keep trusting the same file.
    public static func selfSigned(in directory: String) throws(HTTP2ServerError) -> TLSIdentity {
        let identity = TLSIdentity(
            certificatePath: directory + "/sandbox-cert.pem", privateKeyPath: directory + "/sandbox-key.pem")
        let files = FileManager.default
        if files.fileExists(atPath: identity.certificatePath) && files.fileExists(atPath: identity.privateKeyPath) {
            return identity
        }
        let (certificate, key) = try SelfSignedCertificate.make()
        do {
            try files.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try PrivateFile.write(key, to: identity.privateKeyPath)
            try Data(certificate).write(to: URL(fileURLWithPath: identity.certificatePath), options: .atomic)
        } catch {
            throw HTTP2ServerError(.certificateFiles, "Cannot write the certificate to \(directory): \(error)")
        }
        return identity
    }
}
