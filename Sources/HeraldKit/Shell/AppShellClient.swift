/// The app's own services the shell drives: its account service (the profile behind the account
/// stage, sign-out), the app reload and the app icon badge. They belong to the app, not to
/// Herald, so they are apart from ``HeraldDependencies``.
public struct AppShellClient: Sendable {
    /// Asks the account service to load the account stage again (Try again on the account
    /// error); the new stage arrives through ``AccountGateModel/accountStageChanged(_:)``.
    public var reloadAccount: @MainActor @Sendable () async -> Void
    /// Ends the session without a word (a closed account, Restart App).
    public var signOut: @MainActor @Sendable () async -> Void
    /// Reloads the app from its root, as after a fresh launch (Restart App).
    public var reloadApp: @MainActor @Sendable () -> Void
    /// Sets the number on the app icon (`UNUserNotificationCenter.setBadgeCount`); 0 clears it.
    public var setIconBadge: @MainActor @Sendable (_ count: Int) -> Void

    public init(
        reloadAccount: @escaping @MainActor @Sendable () async -> Void,
        signOut: @escaping @MainActor @Sendable () async -> Void,
        reloadApp: @escaping @MainActor @Sendable () -> Void,
        setIconBadge: @escaping @MainActor @Sendable (_ count: Int) -> Void
    ) {
        self.reloadAccount = reloadAccount
        self.signOut = signOut
        self.reloadApp = reloadApp
        self.setIconBadge = setIconBadge
    }
}
