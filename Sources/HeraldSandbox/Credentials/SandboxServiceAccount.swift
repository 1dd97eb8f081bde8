import FoundationEssentials
import HeraldCrypto
import HeraldModel
import HeraldServerModel

/// The FCM service account of a sandbox: an RSA 2048 key with its ids, kept in its state
/// directory as a service-account JSON file (`fcm-service-account.json`, mode 0600) that
/// `herald serve` reads like one Google issues.
///
/// The file's `token_uri` names the sandbox's token endpoint, whose port may be known only once
/// the sandbox listens: ``write(tokenURI:)`` rewrites it on every start, the key staying the same.
public struct SandboxServiceAccount: Sendable {
    /// The project id a new directory gets.
    public static let defaultProjectID = "herald-sandbox"
    /// The file name in the state directory.
    public static let fileName = "fcm-service-account.json"

    public var projectID: String
    /// 40 hex digits, as Google's key ids; sent as the assertion's `kid`.
    public var privateKeyID: String
    /// The signing key (private).
    public var key: SigningKey
    public var clientEmail: String
    /// Where the JSON file is.
    public var path: String

    /// The account kept in `directory`, made (and written with a `token_uri` on the default
    /// port) when absent.
    static func loadOrCreate(in directory: String) throws -> SandboxServiceAccount {
        let path = directory + "/" + fileName
        if FileManager.default.fileExists(atPath: path) {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            guard let object = JSONValue.object(data) as? [String: Any],
                let projectID = object["project_id"] as? String, let keyID = object["private_key_id"] as? String,
                let pem = object["private_key"] as? String, let email = object["client_email"] as? String
            else { throw SandboxError(.credentials, "\(path) is not a service-account JSON file") }
            return SandboxServiceAccount(
                projectID: projectID, privateKeyID: keyID, key: try SigningKey(privateKeyPEM: pem), clientEmail: email,
                path: path)
        }
        let account = SandboxServiceAccount(
            projectID: defaultProjectID, privateKeyID: Hex.encode(SecureRandom.bytes(count: 20)),
            key: try SigningKey.generateRSA(bits: 2_048),
            clientEmail: "herald-sandbox@\(defaultProjectID).iam.gserviceaccount.com", path: path)
        try account.write(tokenURI: "https://127.0.0.1:8090/token")
        return account
    }

    /// Writes the JSON file (mode 0600) with `token_uri` = `tokenURI`, such as
    /// `https://127.0.0.1:8090/token`.
    public func write(tokenURI: String) throws {
        let object: [String: String] = [
            "type": "service_account", "project_id": projectID, "private_key_id": privateKeyID,
            "private_key": try key.privateKeyPEM(), "client_email": clientEmail, "client_id": "000000000000000000000",
            "auth_uri": "https://accounts.google.com/o/oauth2/auth", "token_uri": tokenURI,
        ]
        var writer = JSONWriter()
        writer.stringMap(object)
        try PrivateFile.write(Data(writer.bytes), to: path)
    }
}
