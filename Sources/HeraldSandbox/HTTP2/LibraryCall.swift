import CNGHTTP2
import COpenSSL
import HeraldCrypto

#if canImport(Glibc)
    import Glibc
#endif

/// The one place return codes of libnghttp2, OpenSSL and the system are checked.
enum LibraryCall {
    /// Throws unless `result` is 0 or more (nghttp2 errors are negative).
    @discardableResult
    static func nghttp2<Result: BinaryInteger>(_ result: Result, _ function: StaticString) throws(HTTP2ServerError)
        -> Result
    {
        guard result >= 0 else {
            let reason = String(cString: nghttp2_strerror(Int32(result)))
            throw HTTP2ServerError(.nghttp2, "\(function) failed: \(reason)", libraryCode: Int(result))
        }
        return result
    }

    /// Throws unless `result` is 1, OpenSSL's success.
    static func openSSL(_ result: Int32, _ function: StaticString) throws(HTTP2ServerError) {
        guard result == 1 else { throw openSSLFailure(function) }
    }

    /// Throws when OpenSSL answered NULL.
    static func openSSLObject<Handle>(_ handle: Handle?, _ function: StaticString) throws(HTTP2ServerError) -> Handle {
        guard let handle else { throw openSSLFailure(function) }
        return handle
    }

    /// Throws with `errno` when a system call answered -1.
    @discardableResult
    static func system(_ result: Int32, _ function: StaticString) throws(HTTP2ServerError) -> Int32 {
        guard result >= 0 else {
            let code = errno
            throw HTTP2ServerError(
                .system, "\(function) failed: \(String(cString: strerror(code)))", libraryCode: Int(code))
        }
        return result
    }

    /// The error of `function` with OpenSSL's first queued error; the thread's queue is emptied.
    private static func openSSLFailure(_ function: StaticString) -> HTTP2ServerError {
        let (code, message) = OpenSSLErrorQueue.failure(of: function)
        return HTTP2ServerError(.openSSL, message, libraryCode: Int(code))
    }
}
