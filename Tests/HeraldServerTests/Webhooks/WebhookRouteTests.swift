import Foundation
import HeraldHTTPTestSupport
import HeraldStore
import Testing

@testable import HeraldServer

/// `POST /v1/webhooks`, its list, read and delete, and the deliveries route, over real HTTP:
/// validation, the SSRF refusals, the secret shown once, 404s.
@Suite("Webhook subscriptions over HTTP")
struct WebhookRouteTests {
    @Test(
        "create answers 201 with the secret once; list and read never show it; delete drops it; unknown ids are 404",
        arguments: ServerDatabase.available)
    func lifecycle(_ database: ServerDatabase) async throws {
        try await database.withURL { url in
            try await withServer(configure: { $0.databaseURL = url }) { server in
                let key = try await server.apiKey()
                let created = try await server.send(
                    "POST", "/v1/webhooks",
                    json:
                        #"{"url":"https://93.184.216.34/hooks?x=1","events":["delivery.sent","notification.read","delivery.sent"]}"#,
                    token: key)
                #expect(created.status == 201, "\(created.text)")
                let body = created.object
                let id = try #require(body["id"] as? String)
                let secret = try #require(body["secret"] as? String)
                #expect(id.hasPrefix("wh_") && secret.hasPrefix("whsec_") && secret.count >= 40)
                #expect(body["url"] as? String == "https://93.184.216.34/hooks?x=1")
                #expect(body["events"] as? [String] == ["delivery.sent", "notification.read"], "each event once")
                #expect(body["createdAt"] is String)
                #expect(created.header("Location") == "/v1/webhooks/\(id)")

                let list = try await server.get("/v1/webhooks", token: key)
                #expect(list.status == 200)
                let items = try #require(list.object["items"] as? [[String: Any]])
                #expect(items.map { $0["id"] as? String } == [id])
                #expect(!list.text.contains(secret) && items[0]["secret"] == nil, "never the secret again")
                let read = try await server.get("/v1/webhooks/\(id)", token: key)
                #expect(read.status == 200 && read.object["id"] as? String == id)
                #expect(!read.text.contains(secret))
                let deliveries = try await server.get("/v1/webhooks/\(id)/deliveries", token: key)
                #expect(deliveries.status == 200 && (deliveries.object["items"] as? [Any])?.isEmpty == true)

                #expect(try await server.delete("/v1/webhooks/\(id)", token: key).status == 204)
                expectError(try await server.delete("/v1/webhooks/\(id)", token: key), 404, "not_found")
                expectError(try await server.get("/v1/webhooks/\(id)", token: key), 404, "not_found")
                expectError(try await server.get("/v1/webhooks/\(id)/deliveries", token: key), 404, "not_found")
                #expect((try await server.get("/v1/webhooks", token: key).object["items"] as? [Any])?.isEmpty == true)
                expectError(try await server.get("/v1/webhooks", token: nil), 401, "unauthenticated")
            }
        }
    }

