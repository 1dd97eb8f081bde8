import HeraldHTTP2

extension HTTP2ClientError: NativeCallError {
    /// The error of a failed libnghttp2, OpenSSL or system call.
    package init(_ failure: NativeFailure) {
        self.init(failure, kind: .other)
    }

    /// The error of a failed native call, as a failure of class `kind`.
    init(_ failure: NativeFailure, kind: Kind) {
        switch failure.library {
        case .nghttp2:
            self.init(
                kind: kind, code: failure.code, library: "nghttp2",
                message: "\(failure.function) failed: nghttp2 error \(failure.code) (\(failure.reason))")
        case .openSSL: self.init(kind: kind, code: failure.code, library: "OpenSSL", message: failure.message)
        case .system: self.init(kind: kind, code: failure.code, library: "system", message: failure.message)
        }
    }

}
