import FoundationEssentials
import HeraldHTTP
import HeraldPush
import HeraldStore

/// Keeps every server on one database sending with one APNs provider token.
///
/// Apple refuses a new token of one key sooner than 20 minutes after the last
/// (`TooManyProviderTokenUpdates`); servers that each signed their own would refuse each
/// other's sends. Before the first send and every ``interval`` after, the keeper offers a freshly
/// signed token to the store, which keeps the first one offered until it is ``replaceAge`` old
/// (or APNs refused it), and adopts whatever the store answers. The stored token is replaced
/// a few minutes before any server would sign its own (``APNsProviderToken/refreshAge``), so
/// all of them move to the new one together. When the store cannot be reached, the server
/// goes on with the token it has and, past its refresh age, signs its own.
final class ProviderTokenKeeper: Sendable {
    /// Time between two looks at the shared token.
    static let interval: Duration = .seconds(60)
    /// The age at which the shared token is replaced: early enough that every server adopts
    /// the new one (within ``interval``) before it would sign its own.
    static let replaceAge: TimeInterval = APNsProviderToken.refreshAge - 5 * 60

    private let store: any HeraldStore
    private let token: APNsProviderToken
    private let logger: Logger
    private let now: @Sendable () -> Date

    init(store: any HeraldStore, token: APNsProviderToken, logger: Logger, now: @escaping @Sendable () -> Date) {
        self.store = store
        self.token = token
        self.logger = logger
        self.now = now
    }

    /// Adopts the shared token, offering a new one when the stored one is stale or refused.
    func refresh() async {
        do {
            let candidate = try token.sign()
            let shared = try await store.sharedProviderToken(
                keyID: token.keyID,
                candidate: SharedProviderToken(token: candidate.token, issuedAt: candidate.issuedAt),
                staleBefore: now().addingTimeInterval(-Self.replaceAge), rejected: Set(token.rejectedTokens))
            token.adopt(shared.token, issuedAt: shared.issuedAt)
        } catch {
            logger.warning(
                "sharing the APNs provider token failed: this server goes on with its own",
                metadata: ["error": "\(error)"])
        }
    }

    /// Refreshes every ``interval`` until the task is cancelled.
    func run() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: Self.interval)
            if Task.isCancelled { return }
            await refresh()
        }
    }
}
