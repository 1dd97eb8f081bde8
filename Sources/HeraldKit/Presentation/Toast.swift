/// A transient message over the screen, as plain data a UI renders and a test reads.
public struct Toast: Sendable, Equatable {
    /// The toast's colour and icon.
    public enum Kind: String, Sendable, Equatable {
        case success, warning, danger, info
    }

    public var kind: Kind
    public var title: String
    public var message: String?
    /// How long the toast stays up.
    public var duration: Duration
    /// Whether tapping the toast does something (Undo).
    public var isTappable: Bool

    public init(
        kind: Kind, title: String, message: String? = nil, duration: Duration = .seconds(3), isTappable: Bool = false
    ) {
        self.kind = kind
        self.title = title
        self.message = message
        self.duration = duration
        self.isTappable = isTappable
    }
}
