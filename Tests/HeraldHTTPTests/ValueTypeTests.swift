import Foundation
import Synchronization
import Testing

@testable import HeraldHTTP

@Suite struct ValueTypeTests {
    @Test func headersAreOrderedAndCaseInsensitive() {
        var headers = HTTPHeaders([("Content-Type", "text/plain"), ("Set-Cookie", "a=1")])
        headers.add(name: "set-cookie", value: "b=2")
        #expect(headers["content-type"] == "text/plain")
        #expect(headers.values(for: "SET-COOKIE") == ["a=1", "b=2"])
        headers["Set-Cookie"] = "c=3"
        #expect(headers.values(for: "set-cookie") == ["c=3"])
        #expect(headers.map(\.name) == ["Content-Type", "Set-Cookie"])
        headers["content-type"] = nil
        #expect(!headers.contains(name: "Content-Type"))
        headers["X-New"] = "1"
        #expect(headers.map(\.name) == ["Set-Cookie", "X-New"])
    }

    @Test func percentDecoding() {
        #expect(URLDecoding.decodePath("/a%20b/c+d/%E2%9C%93/%zz/%4") == "/a b/c+d/✓/%zz/%4")
        #expect(URLDecoding.parseQuery("a=1&a=2&b=%41+%2B&=x&&c") == ["a": "1", "b": "A +", "c": ""])
        let parts = URLDecoding.splitTarget("/p?q=1#frag")
        #expect(parts.path == "/p")
        #expect(parts.query == "q=1")
    }

    @Test func requestIDs() {
        #expect(RequestID.sanitized("abc-123") == "abc-123")
        #expect(RequestID.sanitized("") == nil)
        #expect(RequestID.sanitized("a b") == nil)
        #expect(RequestID.sanitized("é") == nil)
        #expect(RequestID.sanitized(String(repeating: "x", count: 128)) != nil)
        #expect(RequestID.sanitized(String(repeating: "x", count: 129)) == nil)
        let generated = RequestID.generate()
        #expect(generated.count == 32)
        #expect(generated != RequestID.generate())
    }

    @Test func logLinesAreLogfmt() {
        let line = StderrLogHandler.format(
            level: .warning,
            label: "herald",
            message: "request \"failed\"",
            metadata: ["path": "/a b", "status": "500", "empty": ""],
            timestamp: "2025-01-02T03:04:05.678Z"
        )
        #expect(
            line
                == #"ts=2025-01-02T03:04:05.678Z level=warning label=herald msg="request \"failed\"" empty="" path="/a b" status=500"#
        )
        let timestamp = StderrLogHandler.timestamp()
        #expect(timestamp.count == 24 && timestamp.hasSuffix("Z"))
    }

    @Test func loggerSkipsDisabledLevelsWithoutBuildingMessages() {
        let recorder = LogRecorder()
        var logger = Logger(label: "t", level: .info, handler: recorder)
        logger.metadata["service"] = "herald"
        logger.debug("\(Self.mustNotRun())")
        logger.info("hello", metadata: ["k": "v"])
        #expect(recorder.messages.count == 1)
        #expect(recorder.messages.first?.metadata == ["service": "herald", "k": "v"])
        #expect(Logger.Level(name: "WARNING") == .warning)
        #expect(Logger.Level.error > .notice)
    }

    static func mustNotRun() -> String {
        Issue.record("a disabled log message was built")
        return ""
    }

    @Test func serverSentEventEncoding() {
        let event = ServerSentEvent(id: "7", event: "notification", data: "a\nb", retry: 3000)
        #expect(
            String(decoding: event.bytes, as: UTF8.self)
                == "id: 7\nevent: notification\nretry: 3000\ndata: a\ndata: b\n\n")
        #expect(String(decoding: ServerSentEvent.comment("ping"), as: UTF8.self) == ":ping\n\n")
        #expect(
            String(decoding: ServerSentEvent.fields(id: "12\n", retry: 3000), as: UTF8.self)
                == "id: 12\nretry: 3000\n\n")
        #expect(String(decoding: ServerSentEvent.fields(retry: 3000), as: UTF8.self) == "retry: 3000\n\n")
    }

    @Test func errorBodiesAreExactJSON() throws {
        let error = HTTPError.badRequest("Bad \"input\"\n", code: "invalid_input")
        #expect(
            String(decoding: error.jsonBody, as: UTF8.self)
                == #"{"error":{"code":"invalid_input","message":"Bad \"input\"\n"}}"#)
        let parsed = try JSONSerialization.jsonObject(with: Data(error.jsonBody)) as? [String: [String: String]]
        #expect(parsed?["error"]?["message"] == "Bad \"input\"\n")
        #expect(error.response.status == 400)
        #expect(HTTPError.from(CancellationError()).status == 503)
        #expect(HTTPError.tooManyRequests(retryAfterSeconds: 5).headers["Retry-After"] == "5")
    }

    @Test func streamCloseHandlersRunOnce() {
        let stream = ResponseStream()
        let count = Mutex(0)
        stream.onClose { count.withLock { $0 += 1 } }
        #expect(stream.write(Array("x".utf8)))
        stream.finish()
        stream.finish()
        stream.transportClosed()
        #expect(count.withLock { $0 } == 1)
        let late = Mutex(false)
        stream.onClose { late.withLock { $0 = true } }
        #expect(late.withLock { $0 })
        #expect(!stream.write([1]))
    }

    @Test func idleTimeoutRoundsUpToWholeSeconds() {
        #expect(HTTPServerConfiguration(idleTimeout: .milliseconds(1500)).idleTimeoutSeconds == 2)
        #expect(HTTPServerConfiguration(idleTimeout: .seconds(60)).idleTimeoutSeconds == 60)
        #expect(HTTPServerConfiguration(idleTimeout: .zero).idleTimeoutSeconds == 0)
    }
}
