import FoundationEssentials
import HeraldCrypto

/// The key material of a sandbox, made on first start in its state directory and reused after:
/// the APNs `.p8` key (`AuthKey_<KEYID>.p8`, PKCS#8 PEM, mode 0600) with its key id, team id and
/// bundle id (in `apns.json`), the FCM service account (``SandboxServiceAccount``), and the TLS
/// identity its listener presents.
public struct SandboxCredentials: Sendable {
    /// The bundle id a new directory gets.
    public static let defaultBundleID = "dev.herald.sandbox"

    /// The state directory.
    public var directory: String
    /// The APNs signing key (private); a server signs its provider tokens with it.
    public var key: SigningKey
    /// 10 characters, as Apple's key ids.
    public var keyID: String
    /// 10 characters, as Apple's team ids.
    public var teamID: String
    public var bundleID: String
    /// The self-signed certificate and key for TLS.
    public var tls: TLSIdentity
    /// The FCM service account.
    public var fcm: SandboxServiceAccount
    /// The access token the Expo look-alike wants as `Authorization: Bearer` (kept in `expo.json`).
    public var expoAccessToken: String

    /// Where the `.p8` key is.
    public var keyPath: String { directory + "/AuthKey_\(keyID).p8" }

    /// The credentials kept in `directory`, created there (with `bundleID`) when absent.
    public static func loadOrCreate(
        in directory: String, bundleID: String = defaultBundleID
    ) throws(SandboxError) -> SandboxCredentials {
        let tls: TLSIdentity
        do {
            tls = try TLSIdentity.selfSigned(in: directory)
        } catch {
            throw SandboxError(.credentials, "Cannot make the TLS identity in \(directory): \(error)")
        }
        let fcm: SandboxServiceAccount
        do {
            fcm = try SandboxServiceAccount.loadOrCreate(in: directory)
        } catch let error as SandboxError {
            throw error
        } catch {
            throw SandboxError(.credentials, "Cannot read or write the FCM service account in \(directory): \(error)")
        }
        let record = directory + "/apns.json"
        do {
            let expoAccessToken = try loadOrCreateExpoAccessToken(in: directory)
            if FileManager.default.fileExists(atPath: record) {
                let ids = try JSONDecoder().decode(
                    APNsIdentifiers.self, from: Data(contentsOf: URL(fileURLWithPath: record)))
                let pem = try String(contentsOfFile: directory + "/AuthKey_\(ids.keyId).p8", encoding: .utf8)
                return SandboxCredentials(
                    directory: directory, key: try SigningKey(privateKeyPEM: pem), keyID: ids.keyId, teamID: ids.teamId,
                    bundleID: ids.bundleId, tls: tls, fcm: fcm, expoAccessToken: expoAccessToken)
            }
            let credentials = SandboxCredentials(
                directory: directory, key: try SigningKey.generateP256(), keyID: identifier(), teamID: identifier(),
                bundleID: bundleID, tls: tls, fcm: fcm, expoAccessToken: expoAccessToken)
            try credentials.write(record: record)
            return credentials
        } catch let error as SandboxError {
            throw error
        } catch {
            throw SandboxError(.credentials, "Cannot read or write the APNs key in \(directory): \(error)")
        }
    }

    /// Writes the `.p8` (0600) first, then the record that names it: a crash between the two
    /// leaves no record, so the next start makes everything again.
    private func write(record: String) throws {
        try PrivateFile.write(Data(try key.privateKeyPEM().utf8), to: keyPath)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let ids = APNsIdentifiers(keyId: keyID, teamId: teamID, bundleId: bundleID)
        try encoder.encode(ids).write(to: URL(fileURLWithPath: record), options: .atomic)
    }

    /// The Expo access token kept in `directory/expo.json` (0600), made there when absent.
    private static func loadOrCreateExpoAccessToken(in directory: String) throws -> String {
        let path = directory + "/expo.json"
        if FileManager.default.fileExists(atPath: path) {
            return try JSONDecoder().decode(ExpoRecord.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
                .accessToken
        }
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
        let token = String(SecureRandom.bytes(count: 40).map { alphabet[Int($0) % alphabet.count] })
        try PrivateFile.write(try JSONEncoder().encode(ExpoRecord(accessToken: token)), to: path)
        return token
    }

    /// 10 random characters from Apple's alphabet for ids (uppercase letters and digits).
    private static func identifier() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        return String(SecureRandom.bytes(count: 10).map { alphabet[Int($0) % alphabet.count] })
    }
}

/// `apns.json`: the ids that go with the `.p8`.
private struct APNsIdentifiers: Codable {
    var keyId: String
    var teamId: String
    var bundleId: String
}

/// `expo.json`: the Expo look-alike's access token.
private struct ExpoRecord: Codable {
    var accessToken: String
}
