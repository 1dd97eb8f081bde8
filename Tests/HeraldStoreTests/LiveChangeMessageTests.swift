import Testing

@testable import HeraldStore

@Suite("Live changes as NOTIFY payloads")
struct LiveChangeMessageTests {
    @Test("events and counts changes read back as written")
    func roundTrip() {
        let events = LiveChange.events(userIDs: ["alice", "bob@example.com", "u:1"], throughSeq: 42)
        #expect(LiveChangeMessage.encode(events) == ["e 42 alice bob@example.com u:1"])
        #expect(LiveChangeMessage.encode(events).map(LiveChangeMessage.decode) == [events])
        let counts = LiveChange.counts(userIDs: ["alice"])
        #expect(LiveChangeMessage.encode(counts).map(LiveChangeMessage.decode) == [counts])
        #expect(LiveChangeMessage.encode(.resync).isEmpty)
    }

    @Test("a 1,000-recipient publish of 36-character ids splits into payloads under PostgreSQL's 8,000 bytes")
    func largeFanOutSplits() {
        let users = (0..<1_000).map { "user-" + String(repeating: "0", count: 31 - String($0).count) + String($0) }
        #expect(users.allSatisfy { $0.utf8.count == 36 })
        let messages = LiveChangeMessage.encode(.events(userIDs: users, throughSeq: 9_000_000_001))
        #expect(messages.count == 6)
        #expect(messages.allSatisfy { $0.utf8.count <= LiveChangeMessage.maxBytes })
        var heard: [String] = []
        for message in messages {
            guard case .events(let userIDs, let seq) = LiveChangeMessage.decode(message) else {
                Issue.record("not an events message: \(message.prefix(40))")
                return
            }
            #expect(seq == 9_000_000_001)
            heard += userIDs
        }
        #expect(heard == users)
    }

    @Test("text that is not a change is ignored")
    func malformed() {
        for text in ["", "e", "e 12", "e x alice", "c", "x alice"] {
            #expect(LiveChangeMessage.decode(text) == nil, "\(text)")
        }
    }
}
