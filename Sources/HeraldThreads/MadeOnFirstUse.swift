import Synchronization

/// A value that blocking work makes the first time it is needed (a client's TLS context, which
/// reads the certificate authorities; the push engine with its thread), so that an idle server
/// holds none. The work runs on a dispatch thread (``offCooperativePool``); callers meanwhile
/// await that one making, no lock is held across it, and a making that fails leaves the next
/// caller to try again. ``retire()`` ends it: later callers get the error they name.
package final class MadeOnFirstUse<Value: Sendable>: Sendable {
    private enum State {
        case notMade
        case making(Task<Value, any Error>)
        case made(Value)
        case retired(Value?)
    }

    /// What a call of ``value(retired:)`` found.
    private enum Step {
        case ready(Value)
        case wait(Task<Value, any Error>)
        case retired
    }

    private let state: Mutex<State>
    private let make: @Sendable () throws -> Value

    /// Made by `make` when first needed.
    package init(_ make: @escaping @Sendable () throws -> Value) {
        state = Mutex(.notMade)
        self.make = make
    }

    /// Made already (by the caller, at start).
    package init(made value: Value) {
        state = Mutex(.made(value))
        make = { value }
    }

    /// The value, made now if this is the first call; `retired` after ``retire()``.
    package func value(retired: @autoclosure () -> any Error) async throws -> Value {
        let make = make
        let task: Task<Value, any Error>
        switch state.withLock({ state -> Step in
            switch state {
            case .made(let value): return .ready(value)
            case .making(let task): return .wait(task)
            case .retired: return .retired
            case .notMade:
                let task = Task { try await offCooperativePool(make) }
                state = .making(task)
                return .wait(task)
            }
        }) {
        case .ready(let value): return value
        case .wait(let making): task = making
        case .retired: throw retired()
        }
        let value: Value
        do {
            value = try await task.value
        } catch {
            // Only this making is undone: a caller that saw it fail first may have started another.
            state.withLock { if case .making(let current) = $0, current == task { $0 = .notMade } }
            throw error
        }
        let kept = state.withLock { state -> Bool in
            switch state {
            case .making: state = .made(value)
            case .made, .notMade: break
            case .retired: return false
            }
            return true
        }
        // A retire that began while this was being made took it over.
        guard kept else { throw retired() }
        return value
    }

    /// The value once made (also after it was retired), nil before.
    package var made: Value? {
        switch state.withLock({ $0 }) {
        case .made(let value), .retired(let value?): value
        case .notMade, .making, .retired(nil): nil
        }
    }

    /// Ends it: answers the value made, waiting for a making in flight; later calls of
    /// ``value(retired:)`` fail. A second retire answers the same value.
    package func retire() async -> Value? {
        let (value, making) = state.withLock { state -> (Value?, Task<Value, any Error>?) in
            switch state {
            case .notMade:
                state = .retired(nil)
                return (nil, nil)
            case .making(let task):
                state = .retired(nil)
                return (nil, task)
            case .made(let value):
                state = .retired(value)
                return (value, nil)
            case .retired(let value):
                return (value, nil)
            }
        }
        guard let making, let value = try? await making.value else { return value }
        state.withLock { $0 = .retired(value) }
        return value
    }

    /// For an owner's `deinit`: `discard` gets the value made, now or when a making in flight ends.
    package func abandon(discarding discard: @escaping @Sendable (Value) -> Void) {
        switch state.withLock({ $0 }) {
        case .made(let value), .retired(let value?): discard(value)
        case .making(let task): Task { if let value = try? await task.value { discard(value) } }
        case .notMade, .retired(nil): break
        }
    }
}
