import Foundation
import HeraldHTTPTestSupport
import Testing

@Suite("herald broadcast")
struct BroadcastCLITests {
    @Test("herald broadcast stores a broadcast through the running server, which fans it out")
    func broadcast() async throws {
        try await withServer { server in
            let key = try await server.apiKey()
            let result = await CLITests.run([
                "broadcast", "--users", "alice,bob", "--type", "announcement.sale", "--title", "Summer sale",
                "--body", "Half price", "--no-push", "--url", "http://127.0.0.1:\(server.app.port)", "--api-key", key,
            ])
            #expect(result.status == 0, "\(result.err)")
            let answer = try #require(result.out.last)
            let object = try JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any]
            #expect(object?["status"] as? String == "queued" && object?["total"] as? Int == 2)
            let id = try #require(object?["id"] as? String)
            let done = try await BroadcastTests.finished(server, key: key, id: id)
            #expect(done["status"] as? String == "completed")
            #expect(try await BroadcastTests.inboxTitles(server, "bob") == ["Summer sale"])
        }
    }

    @Test("a publisher call the server refuses prints its status and body; an unreachable or bad --url says so")
    func refusals() async throws {
        let content = ["--users", "alice", "--type", "announcement.sale", "--title", "t", "--body", "b", "--no-push"]
        try await withServer { server in
            let refused = await CLITests.run(
                ["broadcast"] + content + ["--url", "http://127.0.0.1:\(server.app.port)", "--api-key", "hk_nope_x"])
            #expect(refused.status == 1)
            let message = refused.err.joined()
            #expect(message.contains("the server answered 401: {") && message.contains("unauthenticated"), "\(message)")
        }
        // Port 1 on loopback: nothing listens there, so the connection is refused.
        let unreachable = await CLITests.run(
            ["broadcast"] + content + ["--url", "http://127.0.0.1:1", "--api-key", "hk_a_b"])
        #expect(unreachable.status != 0)
        #expect(unreachable.err.joined().contains("cannot reach http://127.0.0.1:1: "), "\(unreachable.err)")
        let bad = await CLITests.run(["broadcast"] + content + ["--url", "ftp://127.0.0.1", "--api-key", "hk_a_b"])
        #expect(bad.status != 0)
        #expect(bad.err.joined().contains("--url is not an http:// or https:// URL"), "\(bad.err)")
    }

    @Test("herald broadcast --help, and its usage errors exit 2")
    func usage() async {
        let help = await CLITests.run(["broadcast", "--help"])
        #expect(help.status == 0 && help.out.joined().contains("Usage: herald broadcast"))
        let content = ["--type", "announcement.sale", "--title", "t", "--body", "b"]
        for bad in [
            ["broadcast"] + content, ["broadcast", "--all", "--users", "alice"] + content,
            ["broadcast", "--users", "alice,bad id"] + content, ["broadcast", "--all", "--type", "x"],
        ] {
            let result = await CLITests.run(bad)
            #expect(result.status == 2, "\(bad)")
            #expect(result.err.joined().contains("herald:"), "\(bad)")
        }
    }
}
