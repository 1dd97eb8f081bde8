extension HeraldDependencies {
    /// Tells the backend what the OS dialog decided, so `osPermissionGranted` and the global
    /// switch follow it (STORE-03). A dialog that left the permission undetermined decided
    /// nothing. A failure is not shown: the OS stays the authority for showing pushes, and the
    /// start-up sync corrects a stale decision.
    @MainActor func recordPermissionDecision(_ state: NotificationPermissionState) async {
        guard state.authorization != .notDetermined else { return }
        _ = try? await api.recordPermission(state.isGranted)
    }
}
