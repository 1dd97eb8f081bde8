import Foundation
import Synchronization

/// A wall clock that moves only when a test advances it.
final class TestClock: Sendable {
    private let current: Mutex<Date>

    init(_ start: Date = Date(timeIntervalSince1970: 1_750_000_000)) { current = Mutex(start) }

    var now: Date { current.withLock { $0 } }

    /// The closure the code under test reads the time from.
    var closure: @Sendable () -> Date { { self.now } }

    func advance(minutes: Double = 0, seconds: Double = 0) {
        current.withLock { $0 = $0.addingTimeInterval(minutes * 60 + seconds) }
    }
}
