import CNGHTTP2

/// Owns one server-side `nghttp2_session*`. Its callbacks reach the connection set with
/// ``attach(_:)``; they run only inside the connection's own calls to `receive` and `send`.
final class NGHTTP2Session {
    let handle: OpaquePointer

    /// A session whose first frame out is SETTINGS announcing `maxConcurrentStreams`.
    init(maxConcurrentStreams: UInt32) throws(HTTP2ServerError) {
        var callbacks: OpaquePointer?
        try LibraryCall.nghttp2(nghttp2_session_callbacks_new(&callbacks), "nghttp2_session_callbacks_new")
        defer { nghttp2_session_callbacks_del(callbacks) }
        SessionCallbacks.install(in: callbacks)
        var session: OpaquePointer?
        try LibraryCall.nghttp2(nghttp2_session_server_new(&session, callbacks, nil), "nghttp2_session_server_new")
        guard let session else { preconditionFailure("nghttp2_session_server_new succeeded without a session") }
        handle = session
        var settings = [
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue), value: maxConcurrentStreams)
        ]
        try LibraryCall.nghttp2(
            nghttp2_submit_settings(handle, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count),
            "nghttp2_submit_settings")
    }

    deinit { nghttp2_session_del(handle) }

    /// Routes the callbacks to `connection`, which must outlive the session or ``detach()`` first.
    func attach(_ connection: HTTP2Connection) {
        nghttp2_session_set_user_data(handle, Unmanaged.passUnretained(connection).toOpaque())
    }

    /// Stops routing callbacks anywhere.
    func detach() {
        nghttp2_session_set_user_data(handle, nil)
    }

    /// Feeds bytes read from the peer; callbacks run during the call.
    func receive(_ bytes: UnsafeRawBufferPointer) throws(HTTP2ServerError) {
        try LibraryCall.nghttp2(
            nghttp2_session_mem_recv(handle, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count),
            "nghttp2_session_mem_recv")
    }

    /// The next serialized frames to write, valid until the next call; empty when nothing is due.
    func nextOutput() throws(HTTP2ServerError) -> UnsafeRawBufferPointer {
        var data: UnsafePointer<UInt8>?
        let count = try LibraryCall.nghttp2(nghttp2_session_mem_send(handle, &data), "nghttp2_session_mem_send")
        return UnsafeRawBufferPointer(start: data, count: count)
    }

    /// Whether the session still wants to read or write; when neither, the connection is done.
    var isActive: Bool {
        nghttp2_session_want_read(handle) != 0 || nghttp2_session_want_write(handle) != 0
    }

    /// Queues GOAWAY naming the last stream the server took. With ``HTTP2ErrorCode/noError``
    /// those streams are still answered; any other code ends the session once GOAWAY is out.
    func goAway(_ code: HTTP2ErrorCode) throws(HTTP2ServerError) {
        let last = nghttp2_session_get_last_proc_stream_id(handle)
        if code == .noError {
            try LibraryCall.nghttp2(
                nghttp2_submit_goaway(handle, UInt8(NGHTTP2_FLAG_NONE.rawValue), last, code.rawValue, nil, 0),
                "nghttp2_submit_goaway")
        } else {
            try LibraryCall.nghttp2(
                nghttp2_session_terminate_session2(handle, last, code.rawValue), "nghttp2_session_terminate_session2")
        }
    }

    /// Submits a response: `fields` (with `:status` first) and, for a body, a data provider whose
    /// reads come back to the connection's `readBody`.
    func submitResponse(streamID: Int32, fields: [HTTP2Header], hasBody: Bool) throws(HTTP2ServerError) {
        var storage: [UInt8] = []
        var ranges: [(name: Range<Int>, value: Range<Int>)] = []
        for field in fields {
            let nameStart = storage.count
            storage.append(contentsOf: field.name.lowercased().utf8)
            let valueStart = storage.count
            storage.append(contentsOf: field.value.utf8)
            ranges.append((nameStart..<valueStart, valueStart..<storage.count))
        }
        var provider = nghttp2_data_provider()
        provider.read_callback = SessionCallbacks.readBody
        let result = storage.withUnsafeMutableBufferPointer { bytes in
            guard let base = bytes.baseAddress else { return Int32(NGHTTP2_ERR_INVALID_ARGUMENT.rawValue) }
            var nva = ranges.map { range in
                nghttp2_nv(
                    name: base + range.name.lowerBound, value: base + range.value.lowerBound,
                    namelen: range.name.count, valuelen: range.value.count, flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue))
            }
            return hasBody
                ? nghttp2_submit_response(handle, streamID, &nva, nva.count, &provider)
                : nghttp2_submit_response(handle, streamID, &nva, nva.count, nil)
        }
        try LibraryCall.nghttp2(result, "nghttp2_submit_response")
    }
}
