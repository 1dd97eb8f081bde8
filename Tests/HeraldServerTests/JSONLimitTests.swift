import Foundation
import HeraldHTTPTestSupport
import Testing

/// Free-form JSON (analytics properties, publish data) is bounded in depth, and a key may be
/// given once per object; the refusals are 400s that name the problem and write nothing.
@Suite("JSON body limits")
struct JSONLimitTests {
    static func nested(_ depth: Int) -> String {
        String(repeating: #"{"a":"#, count: depth) + "1" + String(repeating: "}", count: depth)
    }

    @Test func deeplyNestedPropertiesAreRefusedAtOnce() async throws {
        try await withServer { server in
            let token = try server.token("alice")
            let body = #"{"events":[{"name":"tap","at":"2026-12-01T10:00:00Z","properties":"# + Self.nested(500) + "}]}"
            let refused = try await server.send("POST", "/v1/me/events", json: body, token: token)
            #expect(refused.status == 400)
            #expect(refused.errorCode == "json_too_deep")
            #expect(refused.text.contains("32 levels"))
            let fine = #"{"events":[{"name":"tap","at":"2026-12-01T10:00:00Z","properties":"# + Self.nested(10) + "}]}"
            let accepted = try await server.send("POST", "/v1/me/events", json: fine, token: token)
            #expect(accepted.status < 300, "\(accepted.status) \(accepted.text)")
        }
    }

    @Test func theDepthLimitIsConfigurable() async throws {
        try await withServer { configuration in
            configuration.maxJSONDepth = 8
        } _: { server in
            let token = try server.token("alice")
            let body = #"{"events":[{"name":"tap","at":"2026-12-01T10:00:00Z","properties":"# + Self.nested(10) + "}]}"
            let refused = try await server.send("POST", "/v1/me/events", json: body, token: token)
            #expect(refused.errorCode == "json_too_deep")
            #expect(refused.text.contains("8 levels"))
        }
    }

    @Test func aRepeatedKeyIsRefusedAndNothingIsPublished() async throws {
        try await withServer { server in
            let key = try await server.apiKey()
            let body =
                #"{"recipients":["alice"],"type":"order.shipped","title":"One","title":"Two","body":"b","push":{"send":false}}"#
            let refused = try await server.send("POST", "/v1/notifications", json: body, token: key)
            #expect(refused.status == 400)
            #expect(refused.errorCode == "duplicate_json_key")
            #expect(refused.text.contains("title"))
            let inbox = try await server.get("/v1/me/notifications", token: try server.token("alice"))
            #expect((inbox.object["items"] as? [Any])?.isEmpty == true)
        }
    }
}
