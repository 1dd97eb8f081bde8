import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Answers libmicrohttpd gives by itself (a malformed request line, an unsupported version, a
/// head over the memory limit, a bad `Content-Length` or chunk), as its log reports them.
///
/// The library reports such an answer only in a log line ("HTTP response code is 400"), on the
/// thread that serves the connection, before the connection's request ends or closes on that
/// same thread. So statuses are kept per thread until the connection they belong to ends: a
/// request whose line was read takes its status when it completes; a connection closed before
/// a request line was read takes one when it closes. Either way each answer is reported once.
final class LibraryAnswers: Sendable {
    /// At most this many statuses wait per thread (a connection that never closes cannot grow it).
    static let limit = 64

    private let pending = Mutex<[UInt: [Int]]>([:])

    /// The status in a library log message, if it reports an answer.
    static func status(inMessage message: String) -> Int? {
        guard let range = message.firstRange(of: "HTTP response code is ") else { return nil }
        let digits = message[range.upperBound...].prefix { $0.isASCII && $0.isNumber }
        guard digits.count == 3, let status = Int(digits) else { return nil }
        return status
    }

    /// The library logged an answer on this thread.
    func logged(_ status: Int) {
        pending.withLock { pending in
            var statuses = pending[Self.thread, default: []]
            if statuses.count >= Self.limit { statuses.removeFirst() }
            statuses.append(status)
            pending[Self.thread] = statuses
        }
    }

    /// Takes the oldest answer logged on this thread and not yet reported, if any.
    func take() -> Int? {
        pending.withLock { pending in
            guard var statuses = pending[Self.thread], !statuses.isEmpty else { return nil }
            let status = statuses.removeFirst()
            pending[Self.thread] = statuses.isEmpty ? nil : statuses
            return status
        }
    }

    /// Takes the answer with `status` logged on this thread, if one waits. (Should a connection
    /// on the same thread close without a request line between this answer's log line and its
    /// request's end, that close takes the status instead, and the answer is counted twice: the
    /// window is one pass of the library's loop.)
    func take(_ status: Int) {
        pending.withLock { pending in
            guard var statuses = pending[Self.thread], let index = statuses.firstIndex(of: status) else { return }
            statuses.remove(at: index)
            pending[Self.thread] = statuses.isEmpty ? nil : statuses
        }
    }

    private static var thread: UInt { UInt(pthread_self()) }
}
