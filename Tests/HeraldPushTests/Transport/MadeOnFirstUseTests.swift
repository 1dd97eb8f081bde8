import Synchronization
import Testing

@testable import HeraldThreads

/// The start-on-first-use the push engine and the webhook client's TLS context share.
@Suite("Made on first use")
struct MadeOnFirstUseTests {
    struct Refused: Error, Equatable {}
    struct Retired: Error, Equatable {}

    @Test("callers at once share one making; the value is kept")
    func oneMaking() async throws {
        let makes = Mutex(0)
        let value = MadeOnFirstUse { () throws -> Int in
            makes.withLock { $0 += 1 }
            return 42
        }
        #expect(value.made == nil)
        let answers = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<16 { group.addTask { try await value.value(retired: Retired()) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers == Array(repeating: 42, count: 16))
        #expect(makes.withLock { $0 } == 1 && value.made == 42)
    }

    @Test("a making that fails leaves the next caller to try again")
    func failureRetries() async throws {
        let attempts = Mutex(0)
        let value = MadeOnFirstUse { () throws -> String in
            let attempt = attempts.withLock {
                $0 += 1
                return $0
            }
            guard attempt > 1 else { throw Refused() }
            return "made"
        }
        await #expect(throws: Refused.self) { try await value.value(retired: Retired()) }
        #expect(value.made == nil)
        #expect(try await value.value(retired: Retired()) == "made")
        #expect(attempts.withLock { $0 } == 2)
    }

    @Test("retired: later callers get the named error; a retire answers what was made")
    func retire() async throws {
        let never = MadeOnFirstUse { () throws -> Int in 1 }
        #expect(await never.retire() == nil)
        await #expect(throws: Retired.self) { try await never.value(retired: Retired()) }

        let used = MadeOnFirstUse { () throws -> Int in 7 }
        #expect(try await used.value(retired: Retired()) == 7)
        #expect(await used.retire() == 7 && used.made == 7)
        #expect(await used.retire() == 7, "a second retire answers the same")
        await #expect(throws: Retired.self) { try await used.value(retired: Retired()) }

        let already = MadeOnFirstUse(made: 3)
        #expect(already.made == 3)
        #expect(try await already.value(retired: Retired()) == 3)
    }
}
