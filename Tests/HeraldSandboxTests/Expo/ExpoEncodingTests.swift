import Foundation
import HeraldSandbox
import Testing

/// The Expo look-alike as permissive as Expo (issue 15, point 5): gzip bodies as Expo's SDKs send
/// them, every field of its message type, and `MessageTooBig` for a message over 4,096 bytes.
@Suite("Expo look-alike: compressed bodies, every field, MessageTooBig")
struct ExpoEncodingTests {
    /// `[{"to":"ExponentPushToken[device-1]","title":"Zipped","body":"z" × 300}]`, compressed.
    static let gzipped = Array(
        Data(
            base64Encoded:
                "H4sIAAAAAAACA4uuVirJV7JScq0oyM9LzSsJKC3OCMnPTs2LTkkty0xO1TWMVdJRKsksyUkFqorKLChITQEKJOWnVAL5VaOAaKBUGwsA8o+zwm0BAAA="
        )!)
    static let deflated = Array(
        Data(
            base64Encoded:
                "eJyLrlYqyVeyUnKtKMjPS80rCSgtzgjJz07Ni05JLctMTtU1jFXSUSrJLMlJBaqKyiwoSE0BCiTlp1QC+VWjgGigVBsLADL1pN4="
        )!)
    /// 4,096 spaces, gzipped to 52 bytes.
    static let spaces = Array(Data(base64Encoded: "H4sIAAAAAAACA+3BAQ0AAADCoCrvn9IeDigAAADg3QAi6COlABAAAA==")!)

    static func request(_ body: [UInt8], encoding: String?) -> HTTP2Request {
        var request = ExpoSandboxTests.request("")
        request.body = body
        if let encoding { request.headers.append(HTTP2Header("Content-Encoding", encoding)) }
        return request
    }

    @Test("a gzip or deflate body is inflated and accepted like the plain one")
    func compressed() async throws {
        let sandbox = ExpoSandbox(accessToken: ExpoSandboxTests.accessToken)
        for (body, encoding) in [(Self.gzipped, "gzip"), (Self.deflated, "deflate")] {
            let response = await sandbox.respond(to: Self.request(body, encoding: encoding))
            #expect(response.status == 200, "\(String(decoding: response.body, as: UTF8.self))")
        }
        #expect(sandbox.accepted.map { $0.string("title") } == ["Zipped", "Zipped"])
        #expect(sandbox.accepted.first?.string("body") == String(repeating: "z", count: 300))
    }

    @Test("a corrupt or truncated body is 400, one inflating past the limit 413, another coding 415")
    func refusedBodies() async throws {
        let sandbox = ExpoSandbox(accessToken: ExpoSandboxTests.accessToken, maxBodyBytes: 1_024)
        let cases: [([UInt8], String, Int, String)] = [
            (Array("not gzip".utf8), "gzip", 400, "VALIDATION_ERROR"),
            (Array(Self.gzipped.dropLast(9)), "gzip", 400, "VALIDATION_ERROR"),
            (Self.gzipped + [1, 2, 3], "gzip", 400, "VALIDATION_ERROR"),
            (Self.spaces, "gzip", 413, "PAYLOAD_TOO_LARGE"),
            (Self.gzipped, "br", 415, "UNSUPPORTED_MEDIA_TYPE"),
        ]
        for (body, encoding, status, code) in cases {
            let response = await sandbox.respond(to: Self.request(body, encoding: encoding))
            #expect(response.status == status, "\(encoding) \(body.count)")
            #expect(try ExpoSandboxTests.errorCode(response) == code)
        }
        #expect(sandbox.accepted.isEmpty)
    }

    @Test("every field of Expo's message type is taken, with the legacy _displayInForeground")
    func everyField() async throws {
        let sandbox = ExpoSandbox(accessToken: ExpoSandboxTests.accessToken)
        let fields = #"""
            ,"subtitle":"s","channelId":"orders","categoryId":"ORDER","mutableContent":true,"expiration":1900000000,\#
            "interruptionLevel":"time-sensitive","richContent":{"image":"https://e.x/a.png"},"collapseId":"c",\#
            "_contentAvailable":true,"icon":"https://e.x/icon.png","_displayInForeground":true
            """#
        let response = await sandbox.respond(to: ExpoSandboxTests.request(ExpoSandboxTests.message(1, extra: fields)))
        #expect(response.status == 200, "\(String(decoding: response.body, as: UTF8.self))")
        let critical = ExpoSandboxTests.only(#""sound":{"name":"alarm.caf","critical":true,"volume":0.5}"#)
        #expect(await sandbox.respond(to: ExpoSandboxTests.request(critical)).status == 200)
        #expect(sandbox.accepted.first?.string("icon") == "https://e.x/icon.png")
        let wrongIcon = ExpoSandboxTests.only(#""icon":3"#)
        #expect(await sandbox.respond(to: ExpoSandboxTests.request(wrongIcon)).status == 400)
    }

    @Test("a message over 4,096 bytes gets a MessageTooBig ticket beside the others' ok, and is not recorded")
    func messageTooBig() async throws {
        let sandbox = ExpoSandbox(accessToken: ExpoSandboxTests.accessToken)
        let big = #"{"to":"\#(ExpoSandboxTests.token(2))","body":"\#(String(repeating: "x", count: 4_100))"}"#
        let edge = #"{"to":"\#(ExpoSandboxTests.token(3))","body":"\#(String(repeating: "y", count: 4_085))"}"#
        let response = await sandbox.respond(
            to: ExpoSandboxTests.request("[\(ExpoSandboxTests.message(1)),\(big),\(edge)]"))
        #expect(response.status == 200)
        let tickets = try ExpoSandboxTests.tickets(response)
        #expect(tickets.map { $0["status"] as? String } == ["ok", "error", "ok"])
        let details = try #require(tickets[1]["details"] as? [String: Any])
        #expect(details["error"] as? String == "MessageTooBig")
        #expect(details["expoPushToken"] as? String == ExpoSandboxTests.token(2))
        #expect(sandbox.accepted.map(\.to) == [ExpoSandboxTests.token(1), ExpoSandboxTests.token(3)])
    }
}
