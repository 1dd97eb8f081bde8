import Foundation
import HeraldSandbox
import Testing

/// The look-alike behind the ``SandboxRouter`` on a real ``HTTP2Server`` over TLS, with the
/// credentials `herald sandbox` makes.
@Suite("FCM look-alike over TLS, driven by curl")
struct FCMOverTLSTests {
    @Test("the service account file's token_uri gets a token over TLS; the token sends; the file keeps its key")
    func tokenThenSend() async throws {
        let directory = try temporaryDirectory()
        let credentials = try SandboxCredentials.loadOrCreate(in: directory)
        let fcm = try FCMSandbox(credentials: credentials)
        let server = try HTTP2Server.start(
            configuration: HTTP2ServerConfiguration(tls: credentials.tls), answering: SandboxRouter(fcm.routes).answer)
        let base = "https://127.0.0.1:\(server.port)"
        try credentials.fcm.write(tokenURI: base + "/token")
        let file = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: credentials.fcm.path)))
        let account = try #require(file as? [String: String])
        let mode = try FileManager.default.attributesOfItem(atPath: credentials.fcm.path)[.posixPermissions] as? Int
        let assertion = try FCMFixture.assertion(
            key: credentials.fcm.key, keyID: credentials.fcm.privateKeyID, iss: credentials.fcm.clientEmail,
            aud: try #require(account["token_uri"]), iat: Date())
        let tls = ["--http2", "--cacert", credentials.tls.certificatePath]
        let exchanged = try await Curl.run(
            tls + [
                "--data-binary",
                "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(assertion)",
                base + "/token",
            ])
        let token = try #require(
            (try JSONSerialization.jsonObject(with: Data(exchanged.stdout.utf8)) as? [String: Any])?["access_token"]
                as? String, "\(exchanged.stdout) \(exchanged.stderr)")
        let sent = try await Curl.run(
            tls + [
                "--write-out", "\n%{http_code}", "-H", "authorization: Bearer \(token)", "-H",
                "content-type: application/json", "--data-binary", #"{"message":\#(FCMFixture.message())}"#,
                base + "/v1/projects/\(account["project_id"] ?? "")/messages:send",
            ])
        await server.stop()

        #expect(account["type"] == "service_account" && account["project_id"] == SandboxServiceAccount.defaultProjectID)
        #expect(account["private_key"]?.hasPrefix("-----BEGIN PRIVATE KEY-----") == true && mode == 0o600)
        #expect(sent.stdout.hasSuffix("\n200"), "\(sent.stdout)")
        #expect(fcm.accepted.map(\.token) == [FCMFixture.registrationToken])
        let reloaded = try SandboxCredentials.loadOrCreate(in: directory)
        #expect(try reloaded.fcm.key.privateKeyPEM() == credentials.fcm.key.privateKeyPEM())
        #expect(reloaded.fcm.privateKeyID == credentials.fcm.privateKeyID)
    }
}
