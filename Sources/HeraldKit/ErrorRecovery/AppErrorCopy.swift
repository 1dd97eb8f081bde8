/// The words of the App Error screen. From `spec/app-shell-screen-map.txt`: the titles (the
/// states' names), the App Error body and the three buttons. Written for HeraldKit: the
/// offline and critical bodies.
public enum AppErrorCopy {
    /// ERROR-01.
    public static let appErrorTitle = "App Error"
    public static let appErrorMessage = "Something went wrong, but we can try to recover."
    /// ERROR-02.
    public static let offlineTitle = "No internet connection detected"
    public static let offlineMessage = "Please check your internet connection and try again."
    /// ERROR-03.
    public static let criticalTitle = "Critical App Error"
    public static let criticalMessage = "The app keeps running into problems. Restarting the app is recommended."
    /// Clears the error (ERROR-01, ERROR-03).
    public static let tryAgainButton = "Try Again"
    /// Clears the error once the device is back online (ERROR-02).
    public static let retryConnectionButton = "Retry Connection"
    /// Signs out and reloads (ERROR-04).
    public static let restartButton = "Restart App"
}
