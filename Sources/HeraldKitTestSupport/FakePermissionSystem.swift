import HeraldKit
import Testing

/// The OS notification permission, scripted by a test: the current state, and what the OS
/// dialog answers. A request nobody scripted fails the test. State reads can be held, to model
/// an OS that answers late.
@MainActor public final class FakePermissionSystem {
    /// How the next OS dialog ends.
    public enum Answer {
        /// The person answered; the OS now reports this state.
        case state(NotificationPermissionState)
        /// The request threw.
        case failure(any Error)
        /// The dialog stays up until ``respond(_:)``.
        case pending
    }

    /// What `state()` answers, and what a dialog leaves behind.
    public var current: NotificationPermissionState
    /// When set, `state()` throws it.
    public var stateError: (any Error)?
    /// The answer of the next request; consumed by it. `nil` makes a request fail the test.
    public var nextAnswer: Answer?
    /// When set, each `state()` waits until ``releaseStateReads()`` and then answers what it
    /// would have answered when it was called.
    public var holdsStateReads = false
    public private(set) var stateReads = 0
    public private(set) var requests = 0
    private var waiting: CheckedContinuation<NotificationPermissionState, any Error>?
    private var heldStateReads: [CheckedContinuation<Void, Never>] = []

    public init(_ current: NotificationPermissionState = .notDetermined) {
        self.current = current
    }

    /// Whether an OS dialog is up (a `.pending` request waits for ``respond(_:)``).
    public var isDialogOpen: Bool { waiting != nil }

    /// How many `state()` calls are waiting for ``releaseStateReads()``.
    public var heldStateReadCount: Int { heldStateReads.count }

    /// Lets every held `state()` answer, and stops holding new ones.
    public func releaseStateReads() {
        holdsStateReads = false
        let held = heldStateReads
        heldStateReads = []
        for read in held { read.resume() }
    }

    /// Ends a pending dialog with `answer` (a state or a failure).
    public func respond(_ answer: Answer) {
        guard let waiting else {
            Issue.record("FakePermissionSystem.respond: no OS dialog is open")
            return
        }
        self.waiting = nil
        switch answer {
        case .state(let state):
            current = state
            waiting.resume(returning: state)
        case .failure(let error):
            waiting.resume(throwing: error)
        case .pending:
            Issue.record("FakePermissionSystem.respond(.pending) leaves nothing answered")
            self.waiting = waiting
        }
    }

    /// The dependency backed by this fake.
    public var client: NotificationPermissionClient {
        NotificationPermissionClient(
            state: { [self] in
                stateReads += 1
                let answer: Result<NotificationPermissionState, any Error> =
                    stateError.map { .failure($0) } ?? .success(current)
                if holdsStateReads { await withCheckedContinuation { heldStateReads.append($0) } }
                return try answer.get()
            },
            request: { [self] in
                requests += 1
                guard let answer = nextAnswer else {
                    unexpectedCall("NotificationPermissionClient.request (no answer scripted)")
                    throw UnexpectedCallError(name: "NotificationPermissionClient.request")
                }
                nextAnswer = nil
                switch answer {
                case .state(let state):
                    current = state
                    return state
                case .failure(let error):
                    throw error
                case .pending:
                    return try await withCheckedThrowingContinuation { waiting = $0 }
                }
            }
        )
    }
}
