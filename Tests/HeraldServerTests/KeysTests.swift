import Foundation
import HeraldHTTP
import HeraldHTTPTestSupport
import HeraldServer
import HeraldTestSupport
import Testing

@Suite("Publisher API keys: list, revoke, last use")
struct KeysTests {
    /// `GET /v1/broadcasts` with `key`: the cheapest publisher call.
    static func call(_ server: TestServer, _ key: String) async throws -> LoopbackResponse {
        try await server.get("/v1/broadcasts", token: key)
    }

    /// The id of `key` (`hk_<id>_<secret>` has id `key_<id>`), as `herald keys list` shows it.
    static func id(of key: String) -> String {
        "key_" + key.split(separator: "_")[1]
    }

    @Test("a key revoked with herald keys revoke is refused by every server on the database within a second")
    func revokedKeyIsRefusedWithinASecond() async throws {
        let clock = ManualClock()
        try await withServer(now: { clock.now }) { first in
            let database = first.app.configuration.databaseURL
            let second = try await TestServer.start(configure: { $0.databaseURL = database }, now: { clock.now })
            do {
                try await Self.revokeAcross(first, second, clock: clock)
            } catch {
                await second.stop()
                throw error
            }
            await second.stop()
        }
    }

    static func revokeAcross(_ first: TestServer, _ second: TestServer, clock: ManualClock) async throws {
        let database = first.app.configuration.databaseURL
        let key = try await first.apiKey()
        let other = try await first.apiKey()
        #expect(try await Self.call(first, key).status == 200)
        #expect(try await Self.call(second, key).status == 200)

        let revoke = await CLITests.run(["keys", "revoke", Self.id(of: key), "--database", database])
        #expect(revoke.status == 0, "\(revoke.err)")
        #expect(revoke.out.joined().contains("Revoked API key \(Self.id(of: key))"))
        clock.advance(by: 1)
        for server in [first, second] {
            let refused = try await Self.call(server, key)
            expectError(refused, 401, "unauthenticated")
            #expect(refused.header("WWW-Authenticate")?.contains(#"error="invalid_token""#) == true)
            #expect(refused.text.contains("revoked"))
            let published = try await server.send(
                "POST", "/v1/notifications",
                json: #"{"recipients":["alice"],"type":"order.shipped","title":"t","body":"b"}"#, token: key)
            expectError(published, 401, "unauthenticated")
            #expect(try await Self.call(server, other).status == 200, "other keys keep working")
        }
        #expect(try await first.app.store.counts(userID: "alice").unread == 0, "nothing written")
        clock.advance(by: 3600)
        expectError(try await Self.call(first, key), 401, "unauthenticated")
    }

    @Test("a key's last use is written at its first call and then at most once a minute; keys list shows it")
    func lastUse() async throws {
        let clock = ManualClock()
        try await withServer(now: { clock.now }) { server in
            let database = server.app.configuration.databaseURL
            let key = try await server.apiKey()
            let unused = try await server.apiKey()
            let started = clock.now
            func lastUsed() async throws -> Date? {
                try await server.app.store.apiKeys().first { $0.id == Self.id(of: key) }?.lastUsedAt
            }
            #expect(try await lastUsed() == nil)
            #expect(try await Self.call(server, key).status == 200)
            #expect(try await lastUsed() == started)
            for _ in 0..<59 {
                clock.advance(by: 1)
                #expect(try await Self.call(server, key).status == 200)
            }
            #expect(try await lastUsed() == started, "no write within the minute")
            clock.advance(by: 1)
            #expect(try await Self.call(server, key).status == 200)
            #expect(try await lastUsed() == started.addingTimeInterval(60))

            let list = await CLITests.run(["keys", "list", "--database", database])
            #expect(list.status == 0)
            #expect(
                list.out.first?.split(separator: " ", omittingEmptySubsequences: true) == [
                    "ID", "NAME", "CREATED", "LAST", "USED",
                ])
            let used = try #require(list.out.first { $0.hasPrefix(Self.id(of: key)) })
            #expect(used.hasSuffix(started.addingTimeInterval(60).formatted(.iso8601)), "\(used)")
            #expect(used.contains(" test "))
            let never = try #require(list.out.first { $0.hasPrefix(Self.id(of: unused)) })
            #expect(never.hasSuffix("never"))
            #expect(list.out.count == 3)
        }
    }

    @Test("herald keys list and revoke: help, an empty list, unknown ids, a second revoke, revoking by the key itself")
    func commandLine() async throws {
        try await withServer { server in
            let database = ["--database", server.app.configuration.databaseURL]
            let empty = await CLITests.run(["keys", "list"] + database)
            #expect(
                empty.status == 0 && empty.out == ["No API keys. Create one with `herald keys create --name NAME`."])
            for help in [["keys", "list", "--help"], ["keys", "revoke", "--help"], ["keys", "--help"]] {
                let shown = await CLITests.run(help)
                #expect(shown.status == 0)
                #expect(shown.out.joined().contains("herald keys revoke ID"), "\(help)")
            }

            let created = await CLITests.run(["keys", "create", "--name", "rotating"] + database)
            let key = try #require(created.out.last)
            let id = Self.id(of: key)
            let listed = await CLITests.run(["keys", "list"] + database)
            #expect(listed.out.count == 2 && listed.out[1].hasPrefix(id + "  rotating  "), "\(listed.out)")

            let unknown = await CLITests.run(["keys", "revoke", "key_nope"] + database)
            #expect(unknown.status == 1)
            #expect(unknown.err.joined().contains(#"no API key has the id "key_nope""#))
            let missing = await CLITests.run(["keys", "revoke"] + database)
            #expect(missing.status == 2 && missing.err.joined().contains("needs the id"))
            let extra = await CLITests.run(["keys", "revoke", id, "another"] + database)
            #expect(extra.status == 2)
            #expect(try await Self.call(server, key).status == 200, "failed revokes change nothing")

            let byKey = await CLITests.run(["keys", "revoke", key] + database)
            #expect(byKey.status == 0 && byKey.out.joined().contains("Revoked API key \(id)"))
            let again = await CLITests.run(["keys", "revoke", id] + database)
            #expect(again.status == 0 && again.out.joined().contains("was already revoked at"))
            let revokedKey = await CLITests.run(["keys", "revoke", key] + database)
            #expect(revokedKey.status == 1)
            #expect(await CLITests.run(["keys", "list"] + database).out.count == 1, "no key left")
        }
    }

    @Test("a running herald serve refuses a key revoked with the CLI within a second, without a restart")
    func runningProcess() async throws {
        let server = try await HeraldProcess.start(secret: TestServer.secret)
        let database = try #require(server.database)
        let key = try #require(
            try await HeraldExecutable.run(["keys", "create", "--database", database]).split(separator: "\n").last)
        let client = LoopbackHTTPClient(port: server.port)
        func status() async throws -> Int {
            try await client.request("GET", "/v1/broadcasts", headers: [("Authorization", "Bearer \(key)")]).status
        }
        do {
            #expect(try await status() == 200)
            _ = try await HeraldExecutable.run(["keys", "revoke", Self.id(of: String(key)), "--database", database])
            try await eventually("the revoked key is refused", within: .seconds(3)) { try await status() == 401 }
        } catch {
            await server.stop()
            throw error
        }
        #expect(await server.stop() == .exited(0))
    }
}
