import HeraldModel
import Observation

/// Registers this device for push for the signed-in user, and unregisters it at sign-out
/// (PUSH-01..PUSH-06, PUSH-13); at start-up it also syncs the OS permission with the backend
/// (SYNC-01..SYNC-03).
///
/// The app calls ``shellMounted(userID:)`` when the signed-in shell mounts, ``appBecameActive()``
/// when the app comes to the front (so a grant made in a soft ask or in Settings registers at
/// once), and ``signingOut()`` before the session ends.
///
/// The registered token is remembered with the user it is registered for. When another account
/// mounts the shell, also after a session that ended without ``signingOut()`` (expired or
/// revoked), the token is registered again, and the backend moves it to that account (PUSH-04).
@MainActor @Observable public final class PushRegistrar {
    /// Where registration stands.
    public enum Status: Sendable, Equatable {
        /// Nothing done yet for the signed-in user.
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

    /// Where registration stands now for the signed-in user.
    public private(set) var status: Status = .idle
    /// The signed-in user, as the last ``shellMounted(userID:)`` said; `nil` after ``signingOut()``.
    private var userID: String?
    /// The token the backend holds for a user, kept across launches (PUSH-05).
    private var registration: PushTokenOwner?

    @ObservationIgnored private let presentation: PermissionPresentation
    @ObservationIgnored private let dependencies: HeraldDependencies
    /// A token left registered for a user who signed out: unregistering it failed, or its
    /// registration landed after the sign-out. Kept across launches.
    @ObservationIgnored private var staleRegistration: PushTokenOwner?
    /// Moves on whenever the signed-in user changes, so work begun for a user who left stores
    /// nothing for them.
    @ObservationIgnored private var session = 0
    @ObservationIgnored private var mountsRunning = 0
    /// `POST /v1/me/devices` calls under way, oldest first.
    @ObservationIgnored private var registrationsInFlight: [Task<Void, any Error>] = []

    /// A registrar that asks for permission at sign-in only for ``PermissionPresentation/askAtSignIn``.
    public init(presentation: PermissionPresentation, dependencies: HeraldDependencies) {
        self.presentation = presentation
        self.dependencies = dependencies
        self.registration = dependencies.storage.pushTokenOwner(
            tokenKey: StorageKey.registeredPushToken, userKey: StorageKey.registeredPushTokenUser)
        self.staleRegistration = dependencies.storage.pushTokenOwner(
            tokenKey: StorageKey.stalePushToken, userKey: StorageKey.stalePushTokenUser)
    }

    /// The token registered with the backend for the signed-in user; `nil` when there is none,
    /// when the token on record belongs to another user, and while nobody is signed in.
    public var registeredToken: String? {
        guard let registration, registration.userID == userID else { return nil }
        return registration.token
    }

    /// Whether this device has a push token registered for the signed-in user; the Home offer
    /// skips it then (PERM-14).
    public var isTokenRegistered: Bool { registeredToken != nil }

    /// The signed-in shell mounted for `userID` (a cold start or a sign-in): checks the
    /// permission (PUSH-01), syncs it with the backend (SYNC-01..SYNC-03), asks when configured
    /// to ask at sign-in (PUSH-02, the only prompt at start-up) and registers the token for
    /// `userID` once granted (PUSH-03..PUSH-06). A token on record for another user is
    /// registered again, so the backend moves it to `userID`. Also retries unregistering a
    /// token `userID` left at an earlier sign-out (PUSH-13).
    public func shellMounted(userID: String) async {
        if userID != self.userID {
            self.userID = userID
            session += 1
            status = .idle
        }
        let session = session
        mountsRunning += 1
        defer { mountsRunning -= 1 }
        guard var state = await readPermission(session) else { return }
        await syncPermission(state)
        guard isCurrent(session) else { return }
        if presentation == .askAtSignIn, !state.isGranted, state.canAskAgain {
            do {
                state = try await dependencies.permission.request()
            } catch {
                setStatus(.failed, session)
                return
            }
            await dependencies.recordPermissionDecision(state)
        }
        await registerToken(ifGranted: state, session: session)
        await unregisterStaleToken(of: userID, session: session)
    }