    @Test("bad input is a 400 naming the field: scheme, user info, fragment, length, events, unknown keys")
    func validation() async throws {
        try await withServer { server in
            let key = try await server.apiKey()
            func create(_ json: String) async throws -> LoopbackResponse {
                try await server.send("POST", "/v1/webhooks", json: json, token: key)
            }
            let sent = #""events":["delivery.sent"]"#
            for url in [
                "ftp://93.184.216.34/", "file:///etc/passwd", "gopher://93.184.216.34/", "93.184.216.34/hooks",
                "https://user:pass@93.184.216.34/", "https://93.184.216.34/#frag", "https:///nohost",
                "https://93.184.216.34:0/", "https://93.184.216.34:99999/", "https://exa mple.com/",
                "https://93.184.216.34/" + String(repeating: "a", count: 2_100), "https://[::1/",
            ] {
                let response = try await create(#"{"url":"\#(url)",\#(sent)}"#)
                expectError(response, 400, "invalid_url")
                #expect(response.object.error?["field"] as? String == "url", "\(url)")
            }
            let empty = try await create(#"{"url":"https://93.184.216.34/","events":[]}"#)
            expectError(empty, 400, "invalid_events")
            let unknown = try await create(#"{"url":"https://93.184.216.34/","events":["delivery.sent","order.paid"]}"#)
            expectError(unknown, 400, "unknown_event")
            #expect(unknown.object.error?["field"] as? String == "events[1]")
            #expect((unknown.object.error?["message"] as? String)?.contains("order.paid") == true)
            let extra = try await create(#"{"url":"https://93.184.216.34/",\#(sent),"secret":"mine"}"#)
            expectError(extra, 400, "invalid_body")
            expectError(try await create(#"{\#(sent)}"#), 400, "invalid_body")
            expectError(try await create(#"{"url":7,\#(sent)}"#), 400, "invalid_body")
            #expect((try await server.get("/v1/webhooks", token: key).object["items"] as? [Any])?.isEmpty == true)
        }
    }

    @Test(
        "without --webhook-allow-private-addresses: loopback, private, link-local, metadata, numeric and IPv6 forms are refused at creation"
    )
    func privateAddressesRefused() async throws {
        try await withServer { server in
            let key = try await server.apiKey()
            for url in [
                "http://127.0.0.1:8080/", "http://localhost/hooks", "http://LOCALHOST/", "http://[::1]/",
                "http://10.1.2.3/", "http://172.16.0.1/", "http://172.31.255.255/", "http://192.168.1.10/",
                "http://169.254.169.254/latest/meta-data/", "http://[fe80::1]/", "http://[fc00::1]/",
                "http://[fd12::1]/",
                "http://0.0.0.0/", "http://[::]/", "http://100.64.0.1/", "http://224.0.0.1/", "http://255.255.255.255/",
                "http://2130706433/", "http://0x7f.1/", "http://017700000001/", "http://127.1/", "http://0x7f000001/",
                "http://[::ffff:127.0.0.1]/", "http://[::ffff:a9fe:a9fe]/", "http://[::127.0.0.1]/",
                "http://[64:ff9b::a00:1]/", "http://[2002:7f00:1::]/", "https://[ff02::1]/",
            ] {
                let response = try await server.send(
                    "POST", "/v1/webhooks", json: #"{"url":"\#(url)","events":["delivery.sent"]}"#, token: key)
                expectError(response, 400, "url_refused")
                let message = response.object.error?["message"] as? String ?? ""
                #expect(message.contains("--webhook-allow-private-addresses"), "\(url): \(message)")
            }
            let metadata = try await server.send(
                "POST", "/v1/webhooks", json: #"{"url":"http://169.254.169.254/","events":["delivery.sent"]}"#,
                token: key)
            #expect((metadata.object.error?["message"] as? String)?.contains("link-local") == true, "\(metadata.text)")
            let decimal = try await server.send(
                "POST", "/v1/webhooks", json: #"{"url":"http://2130706433/","events":["delivery.sent"]}"#, token: key)
            #expect((decimal.object.error?["message"] as? String)?.contains("127.0.0.1") == true, "\(decimal.text)")
            // Public addresses (literals need no lookup) are taken.
            for url in ["http://93.184.216.34/", "https://[2606:2800:220:1:248:1893:25c8:1946]/hooks"] {
                let response = try await server.send(
                    "POST", "/v1/webhooks", json: #"{"url":"\#(url)","events":["delivery.sent"]}"#, token: key)
                #expect(response.status == 201, "\(url): \(response.text)")
            }
        }
    }

    @Test(
        "with --webhook-allow-private-addresses a loopback receiver is taken; --max-webhooks caps the subscriptions (409)"
    )
    func allowedAndCapped() async throws {
        try await withServer(configure: { configuration in
            configuration.webhooks.allowPrivateAddresses = true
            configuration.webhooks.maxSubscriptions = 2
        }) { server in
            let key = try await server.apiKey()
            for path in ["/a", "/b"] {
                let response = try await server.send(
                    "POST", "/v1/webhooks", json: #"{"url":"http://127.0.0.1:9\#(path)","events":["delivery.sent"]}"#,
                    token: key)
                #expect(response.status == 201, "\(response.text)")
            }
            let third = try await server.send(
                "POST", "/v1/webhooks", json: #"{"url":"http://localhost:9/c","events":["delivery.sent"]}"#, token: key)
            expectError(third, 409, "too_many_webhooks")
            #expect((try await server.get("/v1/webhooks", token: key).object["items"] as? [Any])?.count == 2)
        }
    }

    @Test("the deliveries route pages newest first with an opaque cursor, and refuses a bad cursor or limit")
    func deliveriesPage() async throws {
        try await withServer(configure: { $0.webhooks.isEnabled = false }) { server in
            let key = try await server.apiKey()
            let created = try await server.send(
                "POST", "/v1/webhooks", json: #"{"url":"https://93.184.216.34/","events":["message.completed"]}"#,
                token: key)
            let id = try #require(created.object["id"] as? String)
            var emitted: [String] = []
            for index in 0..<3 {
                emitted.append(
                    try #require(
                        try await server.app.store.emitWebhookEvent(
                            .messageCompleted, data: #"{"messageId":"m\#(index)"}"#, at: Date())))
            }
            let first = try await server.get("/v1/webhooks/\(id)/deliveries?limit=2", token: key)
            #expect(first.status == 200, "\(first.text)")
            let items = try #require(first.object["items"] as? [[String: Any]])
            #expect(items.map { $0["eventId"] as? String } == [emitted[2], emitted[1]])
            #expect(
                items.allSatisfy { $0["status"] as? String == "pending" && ($0["attempts"] as? [Any])?.isEmpty == true }
            )
            #expect((items[0]["event"] as? [String: Any])?["data"] as? [String: String] == ["messageId": "m2"])
            let cursor = try #require(first.object["nextCursor"] as? String)
            let rest = try await server.get("/v1/webhooks/\(id)/deliveries?limit=2&cursor=\(cursor)", token: key)
            #expect((rest.object["items"] as? [[String: Any]])?.map { $0["eventId"] as? String } == [emitted[0]])
            #expect(rest.object["nextCursor"] is NSNull)
            expectError(
                try await server.get("/v1/webhooks/\(id)/deliveries?cursor=zzz", token: key), 400, "invalid_cursor")
            expectError(try await server.get("/v1/webhooks/\(id)/deliveries?limit=0", token: key), 400, "invalid_limit")
        }
    }

    @Test(
        "--webhook-allow-private-addresses and its twin HERALD_WEBHOOK_ALLOW_PRIVATE_ADDRESSES; the other flags parse with their ranges"
    )
    func flags() throws {
        func settings(_ flags: [String], _ environment: [String: String] = [:]) throws -> WebhookSettings {
            try ServeCommand.spec.parse(flags, environment: environment).webhookSettings()
        }
        #expect(try !settings([]).allowPrivateAddresses)
        #expect(try settings(["--webhook-allow-private-addresses"]).allowPrivateAddresses)
        #expect(try settings([], ["HERALD_WEBHOOK_ALLOW_PRIVATE_ADDRESSES": "1"]).allowPrivateAddresses)
        #expect(try settings([], ["HERALD_WEBHOOK_ALLOW_PRIVATE_ADDRESSES": "true"]).allowPrivateAddresses)
        #expect(try !settings([], ["HERALD_WEBHOOK_ALLOW_PRIVATE_ADDRESSES": "0"]).allowPrivateAddresses)
        #expect(throws: CLIError.self) { try settings([], ["HERALD_WEBHOOK_ALLOW_PRIVATE_ADDRESSES": "maybe"]) }
        let tuned = try settings(
            [
                "--max-webhooks", "3", "--webhook-timeout", "2.5", "--webhook-retry-base", "1", "--webhook-retry-cap",
                "60",
                "--webhook-max-attempts", "4", "--webhook-max-age", "600", "--webhook-concurrency", "2",
                "--webhook-retention", "3600", "--webhook-max-response-bytes", "1024", "--webhook-ca-file",
                "/tmp/ca.pem",
            ])
        #expect(tuned.maxSubscriptions == 3 && tuned.timeout == 2.5 && tuned.retryBase == 1 && tuned.retryCap == 60)
        #expect(tuned.maxAttempts == 4 && tuned.maxAge == 600 && tuned.concurrency == 2 && tuned.retention == 3_600)
        #expect(tuned.maxResponseBytes == 1_024 && tuned.caFile == "/tmp/ca.pem" && tuned.lease == 62.5)
        #expect(try settings([], ["HERALD_WEBHOOK_MAX_ATTEMPTS": "7"]).maxAttempts == 7)
        #expect(throws: CLIError.self) { try settings(["--max-webhooks", "0"]) }
        #expect(throws: CLIError.self) { try settings(["--webhook-retry-base", "10", "--webhook-retry-cap", "5"]) }
        #expect(throws: CLIError.self) { try settings(["--webhook-timeout", "301"]) }
    }
}

extension [String: Any] {
    /// The `error` object of an error answer.
    fileprivate var error: [String: Any]? { self["error"] as? [String: Any] }
}
