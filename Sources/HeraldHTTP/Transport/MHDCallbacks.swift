import CMicroHTTPD

#if canImport(Glibc)
    import Glibc
#endif

// The C callbacks handed to libmicrohttpd. They are plain global functions (no actor,
// no captured context); the daemon's closure argument is the `ServerCore`, kept alive by
// the `MHDDaemon` that owns the daemon.

/// Called after the headers, for each piece of the body, and once the request is complete
/// (and again after each resume until a response is queued).
func accessHandler(
    _ closure: UnsafeMutableRawPointer?,
    _ connection: OpaquePointer?,
    _ url: UnsafePointer<CChar>?,
    _ method: UnsafePointer<CChar>?,
    _ version: UnsafePointer<CChar>?,
    _ uploadData: UnsafePointer<CChar>?,
    _ uploadDataSize: UnsafeMutablePointer<Int>?,
    _ requestClosure: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
) -> MHD_Result {
    guard let closure, let connection, let uploadDataSize, let requestClosure else { return .NO }
    let core = Unmanaged<ServerCore>.fromOpaque(closure).takeUnretainedValue()

    guard let existing = requestClosure.pointee else {
        let request = core.makeRequest(
            connection: ConnectionHandle(pointer: connection),
            method: HTTPMethod(rawValue: method.map { String(cString: $0) } ?? "GET"),
            rawPath: url.map { String(cString: $0) } ?? "/",
            version: version.map { String(cString: $0) } ?? "HTTP/1.1"
        )
        requestClosure.pointee = Unmanaged.passRetained(request).toOpaque()
        return core.headersReceived(request)
    }
    let request = Unmanaged<ConnectionRequest>.fromOpaque(existing).takeUnretainedValue()
    let size = uploadDataSize.pointee
    if size > 0 {
        uploadDataSize.pointee = 0
        return core.bodyReceived(request, UnsafeRawBufferPointer(start: uploadData, count: size))
    }
    return core.requestReceived(request)
}

/// The request is over (sent, failed, timed out or the daemon stops): release its state.
func requestCompletedCallback(
    _ closure: UnsafeMutableRawPointer?,
    _ connection: OpaquePointer?,
    _ requestClosure: UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
    _ reason: MHD_RequestTerminationCode
) {
    guard let closure, let connection, let requestClosure else { return }
    let core = Unmanaged<ServerCore>.fromOpaque(closure).takeUnretainedValue()
    guard let state = requestClosure.pointee else {
        // Never handed to us: the library answered it itself (a bad header, a head too big).
        core.libraryAnswered(ConnectionHandle(pointer: connection))
        return
    }
    requestClosure.pointee = nil
    let request = Unmanaged<ConnectionRequest>.fromOpaque(state).takeRetainedValue()
    core.requestCompleted(request, reason: reason)
}

/// A request line was read (before its headers). Recorded on the connection, so that an answer
/// the library gives itself can be reported with its target; it also makes the library report
/// the end of every request whose line it read, handled by us or not.
func requestLineRead(
    _ closure: UnsafeMutableRawPointer?,
    _ target: UnsafePointer<CChar>?,
    _ connection: OpaquePointer?
) -> UnsafeMutableRawPointer? {
    guard let connection, let target, let context = herald_mhd_socket_context(connection) else { return nil }
    Unmanaged<PeerConnection>.fromOpaque(context).takeUnretainedValue().requestLineRead(target: String(cString: target))
    return nil
}

/// A connection was accepted or is about to be closed (its socket is closed after this returns).
/// The connection's `PeerConnection` is its socket context, retained in between.
func connectionNotified(
    _ closure: UnsafeMutableRawPointer?,
    _ connection: OpaquePointer?,
    _ socketContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
    _ code: MHD_ConnectionNotificationCode
) {
    guard let closure, let connection, let socketContext else { return }
    let core = Unmanaged<ServerCore>.fromOpaque(closure).takeUnretainedValue()
    switch code {
    case .CONNECTION_NOTIFY_STARTED:
        let peer = core.connectionStarted(ConnectionHandle(pointer: connection))
        socketContext.pointee = Unmanaged.passRetained(peer).toOpaque()
    case .CONNECTION_NOTIFY_CLOSED:
        guard let raw = socketContext.pointee else { return }
        socketContext.pointee = nil
        core.connectionClosed(Unmanaged<PeerConnection>.fromOpaque(raw).takeRetainedValue())
    @unknown default:
        return
    }
}

/// Accept policy: a new connection is served only while the library's connections and the open
/// event streams (which left it) stay within the connection limit.
func acceptPolicy(
    _ closure: UnsafeMutableRawPointer?,
    _ address: UnsafePointer<sockaddr>?,
    _ length: socklen_t
) -> MHD_Result {
    guard let closure else { return .NO }
    return Unmanaged<ServerCore>.fromOpaque(closure).takeUnretainedValue().admitsConnection() ? .YES : .NO
}

/// Leaves the URL and query arguments percent-encoded; Swift decodes them.
func identityUnescaper(
    _ closure: UnsafeMutableRawPointer?,
    _ connection: OpaquePointer?,
    _ text: UnsafeMutablePointer<CChar>?
) -> Int {
    guard let text else { return 0 }
    return strlen(text)
}

/// libmicrohttpd's own error messages, into our logger.
func libraryLogger(_ closure: UnsafeMutableRawPointer?, _ format: UnsafePointer<CChar>?, _ arguments: CVaListPointer?) {
    guard let closure, let format, let arguments else { return }
    let core = Unmanaged<ServerCore>.fromOpaque(closure).takeUnretainedValue()
    var buffer = [UInt8](repeating: 0, count: 512)
    let length = buffer.withUnsafeMutableBufferPointer { pointer in
        pointer.withMemoryRebound(to: CChar.self) { vsnprintf($0.baseAddress, $0.count, format, arguments) }
    }
    var message = String(decoding: buffer.prefix(min(max(0, Int(length)), buffer.count - 1)), as: UTF8.self)
    while message.last?.isNewline == true { message.removeLast() }
    core.logLibraryMessage(message)
}
