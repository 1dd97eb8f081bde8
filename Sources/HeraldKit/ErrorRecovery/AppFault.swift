/// An uncaught error the app's error boundary caught.
public enum AppFault: Sendable, Equatable {
    /// A screen failed to render.
    case render
    /// A code chunk failed to load (critical).
    case chunkLoad
    /// A network request failed underneath a screen (critical).
    case networkFailed

    /// Whether the fault counts towards Critical App Error (ERROR-03).
    public var isCritical: Bool {
        switch self {
        case .render: false
        case .chunkLoad, .networkFailed: true
        }
    }
}
