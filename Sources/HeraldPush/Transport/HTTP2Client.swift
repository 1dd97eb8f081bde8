import CCurl
import Foundation

/// An HTTP/2 client for push providers: many concurrent requests multiplexed as streams over a
/// few long-lived connections per host, driven by libcurl's multi interface on one thread of
/// its own.
///
/// Requests wait for an open connection to take them as a new stream rather than opening
/// another (up to `maxConnectionsPerHost`). A failure surfaces as an `HTTP2ClientError` of
/// the request it hit and never ends another request silently.
public final class HTTP2Client: Sendable {
    private let configuration: HTTP2ClientConfiguration
    private let mailbox: TransferMailbox

    /// libcurl's one-time global set-up, done before the first client.
    private static let globalSetup = curl_global_init(Int(CURL_GLOBAL_DEFAULT))

    /// Starts the client's thread.
    public init(configuration: HTTP2ClientConfiguration = HTTP2ClientConfiguration()) throws(HTTP2ClientError) {
        try curlCheck(Self.globalSetup)
        let handles = HandleCounter()
        let multi = try CurlMulti(counter: handles)
        try multi.set(CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
        try multi.set(CURLMOPT_MAX_HOST_CONNECTIONS, configuration.maxConnectionsPerHost)
        try multi.set(CURLMOPT_MAX_CONCURRENT_STREAMS, configuration.maxConcurrentStreams)
        self.configuration = configuration
        let mailbox = TransferMailbox(
            multi: multi, handles: handles,
            pool: EasyHandlePool(limit: configuration.maxConcurrentStreams, counter: handles))
        self.mailbox = mailbox
        Thread.detachNewThread { TransferLoop.run(mailbox) }
    }

    deinit {
        mailbox.close()
    }

    /// Sends `request` and answers the server's response, whatever its status.
    ///
    /// Throws `HTTP2ClientError` when no response arrived (see `Kind`), or `CancellationError`
    /// when the task is cancelled first (the stream is then abandoned).
    public func send(_ request: HTTP2Request) async throws -> HTTP2Response {
        let transfer = try Transfer(request, configuration: configuration, pool: mailbox.pool)
        let received = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                transfer.continuation = continuation
                // A task cancelled before this point never reaches the loop.
                if Task.isCancelled {
                    transfer.resume(.failure(CancellationError()))
                } else if !mailbox.queue(transfer) {
                    transfer.resume(
                        .failure(HTTP2ClientError(kind: .closed, code: 0, message: "the HTTP/2 client was shut down")))
                }
            }
        } onCancel: {
            mailbox.cancel(transfer.id)
        }
        return received.parsed
    }

    /// Connections opened so far by finished requests; fewer than requests means multiplexing.
    public var connectionsOpened: Int { mailbox.connectionsOpened.load(ordering: .relaxed) }

    /// libcurl handles of this client in use (a debug counter for leak tests): the multi handle
    /// while running, plus one per request not yet finished. Easy handles kept for reuse do not
    /// count; shutdown frees them too.
    public var liveHandles: Int { mailbox.handles.live - mailbox.pool.idleCount }

    /// Fails every request in flight with `.closed` and waits until every handle is freed.
    public func shutdown() async {
        await mailbox.closeAndWait()
    }
}
