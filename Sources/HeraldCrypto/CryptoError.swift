import COpenSSL

/// A failure of this module: a bad token, or OpenSSL refusing an operation.
/// Compare with the static members (`error == .expired`); the detail text does not count.
public struct CryptoError: Error, Equatable, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    enum Code: String, Sendable {
        case openSSL = "openssl_failure"
        case malformedToken = "malformed_token"
        case unsupportedAlgorithm = "unsupported_algorithm"
        case invalidSignature = "invalid_signature"
        case expired = "expired"
        case notYetValid = "not_yet_valid"
        case issuedInFuture = "issued_in_future"
        case missingClaim = "missing_claim"
        case invalidKey = "invalid_key"
    }

    let code: Code
    /// Safe to log: never holds key material or token contents beyond claim names.
    let detail: String

    init(_ code: Code, _ detail: String = "") {
        self.code = code
        self.detail = detail
    }

    /// OpenSSL reported an error.
    public static let openSSL = CryptoError(.openSSL)
    /// The token is not three base64url parts of JSON, or a claim has the wrong type.
    public static let malformedToken = CryptoError(.malformedToken)
    /// The header names an algorithm other than the expected one (including `none`).
    public static let unsupportedAlgorithm = CryptoError(.unsupportedAlgorithm)
    /// The signature does not match.
    public static let invalidSignature = CryptoError(.invalidSignature)
    /// `exp` has passed.
    public static let expired = CryptoError(.expired)
    /// `nbf` is still ahead.
    public static let notYetValid = CryptoError(.notYetValid)
    /// `iat` is in the future.
    public static let issuedInFuture = CryptoError(.issuedInFuture)
    /// A required claim (`sub`, `exp`) is absent.
    public static let missingClaim = CryptoError(.missingClaim)
    /// The key cannot be used (for example an empty secret, a PEM that does not parse, or a
    /// key of the wrong type for the algorithm).
    public static let invalidKey = CryptoError(.invalidKey)

    /// Stable snake_case identifier, e.g. `expired`.
    public var identifier: String { code.rawValue }

    public static func == (lhs: CryptoError, rhs: CryptoError) -> Bool { lhs.code == rhs.code }

    public var description: String {
        switch code {
        case .openSSL: "a cryptographic operation failed"
        case .malformedToken: "the token is malformed"
        case .unsupportedAlgorithm: "the token's algorithm is not accepted"
        case .invalidSignature: "the token's signature is invalid"
        case .expired: "the token has expired"
        case .notYetValid: "the token is not valid yet"
        case .issuedInFuture: "the token was issued in the future"
        case .missingClaim: "the token lacks a required claim"
        case .invalidKey: "the key cannot be used"
        }
    }

    public var debugDescription: String {
        detail.isEmpty ? "CryptoError(\(code.rawValue))" : "CryptoError(\(code.rawValue)): \(detail)"
    }
}

/// The one place OpenSSL return codes are checked.
enum OpenSSLCall {
    /// Throws ``CryptoError/openSSL`` unless `result` is 1, OpenSSL's success.
    static func check(_ result: Int32, _ function: StaticString) throws {
        guard result == 1 else { throw failure(function) }
    }

    /// Throws ``CryptoError/openSSL`` when `pointer` is NULL.
    static func check<Pointee>(_ pointer: UnsafeMutablePointer<Pointee>?, _ function: StaticString) throws
        -> UnsafeMutablePointer<Pointee>
    {
        guard let pointer else { throw failure(function) }
        return pointer
    }

    /// Throws ``CryptoError/openSSL`` when `pointer` (an opaque OpenSSL handle) is NULL.
    static func check(_ pointer: OpaquePointer?, _ function: StaticString) throws -> OpaquePointer {
        guard let pointer else { throw failure(function) }
        return pointer
    }

    /// Runs an operation that cannot fail short of a broken OpenSSL; a failure stops the process.
    static func mustSucceed<Result>(_ body: () throws -> Result) -> Result {
        do {
            return try body()
        } catch {
            preconditionFailure(String(reflecting: error))
        }
    }

    /// The error of `function`, with OpenSSL's first queued error; the queue is emptied.
    static func failure(_ function: StaticString) -> CryptoError {
        CryptoError(.openSSL, OpenSSLErrorQueue.failure(of: function).message)
    }
}
