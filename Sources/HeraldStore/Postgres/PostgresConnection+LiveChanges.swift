import FoundationEssentials

/// The writer's side of live updates across processes: the NOTIFY that tells the other
/// processes' listeners of a committed change.
extension PostgresConnection {
    /// The channel every process LISTENs on. Channels are database-wide, so each payload
    /// starts with the schema it was written in, and a listener keeps only its own schema's.
    static let liveChangeChannel = "herald_events"

    /// `pg_notify` is transactional: the listeners hear it at commit, in commit order.
    package func announce(_ change: LiveChange) throws(StoreError) {
        pendingChanges.announce(change, to: feed)
        for message in LiveChangeMessage.encode(change) {
            try execute(
                "SELECT pg_notify(\(Self.liveChangeChannel), current_schema() || ' ' || \(message))")
        }
    }
}
