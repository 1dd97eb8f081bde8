import Foundation
import HeraldCrypto
import HeraldSandbox
import Testing

/// The look-alike on a real ``HTTP2Server`` over TLS (curl 7.88 cannot reuse h2c connections).
@Suite("APNs look-alike over TLS, driven by curl")
struct APNsOverTLSTests {
    @Test("valid token: 200 with apns-id echoed; forged token: 403; token faulted by the admin endpoint: 410; listed")
    func outcomes() async throws {
        let credentials = try SandboxCredentials.loadOrCreate(in: try temporaryDirectory())
        let sandbox = try APNsSandbox(credentials: credentials)
        let server = try HTTP2Server.start(
            configuration: HTTP2ServerConfiguration(tls: credentials.tls), answering: sandbox.answer)
        let now = Int64(Date().timeIntervalSince1970)
        let token = try JWT.sign(
            header: ["kid": credentials.keyID], claims: APNsProviderClaims(iss: credentials.teamID, iat: now),
            key: credentials.key)
        let forged = try JWT.sign(
            header: ["kid": credentials.keyID], claims: APNsProviderClaims(iss: credentials.teamID, iat: now),
            key: SigningKey.generateP256())
        let gone = String(repeating: "0f", count: 32)
        let base = "https://127.0.0.1:\(server.port)"
        let tls = ["--http2", "--cacert", credentials.tls.certificatePath]
        let setFault = try await Curl.run(
            tls + [
                "--write-out", "%{http_code}", "--data-binary", #"{"deviceToken":"\#(gone)","fault":"unregistered"}"#,
                base + "/admin/apns/faults",
            ])

        func push(to device: String, token: String) async throws -> Curl.Result {
            try await Curl.run([
                "--http2", "--cacert", credentials.tls.certificatePath, "--include",
                "-H", "authorization: bearer \(token)", "-H", "apns-topic: \(credentials.bundleID)",
                "-H", "apns-push-type: alert", "-H", "apns-id: 0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
                "--data-binary", #"{"aps":{"alert":{"title":"Hi"}},"notificationId":"n1"}"#,
                "https://127.0.0.1:\(server.port)/3/device/\(device)",
            ])
        }
        let sent = try await push(to: APNsFixture.deviceToken, token: token)
        let refused = try await push(to: APNsFixture.deviceToken, token: forged)
        let unregistered = try await push(to: gone, token: token)
        let listed = try await Curl.run(tls + [base + "/admin/apns/accepted"])
        await server.stop()

        #expect(setFault.stdout == "204")
        let listing = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any]
        let entries = listing?["accepted"] as? [[String: Any]]
        #expect(entries?.map { $0["apnsId"] as? String } == ["0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"])

        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(sent.stdout.hasPrefix("HTTP/2 200"))
        #expect(sent.stdout.contains("apns-id: 0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"))
        #expect(refused.stdout.hasPrefix("HTTP/2 403"))
        #expect(refused.stdout.hasSuffix(#"{"reason":"InvalidProviderToken"}"#))
        #expect(unregistered.stdout.hasPrefix("HTTP/2 410"))
        #expect(unregistered.stdout.contains(#"{"reason":"Unregistered","timestamp":"#))
        let accepted = sandbox.accepted
        #expect(accepted.map(\.deviceToken) == [APNsFixture.deviceToken])
        #expect(accepted.first?.payloadObject["notificationId"] as? String == "n1")
        #expect(sandbox.statusCounts == [200: 1, 403: 1, 410: 1])
    }

    @Test("dropConnection: curl sees the connection fail, nothing is accepted")
    func dropped() async throws {
        let credentials = try SandboxCredentials.loadOrCreate(in: try temporaryDirectory())
        let sandbox = try APNsSandbox(credentials: credentials)
        let server = try HTTP2Server.start(
            configuration: HTTP2ServerConfiguration(tls: credentials.tls), answering: sandbox.answer)
        sandbox.setFault(.dropConnection, for: APNsFixture.deviceToken)
        let token = try JWT.sign(
            header: ["kid": credentials.keyID],
            claims: APNsProviderClaims(iss: credentials.teamID, iat: Int64(Date().timeIntervalSince1970)),
            key: credentials.key)
        let result = try await Curl.run([
            "--http2", "--cacert", credentials.tls.certificatePath, "-H", "authorization: bearer \(token)",
            "-H", "apns-topic: \(credentials.bundleID)", "--data-binary", #"{"aps":{}}"#,
            "https://127.0.0.1:\(server.port)/3/device/\(APNsFixture.deviceToken)",
        ])
        await server.stop()
        #expect(result.status != 0)
        #expect(sandbox.accepted.isEmpty)
    }
}
