import Foundation
import HeraldSandbox
import Testing

@Suite("Sandbox credentials: the Expo access token")
struct ExpoAccessTokenTests {
    @Test("made on first start in expo.json (0600), the same on the next load")
    func persisted() throws {
        let directory = try temporaryDirectory()
        let first = try SandboxCredentials.loadOrCreate(in: directory)
        #expect(first.expoAccessToken.count == 40)
        let mode = try FileManager.default.attributesOfItem(atPath: directory + "/expo.json")[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(try SandboxCredentials.loadOrCreate(in: directory).expoAccessToken == first.expoAccessToken)
        let other = try SandboxCredentials.loadOrCreate(in: try temporaryDirectory())
        #expect(other.expoAccessToken != first.expoAccessToken)
    }
}
