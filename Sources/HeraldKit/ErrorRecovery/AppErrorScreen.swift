/// The last-resort crash screen as a person sees it.
public struct AppErrorScreen: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// An uncaught error (ERROR-01).
        case appError
        /// The device is offline (ERROR-02).
        case offline
        /// Critical errors kept coming; a restart is recommended (ERROR-03).
        case critical
    }

    public var kind: Kind
    public var title: String
    public var message: String
    /// Try Again, Retry Connection, or for a critical error Restart App.
    public var primaryButton: ButtonState
    /// Restart App, or for a critical error Try Again.
    public var secondaryButton: ButtonState

    init(kind: Kind) {
        self.kind = kind
        switch kind {
        case .appError:
            title = AppErrorCopy.appErrorTitle
            message = AppErrorCopy.appErrorMessage
            primaryButton = ButtonState(title: AppErrorCopy.tryAgainButton)
            secondaryButton = ButtonState(title: AppErrorCopy.restartButton)
        case .offline:
            title = AppErrorCopy.offlineTitle
            message = AppErrorCopy.offlineMessage
            primaryButton = ButtonState(title: AppErrorCopy.retryConnectionButton)
            secondaryButton = ButtonState(title: AppErrorCopy.restartButton)
        case .critical:
            title = AppErrorCopy.criticalTitle
            message = AppErrorCopy.criticalMessage
            primaryButton = ButtonState(title: AppErrorCopy.restartButton)
            secondaryButton = ButtonState(title: AppErrorCopy.tryAgainButton)
        }
    }
}
