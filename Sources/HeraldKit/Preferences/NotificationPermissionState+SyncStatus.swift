import HeraldModel

extension NotificationPermissionState {
    /// The status `POST /v1/me/permission/sync` takes: granted (authorized, provisional or
    /// ephemeral), undetermined (never asked), or denied.
    var syncStatus: PermissionStatus {
        if isGranted { return .granted }
        return authorization == .notDetermined ? .undetermined : .denied
    }
}
