import Foundation
import HeraldCrypto
import HeraldPush
import Testing

@Suite("FCM access token cache")
struct FCMAccessTokenCacheTests {
    let clock = TestClock()

    func makeCache(_ endpoint: FakeTokenEndpoint) -> FCMAccessTokenCache {
        FCMAccessTokenCache(account: endpoint.account, clock: clock.closure, send: endpoint.exchange)
    }

    @Test("the assertion satisfies a strict endpoint and the token is reused")
    func exchangeAndReuse() async throws {
        let endpoint = try FakeTokenEndpoint(clock: clock)
        let cache = makeCache(endpoint)
        let first = try await cache.accessToken()
        #expect(endpoint.issued == [first])
        clock.advance(minutes: 30)
        #expect(try await cache.accessToken() == first)
        #expect(endpoint.calls == 1)
    }

    @Test("a token is replaced 5 minutes before it expires")
    func earlyRefresh() async throws {
        let endpoint = try FakeTokenEndpoint(clock: clock)
        let cache = makeCache(endpoint)
        let first = try await cache.accessToken()
        clock.advance(seconds: 3_599 - 300 - 1)
        #expect(try await cache.accessToken() == first)
        clock.advance(seconds: 1)
        let second = try await cache.accessToken()
        #expect(endpoint.issued == [first, second] && second != first)
        #expect(endpoint.calls == 2)
    }

    @Test("a token that lives less than twice the margin is reused for half its life")
    func shortLived() async throws {
        let endpoint = try FakeTokenEndpoint(clock: clock)
        let cache = makeCache(endpoint)
        let body = #"{"access_token":"short","expires_in":120,"token_type":"Bearer"}"#
        endpoint.answer(HTTP2Response(status: 200, body: Array(body.utf8)))
        _ = try await cache.accessToken()
        clock.advance(seconds: 59)
        #expect(try await cache.accessToken() == "short")
        #expect(endpoint.calls == 1)
        clock.advance(seconds: 1)
        _ = try await cache.accessToken()
        #expect(endpoint.calls == 2)
    }

    @Test("concurrent callers share one exchange")
    func singleFlight() async throws {
        let endpoint = try FakeTokenEndpoint(clock: clock)
        endpoint.hold()
        let cache = makeCache(endpoint)
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<20 { group.addTask { try await cache.accessToken() } }
            while endpoint.calls == 0 { await Task.yield() }
            for _ in 0..<100 { await Task.yield() }
            endpoint.release()
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(endpoint.issued.count == 1 && tokens == Array(repeating: endpoint.issued[0], count: 20))
        #expect(endpoint.calls == 1)
    }

    @Test("a refused token is dropped; a stale report is not")
    func rejected() async throws {
        let endpoint = try FakeTokenEndpoint(clock: clock)
        let cache = makeCache(endpoint)
        let first = try await cache.accessToken()
        cache.rejected(first)
        let second = try await cache.accessToken()
        #expect(endpoint.issued == [first, second] && second != first)
        cache.rejected(first)
        #expect(try await cache.accessToken() == second)
    }

    @Test("an assertion signed with another key gets invalid_grant, and a failure is not cached")
    func wrongKey() async throws {
        let endpoint = try FakeTokenEndpoint(clock: clock)
        var account = endpoint.account
        account.privateKey = try SigningKey.generateRSA()
        let cache = FCMAccessTokenCache(account: account, clock: clock.closure, send: endpoint.exchange)
        await #expect(throws: PushAuthError.tokenRequestRejected) { try await cache.accessToken() }
        do {
            _ = try await cache.accessToken()
        } catch {
            #expect(String(describing: error).contains("invalid_grant: Invalid JWT Signature."))
        }
        #expect(endpoint.calls == 2)
    }

