import Observation

/// The app's error boundary (ERROR-01..ERROR-04): an uncaught error shows App Error, or its
/// offline variant with Retry Connection when the device is offline. The third critical error
/// (a chunk that failed to load, a failed network request) in one run shows Critical App Error,
/// which recommends a restart; a critical error after that restarts by itself. Restarting signs
/// the person out, then reloads the app.
@MainActor @Observable public final class ErrorRecoveryPolicy {
    /// Critical errors in one run before Critical App Error (ERROR-03).
    public static let criticalErrorLimit = 3

    /// The crash screen while it shows.
    public private(set) var screen: AppErrorScreen?
    /// Critical errors caught since the app (re)loaded.
    public private(set) var criticalErrorCount = 0
    /// A restart is under way; the buttons do nothing meanwhile.
    public private(set) var isRestarting = false

    @ObservationIgnored private let shell: AppShellClient

    public init(shell: AppShellClient) {
        self.shell = shell
    }

    /// The boundary caught `fault`; `isDeviceOnline` is the device's connectivity now.
    public func errorCaught(_ fault: AppFault, isDeviceOnline: Bool) async {
        guard !isRestarting else { return }
        if fault.isCritical {
            criticalErrorCount += 1
            if criticalErrorCount > Self.criticalErrorLimit {
                await restart()
                return
            }
        }
        let kind: AppErrorScreen.Kind =
            if criticalErrorCount >= Self.criticalErrorLimit {
                .critical
            } else if !isDeviceOnline {
                .offline
            } else {
                .appError
            }
        screen = AppErrorScreen(kind: kind)
    }

    /// Try Again: the error clears and the screens render again (ERROR-01).
    public func tryAgainTapped() {
        guard !isRestarting else { return }
        screen = nil
    }

    /// Retry Connection: the error clears (ERROR-02).
    public func retryConnectionTapped() {
        guard !isRestarting else { return }
        screen = nil
    }

    /// Restart App: signs out, then reloads (ERROR-04).
    public func restartTapped() async {
        guard !isRestarting else { return }
        await restart()
    }

    private func restart() async {
        isRestarting = true
        await shell.signOut()
        shell.reloadApp()
        screen = nil
        criticalErrorCount = 0
        isRestarting = false
    }
}
