import CCurl
import Foundation
import HeraldHTTP2

/// The libcurl engine of `HTTP2Client`: libcurl's multi interface on one thread of its own, with
/// `CURLOPT_PIPEWAIT` so requests wait for an open connection to take them as a new stream
/// rather than opening another (up to `maxConnectionsPerHost`).
final class CurlEngine: HTTP2ClientEngine {
    private let configuration: HTTP2ClientConfiguration
    private let mailbox: TransferMailbox

    /// libcurl's one-time global set-up, done before the first client.
    private static let globalSetup = curl_global_init(Int(CURL_GLOBAL_DEFAULT))

    /// Starts the engine's thread.
    init(configuration: HTTP2ClientConfiguration) throws(HTTP2ClientError) {
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

    func close() {
        mailbox.close()
    }

    func send(_ request: HTTP2Request) async throws -> HTTP2Response {
        let transfer = try Transfer(request, configuration: configuration, pool: mailbox.pool)
        let received = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                transfer.continuation = continuation
                // A task cancelled before this point never reaches the loop.
                if Task.isCancelled {
                    transfer.resume(.failure(CancellationError()))
                } else if !mailbox.queue(transfer) {
                    transfer.resume(.failure(HTTP2ClientError.shutDown))
                }
            }
        } onCancel: {
            mailbox.cancel(transfer.id)
        }
        return received.parsed
    }

    var connectionsOpened: Int { mailbox.connectionsOpened.load(ordering: .relaxed) }

    /// The multi handle while running, plus one per request not yet finished. Easy handles kept
    /// for reuse do not count; shutdown frees them too.
    var liveHandles: Int { mailbox.handles.live - mailbox.pool.idleCount }

    func shutdown() async {
        await mailbox.closeAndWait()
    }
}
