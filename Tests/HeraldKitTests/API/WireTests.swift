import Foundation
import Testing

@testable import HeraldKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Live client wire rules")
struct WireTests {
    static func body(_ code: String, _ message: String = "text") -> Data {
        Data(#"{"error":{"code":"\#(code)","message":"\#(message)"}}"#.utf8)
    }

    @Test("statuses map to the kinds the screens act on, with the server's code and message")
    func statuses() {
        let unauthenticated = HeraldAPIError(status: 401, body: Self.body("unauthenticated", "expired"))
        #expect(unauthenticated.kind == .unauthenticated)
        #expect(unauthenticated.code == "unauthenticated" && unauthenticated.message == "expired")
        #expect(HeraldAPIError(status: 404, body: Self.body("not_found")).kind == .notFound)
        let rejected = HeraldAPIError(status: 400, body: Self.body("invalid_limit", "`limit` must be…"))
        #expect(rejected.kind == .rejected && rejected.status == 400 && rejected.code == "invalid_limit")
        #expect(HeraldAPIError(status: 422, body: Self.body("idempotency_key_reused")).kind == .rejected)
        #expect(HeraldAPIError(status: 500, body: Data()).kind == .server)
        #expect(HeraldAPIError(status: 503, body: Self.body("timeout")).kind == .server)
        let bare = HeraldAPIError(status: 409, body: Data("<html>".utf8))
        #expect(bare.kind == .rejected && bare.code == nil && !bare.message.isEmpty)
    }

    @Test("transport failures: no route is offline, a timeout is timeout, a cancel stays a cancel")
    func transport() {
        let offline: [URLError.Code] = [
            .notConnectedToInternet, .cannotConnectToHost, .networkConnectionLost, .cannotFindHost, .dnsLookupFailed,
        ]
        for code in offline {
            #expect((HeraldAPIError.transport(URLError(code)) as? HeraldAPIError)?.kind == .offline, "\(code)")
        }
        #expect((HeraldAPIError.transport(URLError(.timedOut)) as? HeraldAPIError)?.kind == .timeout)
        #expect((HeraldAPIError.transport(URLError(.badServerResponse)) as? HeraldAPIError)?.kind == .server)
        #expect(HeraldAPIError.transport(URLError(.cancelled)) is CancellationError)
        #expect(HeraldAPIError.transport(CancellationError()) is CancellationError)
        #expect((HeraldAPIError.transport(HeraldAPIError.notFound()) as? HeraldAPIError)?.kind == .notFound)
    }

    @Test("path segments and query values are percent-encoded; a base path prefix is kept")
    func urls() {
        let base = URL(string: "https://api.example.com/herald/")!
        let url = HeraldClient.url(
            base: base, ["v1", "me", "devices", "ExponentPushToken[a/b c]"],
            query: [URLQueryItem(name: "cursor", value: "a+b=c&d")])
        #expect(
            url.absoluteString
                == "https://api.example.com/herald/v1/me/devices/ExponentPushToken%5Ba%2Fb%20c%5D?cursor=a%2Bb%3Dc%26d")
        #expect(
            HeraldClient.url(base: URL(string: "http://127.0.0.1:8080")!, ["v1", "me", "counts"]).absoluteString
                == "http://127.0.0.1:8080/v1/me/counts")
    }

    @Test("times read with or without fractional seconds")
    func dates() {
        #expect(WireJSON.parseDate("2026-11-29T10:00:00Z") == Date(timeIntervalSince1970: 1_795_946_400))
        #expect(WireJSON.parseDate("2026-11-29T10:00:00.5Z") == Date(timeIntervalSince1970: 1_795_946_400.5))
        #expect(WireJSON.parseDate("2026-11-29T11:00:00+01:00") == Date(timeIntervalSince1970: 1_795_946_400))
        #expect(WireJSON.parseDate("yesterday") == nil)
    }

    @Test("request timeouts: FoundationNetworking counts whole seconds, so they round up to at least 1 s")
    func timeouts() {
        #if canImport(FoundationNetworking)
            #expect(Duration.milliseconds(200).timeoutInterval == 1)
            #expect(Duration.milliseconds(1500).timeoutInterval == 2)
        #else
            #expect(Duration.milliseconds(200).timeoutInterval == 0.2)
        #endif
        #expect(Duration.seconds(15).timeoutInterval == 15)
    }
}
