import HeraldKit
import Testing

/// The OS push-token service, scripted by a test. A token request while ``token`` is `nil`
/// fails the test.
@MainActor public final class FakePushTokens {
    /// The token the OS hands out; change it to model a rotation.
    public var token: PushToken?
    /// When set, the request throws it.
    public var error: (any Error)?
    public private(set) var requests = 0

    public init(_ token: PushToken? = nil) {
        self.token = token
    }

    public var client: PushTokenClient {
        PushTokenClient(token: { [self] in
            requests += 1
            if let error { throw error }
            guard let token else {
                unexpectedCall("PushTokenClient.token (no token scripted)")
                throw UnexpectedCallError(name: "PushTokenClient.token")
            }
            return token
        })
    }
}