    @Test("error and malformed answers throw clear errors")
    func badAnswers() async throws {
        let endpoint = try FakeTokenEndpoint(clock: clock)
        let cache = makeCache(endpoint)
        let cases: [(Int, String, PushAuthError)] = [
            (401, #"{"error":"unauthorized_client"}"#, .tokenRequestRejected),
            (503, "Service Unavailable", .tokenRequestRejected),
            (200, "not json", .malformedTokenResponse),
            (200, #"{"expires_in":3599,"token_type":"Bearer"}"#, .malformedTokenResponse),
            (200, #"{"access_token":"t","expires_in":0,"token_type":"Bearer"}"#, .malformedTokenResponse),
            (200, #"{"access_token":"t","expires_in":3599,"token_type":"MAC"}"#, .malformedTokenResponse),
        ]
        for (status, body, expected) in cases {
            endpoint.answer(HTTP2Response(status: status, body: Array(body.utf8)))
            await #expect(throws: expected, "\(status) \(body)") { try await cache.accessToken() }
        }
    }
}

@Suite("FCM service account")
struct FCMServiceAccountTests {
    static let key = try! SigningKey.generateRSA()

    func json(_ change: (inout [String: Any]) -> Void = { _ in }) throws -> [UInt8] {
        var object: [String: Any] = [
            "type": "service_account", "project_id": "herald-test", "private_key_id": "abc",
            "private_key": try Self.key.privateKeyPEM(), "client_email": "a@herald-test.iam.gserviceaccount.com",
            "token_uri": "https://oauth2.googleapis.com/token", "client_id": "123",
        ]
        change(&object)
        return Array(try JSONSerialization.data(withJSONObject: object))
    }

    @Test("a service-account JSON decodes, and what json() writes decodes to the same")
    func decode() throws {
        let account = try FCMServiceAccount(json: json())
        #expect(account.projectID == "herald-test")
        #expect(account.privateKeyID == "abc")
        #expect(account.clientEmail == "a@herald-test.iam.gserviceaccount.com")
        #expect(account.tokenURI.absoluteString == "https://oauth2.googleapis.com/token")
        #expect(try account.privateKey.publicKeyPEM() == Self.key.publicKeyPEM())
        let again = try FCMServiceAccount(json: account.json())
        #expect(again.projectID == account.projectID)
        #expect(try again.privateKey.privateKeyPEM() == Self.key.privateKeyPEM())
    }

    @Test("missing and invalid fields are named")
    func errors() throws {
        for field in ["type", "project_id", "private_key_id", "private_key", "client_email", "token_uri"] {
            #expect(throws: PushAuthError.missingField, "\(field)") {
                try FCMServiceAccount(json: json { $0[field] = nil })
            }
            #expect(throws: PushAuthError.missingField, "\(field)") {
                try FCMServiceAccount(json: json { $0[field] = "" })
            }
        }
        let invalid: [(String, Any)] = [
            ("type", "authorized_user"), ("project_id", 42), ("private_key", "not a key"),
            ("private_key", try SigningKey.generateP256().privateKeyPEM()), ("token_uri", "oauth2.googleapis.com"),
        ]
        for (field, value) in invalid {
            do {
                _ = try FCMServiceAccount(json: json { $0[field] = value })
                Issue.record("\(field) = \(value) was accepted")
            } catch let error as PushAuthError {
                #expect(error == .invalidField)
                #expect(String(describing: error).contains(field))
            }
        }
        #expect(throws: PushAuthError.invalidField) { try FCMServiceAccount(json: Array("[]".utf8)) }
    }
}

@Suite("Form encoding")
struct FormEncodingTests {
    @Test("fields round-trip with reserved characters escaped")
    func roundTrip() throws {
        let fields = [("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer"), ("a b", "x&y=z+é")]
        let body = FormEncoding.encode(fields)
        #expect(body == "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&a+b=x%26y%3Dz%2B%C3%A9")
        let decoded = try #require(FormEncoding.decode(body))
        #expect(decoded.map(\.0) == fields.map(\.0))
        #expect(decoded.map(\.1) == fields.map(\.1))
        #expect(FormEncoding.decode("a=%zz") == nil)
    }
}
