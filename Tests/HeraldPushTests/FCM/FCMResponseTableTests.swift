import HeraldPush
import Testing

@Suite("FCM response table")
struct FCMResponseTableTests {
    /// An error body as FCM writes it, with an `FcmError` detail when `errorCode` is given.
    static func body(_ code: Int, _ status: String, _ message: String, errorCode: String? = nil) -> [UInt8] {
        let details =
            errorCode.map {
                #","details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"\#($0)"}]"#
            } ?? ""
        return Array(#"{"error":{"code":\#(code),"message":"\#(message)","status":"\#(status)"\#(details)}}"#.utf8)
    }

    static let badField = Array(
        #"""
        {"error":{"code":400,"message":"Invalid value at 'message.data[0].value' (TYPE_STRING), 12",
        "status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.BadRequest",
        "fieldViolations":[{"field":"message.data[0].value","description":"Invalid value"}]}]}}
        """#.utf8)

    @Test(
        "every documented answer maps to its action",
        arguments: [
            (404, body(404, "NOT_FOUND", "Requested entity was not found.", errorCode: "UNREGISTERED"), .prune),
            (403, body(403, "PERMISSION_DENIED", "SenderId mismatch", errorCode: "SENDER_ID_MISMATCH"), .prune),
            (
                400,
                body(
                    400, "INVALID_ARGUMENT", "The registration token is not a valid FCM registration token",
                    errorCode: "INVALID_ARGUMENT"), .prune
            ),
            (400, body(400, "INVALID_ARGUMENT", "Android message is too big", errorCode: "INVALID_ARGUMENT"), .fail),
            (400, badField, .fail),
            (429, body(429, "RESOURCE_EXHAUSTED", "Quota exceeded", errorCode: "QUOTA_EXCEEDED"), .retry),
            (503, body(503, "UNAVAILABLE", "The service is currently unavailable.", errorCode: "UNAVAILABLE"), .retry),
            (500, body(500, "INTERNAL", "Internal error encountered.", errorCode: "INTERNAL"), .retry),
            (401, body(401, "UNAUTHENTICATED", "Request had invalid authentication credentials."), .refreshAccessToken),
            (401, body(401, "UNAUTHENTICATED", "APNs auth error", errorCode: "THIRD_PARTY_AUTH_ERROR"), .fail),
            // A project the account may not send for: not the token's fault.
            (403, body(403, "PERMISSION_DENIED", "Permission denied"), .fail),
            (404, body(404, "NOT_FOUND", "The requested URL was not found."), .fail),
            (502, Array("<html>Bad Gateway</html>".utf8), .retry),
            (200, Array(#"{"name":"projects/p/messages/1"}"#.utf8), .sent),
        ] as [(Int, [UInt8], FCMResponseTable.Action)])
    func mapping(status: Int, body: [UInt8], action: FCMResponseTable.Action) {
        #expect(FCMResponseTable.action(status: status, error: FCMErrorBody(body)) == action)
    }

    @Test("the error body gives FCM's errorCode, else the canonical status, and the fields at fault")
    func errorBody() throws {
        let unregistered = try #require(FCMErrorBody(Self.body(404, "NOT_FOUND", "gone", errorCode: "UNREGISTERED")))
        #expect(unregistered.reason == "UNREGISTERED" && unregistered.status == "NOT_FOUND")
        let unauthenticated = try #require(FCMErrorBody(Self.body(401, "UNAUTHENTICATED", "no")))
        #expect(unauthenticated.reason == "UNAUTHENTICATED" && unauthenticated.errorCode == nil)
        let field = try #require(FCMErrorBody(Self.badField))
        #expect(field.fieldViolations == ["message.data[0].value"] && !field.blamesRegistrationToken)
        #expect(FCMErrorBody(Array("not json".utf8)) == nil && FCMErrorBody([]) == nil)
    }
}
