import Foundation

extension HeraldClient {
    /// Where the server is, who is asking, and how long to wait.
    public struct Configuration: Sendable {
        /// The server's base URL, e.g. `https://herald.example.com` (a path prefix is kept).
        public var baseURL: URL
        /// The current user token; `nil` for a guest. Asked before every request and every
        /// stream connection, so a refreshed token is picked up without a new client.
        public var token: @Sendable () async -> String?
        /// How long one request may wait for the server (whole seconds on Linux, at least 1).
        public var requestTimeout: Duration
        /// How long the live stream may stay silent before it counts as dropped and reconnects.
        /// The server sends a heartbeat every 15 s.
        public var streamIdleTimeout: Duration
        /// How the live stream waits between connection attempts.
        public var reconnect: ReconnectPolicy

        public init(
            baseURL: URL, requestTimeout: Duration = .seconds(15), streamIdleTimeout: Duration = .seconds(45),
            reconnect: ReconnectPolicy = ReconnectPolicy(), token: @escaping @Sendable () async -> String?
        ) {
            self.baseURL = baseURL
            self.token = token
            self.requestTimeout = requestTimeout
            self.streamIdleTimeout = streamIdleTimeout
            self.reconnect = reconnect
        }
    }
}

extension Duration {
    /// The duration as a `URLRequest.timeoutInterval`. FoundationNetworking (Linux, Android)
    /// counts whole seconds and treats 0 as "fail at once", so it is rounded up to at least 1 s.
    var timeoutInterval: TimeInterval {
        let (seconds, attoseconds) = components
        let interval = TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
        #if canImport(FoundationNetworking)
            return max(1, interval.rounded(.up))
        #else
            return interval
        #endif
    }
}
