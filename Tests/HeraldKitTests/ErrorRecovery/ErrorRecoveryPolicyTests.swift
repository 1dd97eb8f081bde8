import HeraldKit
import HeraldKitTestSupport
import Testing

@Suite("App Error: recovery and restart")
@MainActor struct ErrorRecoveryPolicyTests {
    @Test("ERROR-01 an uncaught render error shows App Error; Try Again clears it")
    func appError() async {
        let errors = ErrorRecoveryPolicy(shell: .failing)
        await errors.errorCaught(.render, isDeviceOnline: true)
        #expect(errors.screen?.kind == .appError)
        #expect(errors.screen?.title == "App Error")
        #expect(errors.screen?.message == "Something went wrong, but we can try to recover.")
        #expect(errors.screen?.primaryButton == ButtonState(title: "Try Again"))
        #expect(errors.screen?.secondaryButton == ButtonState(title: "Restart App"))
        errors.tryAgainTapped()
        #expect(errors.screen == nil)
    }

    @Test("ERROR-02 offline: No internet connection detected with Retry Connection, which clears it")
    func offline() async {
        let errors = ErrorRecoveryPolicy(shell: .failing)
        await errors.errorCaught(.render, isDeviceOnline: false)
        #expect(errors.screen?.kind == .offline)
        #expect(errors.screen?.title == "No internet connection detected")
        #expect(errors.screen?.message == "Please check your internet connection and try again.")
        #expect(errors.screen?.primaryButton == ButtonState(title: "Retry Connection"))
        errors.retryConnectionTapped()
        #expect(errors.screen == nil)
    }

    @Test(
        "ERROR-03 the third critical error (chunk load, network failed) shows Critical App Error; render errors do not count"
    )
    func criticalAfterThree() async {
        let errors = ErrorRecoveryPolicy(shell: .failing)
        await errors.errorCaught(.chunkLoad, isDeviceOnline: true)
        errors.tryAgainTapped()
        await errors.errorCaught(.render, isDeviceOnline: true)
        errors.tryAgainTapped()
        await errors.errorCaught(.networkFailed, isDeviceOnline: false)
        #expect(errors.screen?.kind == .offline)
        #expect(errors.criticalErrorCount == 2)
        errors.retryConnectionTapped()
        await errors.errorCaught(.chunkLoad, isDeviceOnline: false)
        #expect(errors.screen?.kind == .critical)
        #expect(errors.screen?.title == "Critical App Error")
        #expect(errors.screen?.primaryButton == ButtonState(title: "Restart App"))
        #expect(errors.screen?.secondaryButton == ButtonState(title: "Try Again"))
        errors.tryAgainTapped()
        await errors.errorCaught(.render, isDeviceOnline: true)
        #expect(errors.screen?.kind == .critical)
    }

    @Test("ERROR-04 Restart App signs out, then reloads the app, and the count starts again")
    func restartSignsOut() async {
        let shell = RecordingAppShell()
        let errors = ErrorRecoveryPolicy(shell: shell.client)
        for _ in 0..<3 { await errors.errorCaught(.networkFailed, isDeviceOnline: true) }
        await errors.restartTapped()
        #expect(shell.steps == [.signOut, .reloadApp])
        #expect(errors.screen == nil)
        #expect(errors.criticalErrorCount == 0)
        await errors.errorCaught(.chunkLoad, isDeviceOnline: true)
        #expect(errors.screen?.kind == .appError)
    }

    @Test("ERROR-04 automatic critical recovery: a critical error after Critical App Error signs out and reloads")
    func automaticRecovery() async {
        let shell = RecordingAppShell()
        let errors = ErrorRecoveryPolicy(shell: shell.client)
        for _ in 0..<3 { await errors.errorCaught(.chunkLoad, isDeviceOnline: true) }
        #expect(shell.steps.isEmpty)
        await errors.errorCaught(.networkFailed, isDeviceOnline: true)
        #expect(shell.steps == [.signOut, .reloadApp])
        #expect(errors.screen == nil)
    }
}
