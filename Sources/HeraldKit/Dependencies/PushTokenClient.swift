import HeraldModel

/// A device push token and the service that issued it.
public struct PushToken: Sendable, Equatable {
    public var value: String
    public var provider: PushProvider
    public var environment: PushEnvironment

    public init(value: String, provider: PushProvider, environment: PushEnvironment = .production) {
        self.value = value
        self.provider = provider
        self.environment = environment
    }
}

/// Asks the OS (or Expo) for this device's push token.
public struct PushTokenClient: Sendable {
    /// The token; throws when the OS cannot issue one.
    public var token: @MainActor @Sendable () async throws -> PushToken

    public init(token: @escaping @MainActor @Sendable () async throws -> PushToken) {
        self.token = token
    }
}
