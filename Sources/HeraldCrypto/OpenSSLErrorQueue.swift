import COpenSSL

/// OpenSSL's per-thread queue of errors, read in one place for every module that calls OpenSSL.
public enum OpenSSLErrorQueue {
    /// The first queued error's code and text (0 and "" when the queue is empty), emptying the
    /// queue: a thread's next call (another connection on an event loop) starts clean.
    public static func takeFirst() -> (code: UInt, text: String) {
        let first = ERR_get_error()
        ERR_clear_error()
        guard first != 0 else { return (0, "") }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(first, &buffer, buffer.count)
        return (first, String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }

    /// "`function` failed", with the first queued error's text when there is one; the queue is
    /// emptied.
    public static func failure(of function: StaticString) -> (code: UInt, message: String) {
        let (code, text) = takeFirst()
        return (code, text.isEmpty ? "\(function) failed" : "\(function) failed: \(text)")
    }
}
