import CNGHTTP2
import COpenSSL
import HeraldCrypto

#if canImport(Glibc)
    import Glibc
#endif

/// The C library a native call belongs to.
package enum NativeLibrary: Sendable {
    case nghttp2, openSSL, system
}

/// A failed native call: which function, the library's code and its text for it.
package struct NativeFailure: Error, Sendable {
    package let library: NativeLibrary
    package let function: StaticString
    /// An nghttp2 error (negative), an OpenSSL error or an `errno`.
    package let code: Int
    /// The library's text for `code` ("" when OpenSSL queued none).
    package let reason: String

    /// "`function` failed", with the library's text when there is one.
    package var message: String { reason.isEmpty ? "\(function) failed" : "\(function) failed: \(reason)" }

    /// The failure of an nghttp2 call that answered `code`.
    package static func nghttp2(_ code: Int32, _ function: StaticString) -> NativeFailure {
        NativeFailure(
            library: .nghttp2, function: function, code: Int(code), reason: String(cString: nghttp2_strerror(code)))
    }

    /// The failure of an OpenSSL call, with OpenSSL's first queued error; the thread's queue is
    /// emptied, as other connections on the loop share it.
    package static func openSSL(_ function: StaticString) -> NativeFailure {
        let (code, text) = OpenSSLErrorQueue.takeFirst()
        return NativeFailure(library: .openSSL, function: function, code: Int(code), reason: text)
    }

    /// The failure of a system call that set `errno` to `code`.
    package static func system(_ code: Int32, _ function: StaticString) -> NativeFailure {
        NativeFailure(library: .system, function: function, code: Int(code), reason: String(cString: strerror(code)))
    }
}

/// An error type that a failed native call becomes: the client's and the server's public errors.
package protocol NativeCallError: Error {
    init(_ failure: NativeFailure)
}

/// The one place return codes of libnghttp2, OpenSSL and the system are checked, for either
/// side's error type.
package enum NativeCall<Failure: NativeCallError> {
    /// Throws unless `result` is 0 or more (nghttp2 errors are negative).
    @discardableResult
    package static func nghttp2<Result: BinaryInteger>(_ result: Result, _ function: StaticString) throws(Failure)
        -> Result
    {
        guard result >= 0 else { throw Failure(.nghttp2(Int32(result), function)) }
        return result
    }

    /// Throws unless `result` is 1, OpenSSL's success.
    package static func openSSL(_ result: Int32, _ function: StaticString) throws(Failure) {
        guard result == 1 else { throw Failure(.openSSL(function)) }
    }

    /// Throws when OpenSSL answered NULL.
    package static func openSSLObject<Handle>(_ handle: Handle?, _ function: StaticString) throws(Failure) -> Handle {
        guard let handle else { throw Failure(.openSSL(function)) }
        return handle
    }

    /// Throws with `errno` when a system call answered -1.
    @discardableResult
    package static func system(_ result: Int32, _ function: StaticString) throws(Failure) -> Int32 {
        guard result >= 0 else { throw Failure(.system(errno, function)) }
        return result
    }
}
