import HeraldHTTP2
import HeraldThreads

/// The nghttp2 engine of `HTTP2Client`: libnghttp2 client sessions and OpenSSL over
/// non-blocking sockets, driven by one epoll thread of its own (``ClientLoop``).
final class NGHTTP2Engine: Sendable {
    private let configuration: HTTP2ClientConfiguration
    private let mailbox: RequestMailbox

    /// Starts the engine's thread.
    init(configuration: HTTP2ClientConfiguration) throws(HTTP2ClientError) {
        let handles = HandleCounter()
        let context = try TLSContext(
            clientTrusting: configuration.caFile, counter: handles, throwing: HTTP2ClientError.self)
        let mailbox = try RequestMailbox(context: context, handles: handles)
        self.configuration = configuration
        self.mailbox = mailbox
        LoopThread.detach(
            LoopThread.start(name: "herald-h2c") { ClientLoop.run(configuration: configuration, mailbox: mailbox) })
    }

    func close() {
        mailbox.close()
    }

    func send(_ request: HTTP2Request) async throws -> HTTP2Response {
        let pending = try PendingRequest(request, configuration: configuration)
        let received = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<ReceivedResponse, any Error>) in
                // Resumed here only while the loop has not seen the request.
                if Task.isCancelled {
                    continuation.resume(throwing: CancellationError())
                    return
                }
                pending.continuation = continuation
                if !mailbox.queue(pending) {
                    pending.continuation = nil
                    continuation.resume(throwing: HTTP2ClientError.shutDown)
                }
            }
        } onCancel: {
            mailbox.cancel(pending)
        }
        return received.parsed
    }

    var connectionsOpened: Int { mailbox.connectionsOpened.load(ordering: .relaxed) }

    /// The TLS context while running, plus an `SSL` object and a session per open connection.
    var liveHandles: Int { mailbox.handles.live }

    func shutdown() async {
        await mailbox.closeAndWait()
    }
}
