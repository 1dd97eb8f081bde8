import HeraldKit
import HeraldModel

/// The backend's `POST /v1/me/events`: records every batch it is sent, and fails on demand.
@MainActor public final class FakeAnalyticsBackend {
    /// When set, a send throws it (the batch still counts as attempted).
    public var error: (any Error)?
    /// Every batch sent, failed ones included, in order.
    public private(set) var attempts: [[AnalyticsEvent]] = []
    /// The batches the backend accepted.
    public private(set) var accepted: [[AnalyticsEvent]] = []

    public init() {}

    /// The call to install as ``HeraldAPI/sendEvents``.
    public var sendEvents: @MainActor @Sendable ([AnalyticsEvent]) async throws -> Void {
        { [self] events in
            attempts.append(events)
            if let error { throw error }
            accepted.append(events)
        }
    }
}
