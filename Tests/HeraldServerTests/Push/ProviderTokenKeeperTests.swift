import Foundation
import HeraldCrypto
import HeraldHTTP
import HeraldPush
import HeraldStore
import HeraldTestSupport
import Synchronization
import Testing

@testable import HeraldServer

/// Two servers' keepers on one database: they send with one APNs provider token, move to the
/// next one together, and replace one APNs refused.
@Suite("APNs provider token shared through the store")
struct ProviderTokenKeeperTests {
    static let key = try! SigningKey.generateP256()

    /// The time, moved only by the test.
    final class Clock: Sendable {
        private let current = Mutex(Date(timeIntervalSince1970: 1_750_000_000))
        var now: Date { current.withLock { $0 } }
        func advance(minutes: Double) { current.withLock { $0 = $0.addingTimeInterval(minutes * 60) } }
    }

    private static func servers(on store: any HeraldStore, clock: Clock) throws -> [(
        token: APNsProviderToken, keeper: ProviderTokenKeeper
    )] {
        try (0..<2).map { _ in
            let token = try APNsProviderToken(
                key: Self.key, keyID: "ABC123DEFG", teamID: "DEF123GHIJ", clock: { clock.now })
            let keeper = ProviderTokenKeeper(
                store: store, token: token, logger: Logger(label: "test", level: .error), now: { clock.now })
            return (token, keeper)
        }
    }

    private static func withStore(_ body: (any HeraldStore) async throws -> Void) async throws {
        try await withTemporaryDirectory("keeper") { directory in
            try await body(try SQLiteStore(path: directory.path("herald.db")))
        }
    }

    @Test("both servers send with the first token offered, and move to the next one together before 50 minutes")
    func oneTokenForAll() async throws {
        try await Self.withStore { store in
            let clock = Clock()
            let servers = try Self.servers(on: store, clock: clock)
            for server in servers { await server.keeper.refresh() }
            let first = try servers[0].token.current()
            #expect(try servers[1].token.current() == first)

            clock.advance(minutes: 44)
            for server in servers { await server.keeper.refresh() }
            #expect(try servers.map { try $0.token.current() } == [first, first], "fresh until 45 minutes")

            clock.advance(minutes: 1)
            for server in servers { await server.keeper.refresh() }
            let second = try servers[0].token.current()
            #expect(second != first)
            #expect(try servers[1].token.current() == second, "the second server adopts the replacement")
            let issued = try JWT.verify(second, key: Self.key, claims: APNsProviderClaims.self).claims.iat
            #expect(issued == 1_750_000_000 + 45 * 60)
        }
    }

    @Test("a token APNs refused as invalid is replaced for every server, not adopted again")
    func refusedTokenIsReplaced() async throws {
        try await Self.withStore { store in
            let clock = Clock()
            let servers = try Self.servers(on: store, clock: clock)
            for server in servers { await server.keeper.refresh() }
            let first = try servers[0].token.current()
            #expect(servers[0].token.rejected(first, .invalid))
            clock.advance(minutes: 1)
            await servers[0].keeper.refresh()
            let replacement = try servers[0].token.current()
            #expect(replacement != first)
            await servers[1].keeper.refresh()
            #expect(try servers[1].token.current() == replacement)
        }
    }
}
