import Foundation

/// The app's router, as the models drive it.
public struct Navigator: Sendable {
    /// Opens an in-app path such as `/orders/123`, `/notifications/detail/ID` or `/`.
    public var open: @MainActor @Sendable (_ path: String) throws -> Void
    /// Opens an external `https` URL (browser).
    public var openURL: @MainActor @Sendable (_ url: URL) -> Void
    /// Presents the sign-in (auth) sheet.
    public var presentSignIn: @MainActor @Sendable () -> Void

    public init(
        open: @escaping @MainActor @Sendable (_ path: String) throws -> Void,
        openURL: @escaping @MainActor @Sendable (_ url: URL) -> Void,
        presentSignIn: @escaping @MainActor @Sendable () -> Void
    ) {
        self.open = open
        self.openURL = openURL
        self.presentSignIn = presentSignIn
    }
}
