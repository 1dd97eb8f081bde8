import FoundationEssentials
import HeraldCrypto
import HeraldModel
import HeraldServerModel

/// A Google service account as its JSON key file gives it, with the private key parsed.
public struct FCMServiceAccount: Sendable {
    /// The Firebase project, for `projects/{project_id}/messages:send`.
    public var projectID: String
    /// The id of `privateKey`, sent as the assertion's `kid`.
    public var privateKeyID: String
    /// The RSA key that signs assertions.
    public var privateKey: SigningKey
    /// The account, the assertion's `iss`.
    public var clientEmail: String
    /// The OAuth2 token endpoint, the assertion's `aud`.
    public var tokenURI: URL

    public init(projectID: String, privateKeyID: String, privateKey: SigningKey, clientEmail: String, tokenURI: URL) {
        self.projectID = projectID
        self.privateKeyID = privateKeyID
        self.privateKey = privateKey
        self.clientEmail = clientEmail
        self.tokenURI = tokenURI
    }

    /// The account in a service-account JSON file. Throws ``PushAuthError/missingField`` or
    /// ``PushAuthError/invalidField`` naming the field (`type` must be `service_account`,
    /// `private_key` an RSA PKCS#8 PEM, `token_uri` an http(s) URL).
    public init(json: [UInt8]) throws {
        guard let object = JSONValue.object(json) as? [String: Any] else {
            throw PushAuthError(.invalidField, "the service account is not a JSON object")
        }
        func field(_ name: String) throws -> String {
            guard let raw = object[name] else { throw PushAuthError(.missingField, name) }
            guard let value = raw as? String else { throw PushAuthError(.invalidField, "\(name) is not a string") }
            guard !value.isEmpty else { throw PushAuthError(.missingField, name) }
            return value
        }
        let type = try field("type")
        guard type == "service_account" else {
            throw PushAuthError(.invalidField, "type is \(type.prefix(40)), not service_account")
        }
        let key: SigningKey
        do {
            key = try SigningKey(privateKeyPEM: try field("private_key"))
        } catch let error as PushAuthError {
            throw error
        } catch {
            throw PushAuthError(.invalidField, "private_key is not a PEM private key: \(String(reflecting: error))")
        }
        guard case .rsa = key.kind else { throw PushAuthError(.invalidField, "private_key is not an RSA key") }
        let tokenURI = try field("token_uri")
        guard let url = URL(string: tokenURI), ["https", "http"].contains(url.scheme), url.host != nil else {
            throw PushAuthError(.invalidField, "token_uri is not an http(s) URL")
        }
        self.init(
            projectID: try field("project_id"), privateKeyID: try field("private_key_id"), privateKey: key,
            clientEmail: try field("client_email"), tokenURI: url)
    }

    /// The account as a service-account JSON file, as Google issues it (the fields above).
    public func json() throws -> [UInt8] {
        let object: [String: String] = [
            "type": "service_account", "project_id": projectID, "private_key_id": privateKeyID,
            "private_key": try privateKey.privateKeyPEM(), "client_email": clientEmail,
            "token_uri": tokenURI.absoluteString,
        ]
        var writer = JSONWriter()
        writer.stringMap(object)
        return writer.bytes
    }
}
