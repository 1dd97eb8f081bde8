import CMicroHTTPD

/// A failed libmicrohttpd call.
struct MHDError: Error, CustomStringConvertible {
    let operation: String
    var description: String { "libmicrohttpd: \(operation) failed" }
}

/// The one place libmicrohttpd results are checked.
enum MHD {
    static func check(_ result: MHD_Result, _ operation: @autoclosure () -> String) throws(MHDError) {
        guard result == .YES else { throw MHDError(operation: operation()) }
    }

    static func check<T>(_ value: T?, _ operation: @autoclosure () -> String) throws(MHDError) -> T {
        guard let value else { throw MHDError(operation: operation()) }
        return value
    }
}

/// A libmicrohttpd connection pointer that may cross threads.
struct ConnectionHandle: @unchecked Sendable, Hashable {
    // Safe: only MHD dereferences it; off its own thread it goes only to MHD_resume_connection, allowed from any thread.
    let pointer: OpaquePointer
}
