/// The words of the Oops! screen, quoted from `spec/app-shell-screen-map.txt`. Not translated,
/// as the document says.
public enum NotFoundCopy {
    /// The screen title.
    public static let title = "Oops!"
    /// The message (NOTFOUND-01).
    public static let message = "This screen doesn't exist."
    /// The link back to Home.
    public static let goHomeLink = "Go to home screen!"
}
