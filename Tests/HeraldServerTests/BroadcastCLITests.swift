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
