/// What the APNs look-alike remembers: accepted notifications, faults by device token, answers by
/// status. Kept behind the sandbox's one `Mutex`.
struct APNsSandboxState {
    var accepted: RecentLog<APNsNotification>
    var faults = FaultTable<APNsFault>()
    var statusCounts: [Int: Int] = [:]

    init(acceptedLimit: Int) {
        accepted = RecentLog(limit: acceptedLimit)
    }

    /// Takes back `notification`, recorded and counted as a 200 but never answered (the latest
    /// such record).
    mutating func forget(_ notification: APNsNotification) {
        accepted.removeLast(notification)
        statusCounts.takeBack(200)
    }
}
