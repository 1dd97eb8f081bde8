import FoundationEssentials

/// An APNs provider token (an ES256 JWT) and when it was issued, as the servers sharing one
/// database keep it: Apple refuses a new token of one key sooner than 20 minutes after the
/// last, so servers that each signed their own would refuse each other's sends.
public struct SharedProviderToken: Sendable, Equatable {
    public var token: String
    /// Whole seconds, as the token's `iat` claim.
    public var issuedAt: Date

    public init(token: String, issuedAt: Date) {
        self.token = token
        self.issuedAt = issuedAt
    }

    /// Reads the settings value `<issued at seconds> <token>`; nil when it is not that.
    init?(stored: String) {
        let parts = stored.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, let seconds = Int64(parts[0]), !parts[1].isEmpty else { return nil }
        self.init(token: String(parts[1]), issuedAt: Date(timeIntervalSince1970: Double(seconds)))
    }
}
