import Foundation
import HeraldCrypto
import HeraldSandbox
import Testing

@Suite("Sandbox credentials: made on first start, reused after")
struct SandboxCredentialsTests {
    @Test("a .p8 key (PKCS#8, 0600), 10-character ids, the bundle id and a TLS identity, the same on the next load")
    func persisted() throws {
        let directory = try temporaryDirectory()
        let first = try SandboxCredentials.loadOrCreate(in: directory, bundleID: "dev.herald.demo")
        #expect(first.keyID.count == 10 && first.teamID.count == 10)
        #expect(first.keyID.allSatisfy { $0.isUppercase || $0.isNumber })
        #expect(first.bundleID == "dev.herald.demo")
        #expect(first.keyPath == directory + "/AuthKey_\(first.keyID).p8")
        let pem = try String(contentsOfFile: first.keyPath, encoding: .utf8)
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let mode = try FileManager.default.attributesOfItem(atPath: first.keyPath)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(FileManager.default.fileExists(atPath: first.tls.certificatePath))

        let second = try SandboxCredentials.loadOrCreate(in: directory)
        #expect(second.keyID == first.keyID && second.teamID == first.teamID)
        #expect(second.bundleID == "dev.herald.demo")
        #expect(second.tls == first.tls)
        #expect(try second.key.privateKeyPEM() == pem)
    }

    @Test("a token signed with the stored key is accepted by a sandbox made from the reloaded credentials")
    func reloadedKeySigns() async throws {
        let directory = try temporaryDirectory()
        let made = try SandboxCredentials.loadOrCreate(in: directory)
        let sandbox = try APNsSandbox(credentials: try SandboxCredentials.loadOrCreate(in: directory))
        let token = try JWT.sign(
            header: ["kid": made.keyID],
            claims: APNsProviderClaims(iss: made.teamID, iat: Int64(Date().timeIntervalSince1970)), key: made.key)
        let response = await sandbox.respond(
            to: HTTP2Request(
                method: "POST", path: "/3/device/" + APNsFixture.deviceToken,
                headers: [HTTP2Header("authorization", "bearer " + token), HTTP2Header("apns-topic", made.bundleID)],
                body: Array(#"{"aps":{"alert":"Hi"}}"#.utf8)))
        #expect(response.status == 200)
    }
}
