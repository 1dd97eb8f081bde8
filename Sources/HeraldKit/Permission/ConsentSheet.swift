/// The consent bottom sheet as a person sees it: artwork, copy, an outline Cancel button and
/// a primary Accept button (CONSENT-03).
public struct ConsentSheet: Sendable, Equatable {
    /// How a button is drawn.
    public enum ButtonStyle: Sendable, Equatable {
        case primary, outline
    }

    /// The asset name of the artwork.
    public var artwork: String
    public var title: String
    public var message: String
    /// Disabled while the OS dialog is open.
    public var cancelButton: ButtonState
    public var cancelStyle: ButtonStyle
    /// Loading and disabled while the OS dialog is open.
    public var acceptButton: ButtonState
    public var acceptStyle: ButtonStyle

    /// The sheet, with both buttons waiting while the OS dialog is open.
    init(isRequesting: Bool) {
        artwork = ConsentCopy.sheetArtwork
        title = ConsentCopy.sheetTitle
        message = ConsentCopy.sheetMessage
        cancelButton = ButtonState(title: ConsentCopy.cancelButton, isDisabled: isRequesting)
        cancelStyle = .outline
        acceptButton = ButtonState(title: ConsentCopy.acceptButton, isLoading: isRequesting, isDisabled: isRequesting)
        acceptStyle = .primary
    }
}
