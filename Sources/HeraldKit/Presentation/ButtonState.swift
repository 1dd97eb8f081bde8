/// A button as a person sees it: its label, whether it spins and whether it takes taps.
public struct ButtonState: Sendable, Equatable {
    public var title: String
    public var isLoading: Bool
    public var isDisabled: Bool

    public init(title: String, isLoading: Bool = false, isDisabled: Bool = false) {
        self.title = title
        self.isLoading = isLoading
        self.isDisabled = isDisabled
    }
}

/// A custom accessibility action on an element (VoiceOver rotor, TalkBack menu).
public struct AccessibilityActionState: Sendable, Equatable {
    public var name: String
    public init(name: String) { self.name = name }
}
