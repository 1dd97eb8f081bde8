extension NotificationPermissionState {
    /// What an OS dialog that left this state decided: `true` granted, `false` denied, `nil`
    /// when it closed without a choice (the permission is still undetermined).
    var decision: Bool? { authorization == .notDetermined ? nil : isGranted }
}

extension HeraldDependencies {
    /// Confirms what the OS dialog's `answer` decided, logging `notification_permission_granted`
    /// or `notification_permission_denied` (EVENT-06, EVENT-07), and answers it
    /// (``NotificationPermissionState/decision``). Every path that shows the OS dialog (the
    /// soft-ask modal, the consent sheet, the preferences master switch, the ask at sign-in)
    /// reports its answer here once; a dialog closed without a choice logs nothing.
    @MainActor func confirmPermissionDecision(_ answer: NotificationPermissionState) -> Bool? {
        guard let granted = answer.decision else { return nil }
        analytics.log(granted ? ConsentEvent.permissionGranted : ConsentEvent.permissionDenied)
        return granted
    }

    /// Confirms what the OS dialog decided (EVENT-06, EVENT-07) and tells the backend, so
    /// `osPermissionGranted` and the global switch follow it (STORE-03). A dialog that left the
    /// permission undetermined decided nothing. A failure is not shown: the OS stays the
    /// authority for showing pushes, and the start-up sync corrects a stale decision.
    @MainActor func recordPermissionDecision(_ answer: NotificationPermissionState) async {
        guard let granted = confirmPermissionDecision(answer) else { return }
        _ = try? await api.recordPermission(granted)
    }
}
