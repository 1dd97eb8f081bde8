import Observation

/// The app icon badge: the signed-in person's unread count, following the live stream's counts
/// (GATE-09); 0 for a guest, so signing out clears it. ``unreadCount`` also feeds the Profile
/// tab badge (TABS-02).
@MainActor @Observable public final class AppBadgeModel {
    /// The unread count the icon shows.
    public private(set) var unreadCount = 0

    @ObservationIgnored private let api: HeraldAPI
    @ObservationIgnored private let shell: AppShellClient
    @ObservationIgnored private var streamTask: Task<Void, Never>?
    /// The number last set on the icon; `nil` before the first.
    @ObservationIgnored private var iconCount: Int?

    public init(dependencies: HeraldDependencies, shell: AppShellClient) {
        self.api = dependencies.api
        self.shell = shell
    }

    deinit {
        streamTask?.cancel()
    }

    /// The session changed. Signed in: the count follows the live stream, which sends fresh
    /// counts when it opens and after every change. A guest: 0 on the icon.
    public func sessionChanged(isSignedIn: Bool) {
        streamTask?.cancel()
        streamTask = nil
        guard isSignedIn else {
            show(0)
            return
        }
        let events = api.liveEvents()
        streamTask = Task { [weak self] in
            // A stream replaced by a session change can still hand over what it held; the
            // session that changed it owns the count now.
            do {
                for try await event in events {
                    guard !Task.isCancelled else { return }
                    if case .counts(let counts) = event { self?.show(counts.unread) }
                }
            } catch let error as HeraldAPIError where error.kind == .unauthenticated {
                // The session is gone: the person is a guest now.
                if !Task.isCancelled { self?.show(0) }
            } catch {
                // The stream ended another way; the count stays until the next session.
            }
        }
    }

    private func show(_ count: Int) {
        unreadCount = count
        guard iconCount != count else { return }
        iconCount = count
        shell.setIconBadge(count)
    }
}
