import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One piece of an HTTP exchange whose body arrives over time.
enum EventStreamPart: Sendable, Equatable {
    /// The response head arrived.
    case head(status: Int)
    /// Body bytes, as they arrived.
    case body(Data)
}

/// Opens one HTTP exchange and hands over its parts as they arrive; the sequence ends when the
/// server closes, throws on a transport error, and ending its iteration cancels the request.
/// The live one is URLSession; tests script one.
struct EventStreamTransport: Sendable {
    var open: @Sendable (URLRequest) -> AsyncThrowingStream<EventStreamPart, any Error>

    /// A URLSession data task whose delegate passes on the bytes as they arrive (Linux's
    /// FoundationNetworking has no `bytes(for:)`). One session per connection: a session keeps
    /// its delegate until it is invalidated, which happens when the exchange ends.
    static let urlSession = EventStreamTransport { request in
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: EventStreamPart.self)
        let configuration = URLSessionConfiguration.ephemeral
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        configuration.timeoutIntervalForRequest = request.timeoutInterval
        configuration.timeoutIntervalForResource = 7 * 24 * 3600
        let session = URLSession(
            configuration: configuration, delegate: EventStreamDelegate(continuation), delegateQueue: nil)
        let task = session.dataTask(with: request)
        continuation.onTermination = { _ in
            task.cancel()
            session.invalidateAndCancel()
        }
        task.resume()
        return stream
    }
}

/// Forwards a data task's response, bytes and end into the stream.
private final class EventStreamDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private let continuation: AsyncThrowingStream<EventStreamPart, any Error>.Continuation

    init(_ continuation: AsyncThrowingStream<EventStreamPart, any Error>.Continuation) {
        self.continuation = continuation
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        continuation.yield(.head(status: (response as? HTTPURLResponse)?.statusCode ?? 0))
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        continuation.yield(.body(data))
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        if let error {
            continuation.finish(throwing: error)
        } else {
            continuation.finish()
        }
        session.finishTasksAndInvalidate()
    }
}
