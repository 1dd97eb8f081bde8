import Synchronization
import Testing

@testable import HeraldStore

/// The post-commit change feed: what a transaction announces reaches the observer when it
/// commits, in order, and never when it rolls back.
@Suite("change feed")
struct ChangeFeedTests {
    struct Refused: Error {}

    @Test func changesReachTheObserverOnCommitAndNeverOnRollback() throws {
        let feed = ChangeFeed()
        let heard = Mutex<[LiveChange]>([])
        feed.observe { change in heard.withLock { $0.append(change) } }
        let connection = try SQLiteConnection(path: ":memory:")
        connection.feed = feed

        #expect(throws: Refused.self) {
            try connection.transaction(write: true) {
                try connection.announce(.counts(userIDs: ["ghost"]))
                throw Refused()
            }
        }
        #expect(heard.withLock { $0 }.isEmpty)

        try connection.transaction(write: true) {
            try connection.announce(.events(userIDs: ["alice"], throughSeq: 7))
            // Nothing is told before the commit.
            #expect(heard.withLock { $0 }.isEmpty)
            try connection.announce(.counts(userIDs: ["bob"]))
        }
        #expect(heard.withLock { $0 } == [.events(userIDs: ["alice"], throughSeq: 7), .counts(userIDs: ["bob"])])

        feed.observe(nil)
        try connection.transaction(write: true) { try connection.announce(.counts(userIDs: ["carol"])) }
        #expect(heard.withLock { $0 }.count == 2)
    }
}
