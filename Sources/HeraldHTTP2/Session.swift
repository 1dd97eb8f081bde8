import CNGHTTP2

/// Owns one `nghttp2_session*`, client or server side. Its callbacks reach the ``delegate``
/// (the connection that owns the session); they run only inside the connection's own calls to
/// ``receive(_:)`` and ``nextOutput()``.
package final class Session {
    /// The side of the connection, with its first SETTINGS.
    package enum Role {
        /// No server push, and large receive windows so responses arrive without waiting for
        /// WINDOW_UPDATE.
        case client
        /// Announces `maxConcurrentStreams`.
        case server(maxConcurrentStreams: UInt32)
    }

    private let handle: OpaquePointer
    private let counter: HandleCounter?
    /// Where callbacks go (set it before the first `receive` or `nextOutput`); nil once detached.
    package unowned(unsafe) var delegate: (any SessionDelegate)?
    /// The `nghttp2_nv` array of the block being submitted, kept to spare an allocation each.
    private var fields: [nghttp2_nv] = []

    /// A client's stream receive window.
    static let clientStreamWindow: UInt32 = 4 << 20
    /// A client's connection receive window.
    static let clientConnectionWindow: Int32 = 32 << 20

    /// A session whose first frames out are the client preface (client) and SETTINGS.
    package init<Failure: NativeCallError>(
        _ role: Role, counter: HandleCounter? = nil, throwing: Failure.Type
    ) throws(Failure) {
        var callbacks: OpaquePointer?
        try NativeCall<Failure>.nghttp2(nghttp2_session_callbacks_new(&callbacks), "nghttp2_session_callbacks_new")
        defer { nghttp2_session_callbacks_del(callbacks) }
        SessionCallbacks.install(in: callbacks)
        var session: OpaquePointer?
        switch role {
        case .client:
            try NativeCall<Failure>.nghttp2(
                nghttp2_session_client_new(&session, callbacks, nil), "nghttp2_session_client_new")
        case .server:
            try NativeCall<Failure>.nghttp2(
                nghttp2_session_server_new(&session, callbacks, nil), "nghttp2_session_server_new")
        }
        guard let session else { preconditionFailure("nghttp2 made no session") }
        handle = session
        self.counter = counter
        counter?.allocated()
        nghttp2_session_set_user_data(handle, Unmanaged.passUnretained(self).toOpaque())
        switch role {
        case .client:
            var settings = [
                nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0),
                nghttp2_settings_entry(
                    settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: Self.clientStreamWindow),
            ]
            try NativeCall<Failure>.nghttp2(
                nghttp2_submit_settings(handle, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count),
                "nghttp2_submit_settings")
            try NativeCall<Failure>.nghttp2(
                nghttp2_session_set_local_window_size(
                    handle, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, Self.clientConnectionWindow),
                "nghttp2_session_set_local_window_size")
        case .server(let maxConcurrentStreams):
            var settings = [
                nghttp2_settings_entry(
                    settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue), value: maxConcurrentStreams)
            ]
            try NativeCall<Failure>.nghttp2(
                nghttp2_submit_settings(handle, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count),
                "nghttp2_submit_settings")
        }
    }

    deinit {
        nghttp2_session_del(handle)
        counter?.freed()
    }

    /// The delegate of the session named by a callback's `user_data`.
    static func delegate(of userData: UnsafeMutableRawPointer?) -> (any SessionDelegate)? {
        guard let userData else { return nil }
        return Unmanaged<Session>.fromOpaque(userData).takeUnretainedValue().delegate
    }

    /// Feeds bytes read from the peer; callbacks run during the call.
    package func receive<Failure: NativeCallError>(_ bytes: UnsafeRawBufferPointer, throwing: Failure.Type)
        throws(Failure)
    {
        try NativeCall<Failure>.nghttp2(
            nghttp2_session_mem_recv(handle, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count),
            "nghttp2_session_mem_recv")
    }

    /// The next serialized frames to write, valid until the next call; empty when nothing is due.
    package func nextOutput<Failure: NativeCallError>(throwing: Failure.Type) throws(Failure)
        -> UnsafeRawBufferPointer
    {
        var data: UnsafePointer<UInt8>?
        let count = try NativeCall<Failure>.nghttp2(
            nghttp2_session_mem_send(handle, &data), "nghttp2_session_mem_send")
        return UnsafeRawBufferPointer(start: data, count: count)
    }

    /// Whether the session still wants to read or write; when neither, the connection is done.
    package var isActive: Bool {
        nghttp2_session_want_read(handle) != 0 || nghttp2_session_want_write(handle) != 0
    }

    /// Streams the peer lets us open at once (100 until its SETTINGS say otherwise).
    package var peerStreamLimit: Int {
        Int(nghttp2_session_get_remote_settings(handle, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS))
    }

    /// Submits a request (client side; nghttp2 copies its fields) and answers its stream id; a
    /// body is read back through the delegate as flow control allows.
    package func submitRequest<Failure: NativeCallError>(
        _ block: HeaderBlock, hasBody: Bool, throwing: Failure.Type
    ) throws(Failure) -> Int32 {
        let result = block.withFields(in: &fields) { fields, count in
            var provider = nghttp2_data_provider()
            provider.read_callback = SessionCallbacks.readBody
            return hasBody
                ? nghttp2_submit_request(handle, nil, fields, count, &provider, nil)
                : nghttp2_submit_request(handle, nil, fields, count, nil, nil)
        }
        return try NativeCall<Failure>.nghttp2(result, "nghttp2_submit_request")
    }

    /// Submits the response of stream `streamID` (server side), `:status` first in `block`.
    package func submitResponse<Failure: NativeCallError>(
        streamID: Int32, _ block: HeaderBlock, hasBody: Bool, throwing: Failure.Type
    ) throws(Failure) {
        let result = block.withFields(in: &fields) { fields, count in
            var provider = nghttp2_data_provider()
            provider.read_callback = SessionCallbacks.readBody
            return hasBody
                ? nghttp2_submit_response(handle, streamID, fields, count, &provider)
                : nghttp2_submit_response(handle, streamID, fields, count, nil)
        }
        try NativeCall<Failure>.nghttp2(result, "nghttp2_submit_response")
    }

    /// Queues RST_STREAM with `code` (CANCEL: the caller gave up).
    package func reset(streamID: Int32, code: UInt32 = NGHTTP2_CANCEL.rawValue) {
        _ = nghttp2_submit_rst_stream(handle, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, code)
    }

    /// Queues GOAWAY naming `lastStreamID`, or else the last stream the peer opened. With 0
    /// (NO_ERROR) the streams up to it are still answered; any other code ends the session once
    /// GOAWAY is out.
    package func goAway<Failure: NativeCallError>(
        code: UInt32, lastStreamID: Int32? = nil, throwing: Failure.Type
    ) throws(Failure) {
        let last = lastStreamID ?? nghttp2_session_get_last_proc_stream_id(handle)
        if code == NGHTTP2_NO_ERROR.rawValue {
            try NativeCall<Failure>.nghttp2(
                nghttp2_submit_goaway(handle, UInt8(NGHTTP2_FLAG_NONE.rawValue), last, code, nil, 0),
                "nghttp2_submit_goaway")
        } else {
            try NativeCall<Failure>.nghttp2(
                nghttp2_session_terminate_session2(handle, last, code), "nghttp2_session_terminate_session2")
        }
    }
}
