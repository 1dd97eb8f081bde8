/// The words of the account gate. From `spec/app-shell-screen-map.txt`: the title and the two
/// buttons. Written for HeraldKit (the document only says what they say): both messages.
public enum AccountGateCopy {
    /// The account error's title (GATE-03).
    public static let loadFailedTitle = "Can't load your account"
    /// The account error's message.
    public static let loadFailedMessage = "Something went wrong while loading your account. Please try again."
    /// The message when the servers could not be reached (GATE-04).
    public static let serversUnreachableMessage =
        "We couldn't reach our servers. Check your connection and try again."
    /// Re-checks the account (GATE-03, GATE-04).
    public static let tryAgainButton = "Try again"
    /// Goes on to a degraded Home (GATE-03).
    public static let continueBrowsingButton = "Continue browsing"
}
