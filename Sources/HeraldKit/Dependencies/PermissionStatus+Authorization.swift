import HeraldModel

extension PermissionStatus {
    /// The status the start-up sync reports for an OS authorization: authorized, provisional
    /// and ephemeral are granted; denied is denied; not determined is undetermined.
    public init(_ authorization: NotificationAuthorization) {
        switch authorization {
        case .authorized, .provisional, .ephemeral: self = .granted
        case .denied: self = .denied
        case .notDetermined: self = .undetermined
        }
    }
}
