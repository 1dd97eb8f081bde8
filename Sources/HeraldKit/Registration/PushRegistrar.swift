import HeraldModel
import Observation

/// Registers this device for push once someone is signed in, and unregisters it at sign-out
/// (PUSH-01..PUSH-06, PUSH-13); at start-up it also syncs the OS permission with the backend
/// (SYNC-01..SYNC-03).
///
/// The app calls ``shellMounted()`` when the signed-in shell mounts, ``appBecameActive()`` when
/// the app comes to the front (so a grant made in a soft ask or in Settings registers at once),
/// and ``signingOut()`` before the session ends.
@MainActor @Observable public final class PushRegistrar {
    /// Where registration stands.
    public enum Status: Sendable, Equatable {
        /// Nothing done yet in this session.
        case idle
        /// The OS permission is not granted: nothing is registered.
        case notGranted
        /// This device's current token is registered with the backend.
        case registered
        /// A simulator has no push token; registration was skipped (PUSH-06).
        case skippedOnSimulator
        /// Reading the permission, asking, getting the token or registering failed; the next
        /// mount or activation tries again.
        case failed
    }

    /// Where registration stands now.
    public private(set) var status: Status = .idle
    /// The token registered with the backend from this device, kept across launches (PUSH-05).
    public private(set) var registeredToken: String?

    @ObservationIgnored private let presentation: PermissionPresentation
    @ObservationIgnored private let dependencies: HeraldDependencies
    @ObservationIgnored private var isMounting = false

    /// A registrar that asks for permission at sign-in only for ``PermissionPresentation/askAtSignIn``.
    public init(presentation: PermissionPresentation, dependencies: HeraldDependencies) {
        self.presentation = presentation
        self.dependencies = dependencies
        self.registeredToken = dependencies.storage.string(StorageKey.registeredPushToken)
    }

    /// Whether this device has a push token registered; the Home offer skips it then (PERM-14).
    public var isTokenRegistered: Bool { registeredToken != nil }

    /// The signed-in shell mounted (a cold start or a sign-in): checks the permission (PUSH-01),
    /// syncs it with the backend (SYNC-01..SYNC-03), asks when configured to ask at sign-in
    /// (PUSH-02, the only prompt at start-up) and registers the token once granted
    /// (PUSH-03..PUSH-06).
    public func shellMounted() async {
        isMounting = true
        defer { isMounting = false }
        guard var state = await readPermission() else { return }
        await syncPermission(state)
        if presentation == .askAtSignIn, !state.isGranted, state.canAskAgain {
            do {
                state = try await dependencies.permission.request()
            } catch {
                status = .failed
                return
            }
            await dependencies.recordPermissionDecision(state)
        }
        await registerToken(ifGranted: state)
    }

    /// The app came to the front: when no token is registered yet, a permission granted since
    /// (in a soft ask, the consent sheet or Settings) registers now. Never asks.
    public func appBecameActive() async {
        guard !isMounting, registeredToken == nil, let state = await readPermission() else { return }
        await registerToken(ifGranted: state)
    }

    /// Someone is signing out, while the session still holds: the registered token is
    /// unregistered from the backend and forgotten, so the next account registers afresh
    /// (PUSH-13). A failed unregister is not retried; the token is forgotten anyway.
    public func signingOut() async {
        guard let token = registeredToken else { return }
        setRegisteredToken(nil)
        status = .idle
        try? await dependencies.api.unregisterDevice(token)
    }

    private func readPermission() async -> NotificationPermissionState? {
        do {
            return try await dependencies.permission.state()
        } catch {
            status = .failed
            return nil
        }
    }

    /// Reports an OS decision to the backend; never asked means no sync (SYNC-03). The
    /// backend turns the global switch off after a revoke and on after a grant made in
    /// Settings (SYNC-01, SYNC-02). A failure is not shown; the next start syncs again.
    private func syncPermission(_ state: NotificationPermissionState) async {
        let reported = PermissionStatus(state.authorization)
        guard reported != .undetermined else { return }
        _ = try? await dependencies.api.syncPermission(reported)
    }

    private func registerToken(ifGranted state: NotificationPermissionState) async {
        guard state.isGranted else {
            status = .notGranted
            return
        }
        guard !dependencies.platform.isSimulator else {
            status = .skippedOnSimulator
            return
        }
        do {
            let token = try await dependencies.pushToken.token()
            if token.value != registeredToken {
                _ = try await dependencies.api.registerDevice(
                    DeviceRegistration(token: token, platform: dependencies.platform))
                setRegisteredToken(token.value)
            }
            status = .registered
        } catch {
            status = .failed
        }
    }

    private func setRegisteredToken(_ token: String?) {
        dependencies.storage.setString(token, StorageKey.registeredPushToken)
        registeredToken = token
    }
}
