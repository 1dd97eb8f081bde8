import Foundation
import HeraldKit
import HeraldModel
import Testing

/// The server's preference calls, in memory and strict: a PATCH is validated against the
/// catalog and merged exactly as `PATCH /v1/me/preferences` does (the account category is
/// refused like the server's 400, a snooze more than 365 days ahead too), the OS decision and
/// the start-up sync follow the server's rules, and reads answer the stored preferences filled
/// for the catalog (defaults until the first write). `GET /v1/me/sources` answers the sources
/// the user heard from, most recent first, each muted as the stored `mutedSources` say. Any call
/// can be made to fail or to hang on demand.
@MainActor public final class FakePreferencesBackend {
    /// One of the calls this backend answers.
    public enum Call: Hashable, Sendable {
        case read, update, recordPermission, syncPermission, sources
    }

    /// Where a hung call waits.
    public enum HangPoint: Sendable {
        /// Before the server handles it: nothing is read or written until it is resumed.
        case beforeServing
        /// After the server handled it: what it read or wrote is fixed, only its answer waits,
        /// as an answer still on its way back to the app.
        case afterServing
    }

    /// How a hung call ends.
    public enum Outcome: Sendable {
        /// The call goes on: one hung before serving is served now, one hung after serving
        /// delivers the answer it already had.
        case proceed
        /// The call throws; one hung after serving keeps what the server did.
        case failure(any Error)
    }

    public let catalog: Catalog
    /// What the server stored; `nil` until the first write.
    public var stored: Preferences?
    /// The sources the user got notifications from (their `muted` is not read: the stored
    /// `mutedSources` decide it).
    public var heardFrom: [ReceivedSource]
    /// Every PATCH that arrived, in order, including refused and failed ones.
    public private(set) var patches: [PreferencesPatch] = []
    /// Every OS decision that arrived (`POST /v1/me/permission`), in order.
    public private(set) var decisions: [Bool] = []
    /// Every start-up sync that arrived (`POST /v1/me/permission/sync`), in order.
    public private(set) var syncs: [PermissionStatus] = []
    /// How many reads arrived.
    public private(set) var reads = 0
    /// How many source lists were asked for.
    public private(set) var sourceReads = 0

    private var nextFailures: [Call: any Error] = [:]
    private var nextHangs: [Call: HangPoint] = [:]
    private var hanging: [Call: CheckedContinuation<Outcome, Never>] = [:]

    private let now: @MainActor @Sendable () -> Date

    /// - Parameter now: the server's clock, which a snooze is checked against.
    public init(
        catalog: Catalog = .standard, stored: Preferences? = nil, heardFrom: [ReceivedSource] = [],
        now: @escaping @MainActor @Sendable () -> Date = { Date(timeIntervalSince1970: 1_800_000_000) }
    ) {
        self.catalog = catalog
        self.stored = stored
        self.heardFrom = heardFrom
        self.now = now
    }

    /// What a read answers now.
    public var current: Preferences {
        stored?.filled(catalog: catalog) ?? .defaults(catalog: catalog)
    }

    /// What `GET /v1/me/sources` answers now.
    public var currentSources: ReceivedSources {
        let muted = Set(current.mutedSources)
        return ReceivedSources(
            items: heardFrom.sorted { $0.lastReceivedAt > $1.lastReceivedAt }.map {
                ReceivedSource(
                    id: $0.id, name: $0.name, muted: muted.contains($0.id), lastReceivedAt: $0.lastReceivedAt)
            })
    }

    /// The next `call` throws `error` (a 500 unless told) and changes nothing.
    public func failNext(_ call: Call, with error: any Error = HeraldAPIError.server()) {
        nextFailures[call] = error
    }

    /// The next `call` waits at `point` until ``resume(_:with:)``.
    public func hangNext(_ call: Call, _ point: HangPoint = .beforeServing) {
        nextHangs[call] = point
    }

    /// Whether a `call` is waiting for ``resume(_:with:)``.
    public func isHanging(_ call: Call) -> Bool {
        hanging[call] != nil
    }

    /// Ends the hung `call`.
    public func resume(_ call: Call, with outcome: Outcome = .proceed) {
        guard let continuation = hanging.removeValue(forKey: call) else {
            Issue.record("FakePreferencesBackend.resume(\(call)): no such call is hanging")
            return
        }
        continuation.resume(returning: outcome)
    }

    /// `base` with the preference calls answered by this backend.
    public func api(_ base: HeraldAPI = .failing) -> HeraldAPI {
        var api = base
        api.preferences = { [self] in
            reads += 1
            try await arrive(.read)
            return try await serve(.read) { current }
        }
        api.updatePreferences = { [self] patch in
            patches.append(patch)
            try await arrive(.update)
            return try await serve(.update) {
                do {
                    try patch.validate(catalog: catalog)
                    try patch.validateSnooze(now: now())
                } catch let error as ValidationError {
                    throw HeraldAPIError(kind: .rejected, status: 400, code: error.code, message: error.message)
                }
                return write((stored ?? .defaults(catalog: catalog)).applying(patch))
            }
        }
        api.recordPermission = { [self] granted in
            decisions.append(granted)
            try await arrive(.recordPermission)
            return try await serve(.recordPermission) {
                write((stored ?? .defaults(catalog: catalog)).recording(decision: granted))
            }
        }
        api.sources = { [self] in
            sourceReads += 1
            try await arrive(.sources)
            return try await serve(.sources) { currentSources }
        }
        api.syncPermission = { [self] status in
            syncs.append(status)
            try await arrive(.syncPermission)
            return try await serve(.syncPermission) {
                guard let synced = current.syncing(status: status) else { return current }
                return write(synced)
            }
        }
        return api
    }

    /// Waits if the call was told to hang before serving, then throws if it was told to fail.
    private func arrive(_ call: Call) async throws {
        if nextHangs[call] == .beforeServing {
            nextHangs[call] = nil
            try await hang(call)
        }
        if let error = nextFailures.removeValue(forKey: call) { throw error }
    }

    /// Handles `call` now and delivers its answer (or refusal) once a hang after serving ends.
    private func serve<Answer>(_ call: Call, _ handle: () throws -> Answer) async throws -> Answer {
        let answer = Result<Answer, any Error>(catching: handle)
        if nextHangs[call] == .afterServing {
            nextHangs[call] = nil
            try await hang(call)
        }
        return try answer.get()
    }

    private func hang(_ call: Call) async throws {
        let outcome = await withCheckedContinuation { hanging[call] = $0 }
        if case .failure(let error) = outcome { throw error }
    }

    private func write(_ preferences: Preferences) -> Preferences {
        stored = preferences
        return current
    }
}
