import CNGHTTP2
import COpenSSL
import HeraldCrypto

#if canImport(Glibc)
    import Glibc
#endif

/// The one place the nghttp2 engine checks return codes of libnghttp2, OpenSSL and the system:
/// a failure becomes an `HTTP2ClientError` naming the call, the library's code and its text.
enum NativeCall {
    /// Throws unless `result` is 0 or more (nghttp2 errors are negative).
    @discardableResult
    static func nghttp2<Result: BinaryInteger>(_ result: Result, _ function: StaticString) throws(HTTP2ClientError)
        -> Result
    {
        guard result >= 0 else { throw nghttp2Error(Int32(result), function) }
        return result
    }

    /// The error of an nghttp2 call that answered `code`.
    static func nghttp2Error(_ code: Int32, _ function: StaticString, kind: HTTP2ClientError.Kind = .other)
        -> HTTP2ClientError
    {
        HTTP2ClientError(
            kind: kind, code: Int(code), library: "nghttp2",
            message: "\(function) failed: nghttp2 error \(code) (\(String(cString: nghttp2_strerror(code))))")
    }

    /// Throws unless `result` is 1, OpenSSL's success.
    static func openSSL(_ result: Int32, _ function: StaticString) throws(HTTP2ClientError) {
        guard result == 1 else { throw openSSLError(function) }
    }

    /// Throws when OpenSSL answered NULL.
    static func openSSLObject<Handle>(_ handle: Handle?, _ function: StaticString) throws(HTTP2ClientError) -> Handle {
        guard let handle else { throw openSSLError(function) }
        return handle
    }

    /// The error of `function` with OpenSSL's first queued error; the thread's queue is emptied,
    /// as other connections on the loop share it.
    static func openSSLError(_ function: StaticString, kind: HTTP2ClientError.Kind = .other) -> HTTP2ClientError {
        let (code, message) = OpenSSLErrorQueue.failure(of: function)
        return HTTP2ClientError(kind: kind, code: Int(code), library: "OpenSSL", message: message)
    }

    /// Throws with `errno` when a system call answered -1.
    @discardableResult
    static func system(_ result: Int32, _ function: StaticString) throws(HTTP2ClientError) -> Int32 {
        guard result >= 0 else { throw systemError(errno, "\(function) failed") }
        return result
    }

    /// The error `code` (an `errno`) with `context` before the system's text.
    static func systemError(_ code: Int32, _ context: String, kind: HTTP2ClientError.Kind = .other)
        -> HTTP2ClientError
    {
        HTTP2ClientError(
            kind: kind, code: Int(code), library: "system", message: "\(context): \(String(cString: strerror(code)))")
    }
}
