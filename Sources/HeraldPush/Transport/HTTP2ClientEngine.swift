/// What `HTTP2Client` delegates to: one implementation per ``HTTP2Engine``.
protocol HTTP2ClientEngine: Sendable {
    /// Sends `request` and answers the server's response (see `HTTP2Client.send`).
    func send(_ request: HTTP2Request) async throws -> HTTP2Response
    /// Connections opened so far.
    var connectionsOpened: Int { get }
    /// C handles of the engine still allocated.
    var liveHandles: Int { get }
    /// Fails everything in flight with `.closed` and waits until every handle is freed.
    func shutdown() async
    /// Asks the engine's thread to stop without waiting (the client went away).
    func close()
}
