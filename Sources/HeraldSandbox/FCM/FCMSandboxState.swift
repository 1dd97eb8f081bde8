/// What the FCM look-alike remembers: accepted messages, faults by registration token, answers
/// by status. Kept behind the sandbox's one `Mutex`.
struct FCMSandboxState {
    var accepted: RecentLog<FCMAcceptedMessage>
    var faults = FaultTable<FCMFault>()
    var statusCounts: [Int: Int] = [:]

    init(acceptedLimit: Int) {
        accepted = RecentLog(limit: acceptedLimit)
    }

    /// Takes back `message`, recorded and counted as a 200 but never answered.
    mutating func forget(_ message: FCMAcceptedMessage) {
        accepted.removeLast(message)
        statusCounts.takeBack(200)
    }
}