    /// The app came to the front: when no token is registered for the signed-in user yet, a
    /// permission granted since (in a soft ask, the consent sheet or Settings) registers now.
    /// Never asks. Also retries unregistering a token this user left at an earlier sign-out.
    public func appBecameActive() async {
        guard mountsRunning == 0, let userID else { return }
        let session = session
        if registeredToken == nil, let state = await readPermission(session) {
            await registerToken(ifGranted: state, session: session)
        }
        await unregisterStaleToken(of: userID, session: session)
    }

    /// Someone is signing out, while the session still holds: the token registered for the
    /// user of the last ``shellMounted(userID:)`` is unregistered from the backend and
    /// forgotten, so the next account registers afresh (PUSH-13). A registration still under
    /// way lands first and is unregistered too.
    ///
    /// A failed unregister is kept and retried while the same user is signed in again (the
    /// backend unregisters a token only for its own user); once the token is registered for
    /// anyone, the backend has moved it and the retry is dropped.
    public func signingOut() async {
        guard let userID else { return }
        self.userID = nil
        session += 1
        let session = session
        status = .idle
        if let registration, registration.userID == userID {
            setRegistration(nil)
            setStaleRegistration(registration)
        }
        for registering in registrationsInFlight { _ = try? await registering.value }
        await unregisterStaleToken(of: userID, session: session)
    }

    private func isCurrent(_ session: Int) -> Bool { session == self.session }

    /// Sets the status, unless the signed-in user changed since `session` began.
    private func setStatus(_ status: Status, _ session: Int) {
        guard isCurrent(session) else { return }
        self.status = status
    }

    private func readPermission(_ session: Int) async -> NotificationPermissionState? {
        do {
            return try await dependencies.permission.state()
        } catch {
            setStatus(.failed, session)
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

    private func registerToken(ifGranted state: NotificationPermissionState, session: Int) async {
        guard state.isGranted else {
            setStatus(.notGranted, session)
            return
        }
        guard !dependencies.platform.isSimulator else {
            setStatus(.skippedOnSimulator, session)
            return
        }
        do {
            let token = try await dependencies.pushToken.token()
            try await register(token, session: session)
            setStatus(.registered, session)
        } catch {
            setStatus(.failed, session)
        }
    }

    /// `POST /v1/me/devices` for the signed-in user, unless the token is on record for them.
    /// Registrations run one at a time, so the backend files the token under the last one;
    /// one that lands after its user left leaves a stale token for ``signingOut()`` to
    /// unregister rather than a registered one.
    private func register(_ token: PushToken, session: Int) async throws {
        for earlier in registrationsInFlight { _ = try? await earlier.value }
        guard isCurrent(session), let userID else { return }
        let owner = PushTokenOwner(token: token.value, userID: userID)
        guard owner != registration else { return }
        let registering = Task {
            _ = try await dependencies.api.registerDevice(
                DeviceRegistration(token: token, platform: dependencies.platform))
            guard isCurrent(session) else {
                setStaleRegistration(owner)
                return
            }
            setRegistration(owner)
            // The backend moved the token to this user: nothing stale is left to unregister.
            if staleRegistration?.token == owner.token { setStaleRegistration(nil) }
        }
        registrationsInFlight.append(registering)
        defer { registrationsInFlight.removeAll { $0 == registering } }
        try await registering.value
    }

    /// `DELETE /v1/me/devices/{token}` for the token `userID` left at an earlier sign-out, while
    /// `userID`'s session holds. A failure keeps it for the next try.
    private func unregisterStaleToken(of userID: String, session: Int) async {
        guard isCurrent(session), let stale = staleRegistration, stale.userID == userID else { return }
        do {
            try await dependencies.api.unregisterDevice(stale.token)
        } catch {
            return
        }
        if staleRegistration == stale { setStaleRegistration(nil) }
    }

    private func setRegistration(_ owner: PushTokenOwner?) {
        dependencies.storage.setPushTokenOwner(
            owner, tokenKey: StorageKey.registeredPushToken, userKey: StorageKey.registeredPushTokenUser)
        registration = owner
    }

    private func setStaleRegistration(_ owner: PushTokenOwner?) {
        dependencies.storage.setPushTokenOwner(
            owner, tokenKey: StorageKey.stalePushToken, userKey: StorageKey.stalePushTokenUser)
        staleRegistration = owner
    }
}
