import Dispatch

/// Runs blocking work (opening a database, connecting, migrating, loading certificate
/// authorities, a host name lookup, a test waiting for a lock) on a dispatch thread and suspends
/// until it is done, so it never stalls one of the few cooperative threads every task of the
/// process shares. Calls on an open store need none of this: each connection already runs on its
/// own serial queue (`ConnectionQueue`).
package func offCooperativePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
    }
}
