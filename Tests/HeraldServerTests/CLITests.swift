import Foundation
import HeraldHTTPTestSupport
import HeraldServer
import HeraldTestSupport
import Synchronization
import Testing

@Suite("herald command line")
struct CLITests {
    final class Output: Sendable {
        let lines = Mutex<[String]>([])
        var all: [String] { lines.withLock { $0 } }
        func append(_ line: String) { lines.withLock { $0.append(line) } }
    }

    static func run(_ arguments: [String], environment: [String: String] = [:]) async -> (
        status: Int32, out: [String], err: [String]
    ) {
        let out = Output()
        let err = Output()
        let cli = HeraldCLI(environment: environment, out: { out.append($0) }, err: { err.append($0) })
        let status = await cli.run(arguments)
        return (status, out.all, err.all)
    }

    @Test("keys create and token print the key and the token as the last line, and both work against the server")
    func keysAndToken() async throws {
        try await withServer { server in
            let database = server.app.configuration.databaseURL
            let keys = await Self.run(["keys", "create", "--name", "ci", "--database", database])
            #expect(keys.status == 0)
            let key = try #require(keys.out.last)
            #expect(key.hasPrefix("hk_"))
            let token = await Self.run(
                ["token", "--user", "carol", "--ttl", "600"],
                environment: ["HERALD_DATABASE_URL": database, "HERALD_USER_TOKEN_SECRET": TestServer.secret])
            #expect(token.status == 0)
            let jwt = try #require(token.out.last)
            try await server.publish(to: ["carol"], key: key)
            let page = try await server.get("/v1/me/notifications", token: jwt)
            #expect(page.status == 200)
            #expect((page.object["items"] as? [Any])?.count == 1)
        }
    }

    @Test("help for every command, and usage errors exit 2 with a hint")
    func helpAndErrors() async {
        for command in [
            ["--help"], ["serve", "--help"], ["migrate", "--help"], ["keys", "create", "--help"], ["token", "--help"],
            ["send", "--help"],
        ] {
            let result = await Self.run(command)
            #expect(result.status == 0)
            #expect(result.out.joined().contains("Usage") || result.out.joined().contains("Commands"))
        }
        for bad in [
            ["frobnicate"], ["token"], ["serve", "--port", "99999"], ["serve", "--bogus"], ["token", "--user"],
            ["keys", "delete"],
        ] {
            let result = await Self.run(bad)
            #expect(result.status == 2, "\(bad)")
            #expect(result.err.joined().contains("herald:"))
        }
    }

    @Test("herald token --ttl takes at most the max token lifetime (30 days, --max-token-lifetime or its twin)")
    func tokenLifetime() async throws {
        try await withServer { server in
            let base = ["token", "--user", "carol", "--database", server.app.configuration.databaseURL]
            let secret = ["HERALD_USER_TOKEN_SECRET": TestServer.secret]
            let longest = await Self.run(base + ["--ttl", "2592000"], environment: secret)
            #expect(longest.status == 0)
            let token = try #require(longest.out.last)
            #expect(try await server.get("/v1/me/counts", token: token).status == 200)
            let tooLong = await Self.run(base + ["--ttl", "2592001"], environment: secret)
            #expect(tooLong.status == 2)
            #expect(tooLong.err.joined().contains("--ttl must be a whole number of seconds from 1 to 2592000"))
            let flag = await Self.run(base + ["--ttl", "3601", "--max-token-lifetime", "3600"], environment: secret)
            #expect(flag.status == 2)
            let twin = secret.merging(["HERALD_MAX_TOKEN_LIFETIME": "7200"]) { $1 }
            #expect(await Self.run(base + ["--ttl", "7200"], environment: twin).status == 0)
            #expect(await Self.run(base + ["--ttl", "7201"], environment: twin).status == 2)
            let shortDefault = await Self.run(base + ["--max-token-lifetime", "600"], environment: secret)
            #expect(shortDefault.status == 0, "the default TTL shrinks to the lifetime")
            #expect(shortDefault.out.first?.contains("valid for 600 s") == true)
            for bad in [["--max-token-lifetime", "59"], ["--max-token-lifetime", "31536001"], ["--ttl", "0"]] {
                #expect(await Self.run(base + bad, environment: secret).status == 2, "\(bad)")
            }
            #expect(await Self.run(["serve", "--max-token-lifetime", "10"]).status == 2)
        }
    }

    @Test("migrate applies migrations once and then reports the database up to date")
    func migrate() async throws {
        let scratch = try TemporaryDirectory("herald-migrate")
        defer { scratch.remove() }
        let path = scratch.path("herald.db")
        let first = await Self.run(["migrate", "--database", "sqlite:" + path])
        #expect(first.status == 0)
        let second = await Self.run(["migrate", "--database", "sqlite:" + path])
        #expect(second.out.last == "database is up to date")
        let bad = await Self.run(["migrate", "--database", "mysql://nope"])
        #expect(bad.status != 0)
    }
}
