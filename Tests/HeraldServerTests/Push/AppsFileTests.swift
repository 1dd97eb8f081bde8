import Foundation
import HeraldTestSupport
import Testing

@testable import HeraldServer

/// The apps file (`--apps-file`): several apps' push credentials, read strictly.
@Suite("The apps file")
struct AppsFileTests {
    static func parse(_ json: String) throws -> [AppPushSettings] {
        try AppsFile.parse(Data(json.utf8), directory: "/etc/herald")
    }

    static func problem(_ json: String) -> String? {
        do {
            _ = try parse(json)
            return nil
        } catch let problem as AppsFile.Problem {
            return problem.message
        } catch {
            return "\(error)"
        }
    }

    @Test("every provider's settings are read, relative paths from the file's folder, optional ones left nil")
    func reads() throws {
        let apps = try Self.parse(
            #"""
            {"apps": [
              {"id": "shop",
               "apns": {"keyFile": "AuthKey_K.p8", "keyId": "K", "teamId": "T", "topic": "com.example.shop",
                        "baseURL": "https://127.0.0.1:8090", "caFile": "/certs/ca.pem"},
               "fcm": {"serviceAccountFile": "shop.json"},
               "expo": {"accessToken": "tok"}},
              {"id": "kiosk.v2", "expo": {}}
            ]}
            """#)
        #expect(apps.map(\.id) == ["shop", "kiosk.v2"])
        let shop = apps[0]
        #expect(shop.apns?.keyFile == "/etc/herald/AuthKey_K.p8" && shop.apns?.keyID == "K")
        #expect(shop.apns?.teamID == "T" && shop.apns?.topic == "com.example.shop")
        #expect(shop.apns?.baseURL == "https://127.0.0.1:8090" && shop.apns?.caFile == "/certs/ca.pem")
        #expect(shop.fcm == FCMSettings(serviceAccountFile: "/etc/herald/shop.json"))
        #expect(shop.expo?.accessToken == "tok" && shop.expo?.baseURL == "https://exp.host")
        #expect(apps[1].apns == nil && apps[1].fcm == nil && apps[1].expo?.accessToken == nil)
    }

    @Test(
        "mistakes are refused, naming where they are",
        arguments: [
            (#"[]"#, "the file is not a JSON object"),
            (#"{"apps": {}}"#, "apps must be an array of apps"),
            (#"{"apps": [], "extra": 1}"#, #"the file has an unknown key "extra""#),
            (#"{"apps": [{"id": "a", "expo": {}, "fcn": {}}]}"#, #"apps[0] has an unknown key "fcn""#),
            (#"{"apps": [{"expo": {}}]}"#, "apps[0].id is required"),
            (#"{"apps": [{"id": "Shop", "expo": {}}]}"#, "apps[0].id must be lowercase"),
            (#"{"apps": [{"id": "default", "expo": {}}]}"#, #"apps[0].id must not be "default""#),
            (#"{"apps": [{"id": "a", "expo": {}}, {"id": "a", "expo": {}}]}"#, #"apps[1].id repeats "a""#),
            (#"{"apps": [{"id": "a"}]}"#, "apps[0] configures no provider"),
            (
                #"{"apps": [{"id": "a", "apns": {"keyFile": "k.p8", "keyId": "K", "teamId": "T"}}]}"#,
                "apps[0].apns.topic is required"
            ),
            (
                #"{"apps": [{"id": "a", "apns": {"keyFile": "k", "keyId": "K", "teamId": "T", "topic": "t", "keyID": "x"}}]}"#,
                #"apps[0].apns has an unknown key "keyID""#
            ),
            (
                #"{"apps": [{"id": "a", "fcm": {"serviceAccountFile": ""}}]}"#,
                "apps[0].fcm.serviceAccountFile must be a non-empty string"
            ),
            (
                #"{"apps": [{"id": "a", "expo": {"baseURL": "ftp://x"}}]}"#,
                "apps[0].expo.baseURL must be an http:// or https:// URL"
            ),
            (#"{"apps": [{"id": "a", "expo": "on"}]}"#, "apps[0].expo must be an object"),
        ])
    func refused(json: String, message: String) {
        let problem = Self.problem(json)
        #expect(problem?.hasPrefix(message) == true, "\(problem ?? "accepted")")
    }

    @Test("per-app batches: groups in the order their app first appears, each in its rows' order")
    func groupedByApp() {
        let rows = [("shop", 1), ("default", 2), ("shop", 3), ("kiosk", 4), ("default", 5)]
        #expect(rows.grouped(by: \.0).map { $0.map(\.1) } == [[1, 3], [2, 5], [4]])
        #expect([(String, Int)]().grouped(by: \.0).isEmpty)
    }

    @Test("herald serve stops with the file's problem, and --help names the flag and its twin")
    func serve() async throws {
        let directory = try TemporaryDirectory("herald-apps")
        defer { directory.remove() }
        let file = directory.path("apps.json")
        try Data(#"{"apps": [{"id": "a"}]}"#.utf8).write(to: URL(fileURLWithPath: file))
        let bad = await CLITests.run([
            "serve", "--port", "0", "--database", "sqlite::memory:", "--apps-file", file,
        ])
        #expect(bad.status == 1)
        #expect(bad.err.joined().contains("the apps file \(file): apps[0] configures no provider"), "\(bad.err)")
        let missing = await CLITests.run([
            "serve", "--port", "0", "--database", "sqlite::memory:", "--apps-file", directory.path("nope.json"),
        ])
        #expect(missing.status == 1 && missing.err.joined().contains("cannot read the apps file"), "\(missing.err)")
        let help = await CLITests.run(["serve", "--help"])
        #expect(help.out.joined(separator: "\n").contains("HERALD_APPS_FILE"))
    }
}
