import Testing

@testable import HeraldKit

@Suite("Server-sent event parser")
struct ServerSentEventParserTests {
    typealias Message = ServerSentEventParser.Message

    /// Feeds `chunks` one after another and answers every dispatched event.
    static func parse(_ chunks: [String], lastEventID: String = "") -> (
        messages: [Message], parser: ServerSentEventParser
    ) {
        var parser = ServerSentEventParser(lastEventID: lastEventID)
        let messages = chunks.flatMap { parser.feed(Array($0.utf8)) }
        return (messages, parser)
    }

    @Test("id, event and multi-line data make one event; a blank line dispatches it")
    func fields() {
        let (messages, parser) = Self.parse(["id: 7\nevent: counts\ndata: {\"unread\":1,\ndata:  \"unseen\":2}\n\n"])
        #expect(messages == [Message(lastEventID: "7", event: "counts", data: "{\"unread\":1,\n \"unseen\":2}")])
        #expect(parser.lastEventID == "7")
    }

    @Test("LF, CRLF and CR all end lines, and a CRLF split across chunks ends one line")
    func lineEndings() {
        let (messages, _) = Self.parse(["data: a\r\n\r\ndata: b\r\rdata: c\n\ndata: d\r", "\n\r", "\n"])
        #expect(messages.map(\.data) == ["a", "b", "c", "d"])
    }

    @Test("a line cut anywhere across chunks, even inside a UTF-8 character, reads whole")
    func partialLines() {
        let text = "event: notification.created\ndata: {\"title\":\"Café 👨‍👩‍👧\"}\n\n"
        let bytes = Array(text.utf8)
        for cut in 1..<bytes.count {
            var parser = ServerSentEventParser()
            let messages = parser.feed(bytes[..<cut]) + parser.feed(bytes[cut...])
            #expect(
                messages == [Message(lastEventID: "", event: "notification.created", data: "{\"title\":\"Café 👨‍👩‍👧\"}")])
        }
        var byteByByte = ServerSentEventParser()
        #expect(bytes.flatMap { byteByByte.feed([$0]) }.count == 1)
    }

    @Test("comments are skipped and counted; fields without a colon or unknown fields are ignored")
    func commentsAndOddLines() {
        let (messages, parser) = Self.parse([": heartbeat\n\n:herald\ndata\nfoo: bar\ndata:x\n\n"])
        #expect(messages.map(\.data) == ["\nx"], "a bare `data` line is an empty data line")
        #expect(parser.comments == 2)
    }

    @Test("only one space after the colon is dropped")
    func leadingSpace() {
        #expect(Self.parse(["data:  two\n\n"]).messages.map(\.data) == [" two"])
        #expect(Self.parse(["data:none\n\n"]).messages.map(\.data) == ["none"])
    }

    @Test("the event type defaults to message and resets after each event")
    func eventTypeReset() {
        let (messages, _) = Self.parse(["event: counts\ndata: 1\n\ndata: 2\n\n"])
        #expect(messages.map(\.event) == ["counts", "message"])
    }

    @Test("the last event id moves only when an event is dispatched, and carries over to later events")
    func lastEventID() {
        var parser = ServerSentEventParser(lastEventID: "3")
        #expect(parser.feed(Array("id: 4\nevent: counts\ndata: x".utf8)).isEmpty)
        #expect(parser.lastEventID == "3", "an event cut off before its blank line does not count")
        let messages = parser.feed(Array("\n\nevent: counts\ndata: y\n\n".utf8))
        #expect(messages.map(\.lastEventID) == ["4", "4"], "an event without id keeps the last one")
        #expect(parser.lastEventID == "4")
        // An id with a NUL is ignored; an empty id clears it; a blank event still commits the id.
        #expect(parser.feed(Array("id: 5\u{0}\n\nid: 6\n\n".utf8)).isEmpty)
        #expect(parser.lastEventID == "6")
        #expect(parser.feed(Array("id\n\n".utf8)).isEmpty)
        #expect(parser.lastEventID == "")
    }

    @Test("retry takes digits only")
    func retry() {
        #expect(Self.parse(["retry: 3000\n\n"]).parser.retry == 3000)
        #expect(Self.parse(["retry: 3000\nretry: 2s\nretry: -1\nretry:\n\n"]).parser.retry == 3000)
        #expect(Self.parse(["retry: 99999999999999999999999\n\n"]).parser.retry == nil)
    }

    @Test("a byte order mark at the start is skipped")
    func byteOrderMark() {
        var parser = ServerSentEventParser()
        #expect(parser.feed([0xEF, 0xBB]).isEmpty)
        let messages = parser.feed([0xBF] + Array("data: x\n\n".utf8))
        #expect(messages.map(\.data) == ["x"])
    }

    @Test("the server's own framing parses: a resumed stream's preamble comment and retry, replay, counts")
    func heraldFraming() {
        let wire =
            ": herald live updates\n\nretry: 3000\n\n"
            + "id: 12\nevent: notification.updated\ndata: {\"id\":\"n\",\"readAt\":null,\"seenAt\":null,\"deleted\":true}\n\n"
            + "event: counts\ndata: {\"unread\":0,\"unseen\":0}\n\n"
        let (messages, parser) = Self.parse([wire])
        #expect(messages.map(\.event) == ["notification.updated", "counts"])
        #expect(messages.map(\.lastEventID) == ["12", "12"])
        #expect(parser.retry == 3000)
    }

    @Test("a new stream's preamble sets the last event id and the retry without dispatching anything")
    func heraldNewStreamPreamble() {
        let (preamble, parser) = Self.parse([": herald live updates\n\nid: 11\nretry: 3000\n\n"])
        #expect(preamble.isEmpty)
        #expect(parser.lastEventID == "11" && parser.retry == 3000)
        let (messages, _) = Self.parse([
            ": herald live updates\n\nid: 11\nretry: 3000\n\n", "event: counts\ndata: {\"unread\":0,\"unseen\":0}\n\n",
        ])
        #expect(messages.map(\.lastEventID) == ["11"], "counts, which has no id, dispatches under the preamble's")
    }
}
