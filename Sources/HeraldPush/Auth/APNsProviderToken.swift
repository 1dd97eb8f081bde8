import Foundation
import HeraldCrypto
import Synchronization

/// The APNs provider authentication token (an ES256 JWT from a `.p8` key), minted once and
/// reused for every request until it is ``refreshAge`` old.
///
/// Apple refuses tokens older than an hour (`ExpiredProviderToken`) and a new token sooner
/// than 20 minutes after the last (`TooManyProviderTokenUpdates`), so a token is never
/// minted per request.
public final class APNsProviderToken: Sendable {
    /// Why APNs refused a token, as its `reason` says.
    public enum Rejection: Sendable, Equatable {
        /// `ExpiredProviderToken`: honoured only once the token is ``minimumAge`` old.
        case expired
        /// `InvalidProviderToken`: the token is dropped at once.
        case invalid
    }

    /// Apple's floor between two tokens.
    public static let minimumAge: TimeInterval = 20 * 60
    /// The age at which a new token is minted.
    public static let refreshAge: TimeInterval = 50 * 60
    /// Apple's ceiling on a token's age: older tokens get `ExpiredProviderToken`.
    public static let maximumAge: TimeInterval = 60 * 60

    private struct Minted {
        var token: String
        var issuedAt: Date
    }

    private let key: SigningKey
    private let keyID: String
    private let teamID: String
    private let clock: @Sendable () -> Date
    private let minted = Mutex<Minted?>(nil)

    /// A token source for the `.p8` `key` with id `keyID` of team `teamID`; `clock` tells the
    /// time (tests inject their own). Throws ``CryptoError/invalidKey`` unless `key` is a
    /// private P-256 key.
    public init(key: SigningKey, keyID: String, teamID: String, clock: @escaping @Sendable () -> Date = Date.init)
        throws
    {
        guard key.kind == .p256, key.isPrivate else {
            throw CryptoError.invalidKey
        }
        precondition(!keyID.isEmpty && !teamID.isEmpty, "APNs key id and team id must not be empty")
        self.key = key
        self.keyID = keyID
        self.teamID = teamID
        self.clock = clock
    }

    /// The token for the `authorization: bearer` header: the current one while it is younger
    /// than ``refreshAge``, otherwise a new one.
    public func current() throws -> String {
        try minted.withLock { minted in
            let now = clock()
            if let existing = minted, now.timeIntervalSince(existing.issuedAt) < Self.refreshAge {
                return existing.token
            }
            let issuedAt = Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down))
            let token = try JWT.sign(
                header: ["kid": keyID],
                claims: APNsProviderClaims(iss: teamID, iat: Int64(issuedAt.timeIntervalSince1970)), key: key)
            minted = Minted(token: token, issuedAt: issuedAt)
            return token
        }
    }

    /// Reports that APNs refused `token`, so that the next ``current()`` mints a new one when
    /// allowed: at once for ``Rejection/invalid``, and for ``Rejection/expired`` only once the
    /// token is ``minimumAge`` old. A token other than the current one (a late answer to an
    /// older request) changes nothing. Answers whether the token was dropped.
    @discardableResult
    public func rejected(_ token: String, _ reason: Rejection) -> Bool {
        minted.withLock { minted in
            guard let existing = minted, existing.token == token else { return false }
            if reason == .expired, clock().timeIntervalSince(existing.issuedAt) < Self.minimumAge { return false }
            minted = nil
            return true
        }
    }
}
