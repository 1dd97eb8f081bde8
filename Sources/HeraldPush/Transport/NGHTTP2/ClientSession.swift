import CNGHTTP2

/// Owns one client-side `nghttp2_session*`. Its callbacks reach the connection through
/// `user_data`; they run only inside the connection's own calls to `receive` and `nextOutput`.
final class ClientSession {
    let handle: OpaquePointer
    private let counter: HandleCounter
    /// The `nghttp2_nv` array of the request being submitted, kept to spare an allocation each.
    private var fields: [nghttp2_nv] = []

    /// Stream receive window: responses arrive without waiting for WINDOW_UPDATE.
    static let streamWindow: UInt32 = 4 << 20
    /// Connection receive window.
    static let connectionWindow: Int32 = 32 << 20

    /// A session whose first frames out are the preface and SETTINGS (no push, large windows).
    init(connection: ClientConnection, counter: HandleCounter) throws(HTTP2ClientError) {
        var callbacks: OpaquePointer?
        try NativeCall.nghttp2(nghttp2_session_callbacks_new(&callbacks), "nghttp2_session_callbacks_new")
        defer { nghttp2_session_callbacks_del(callbacks) }
        ClientSessionCallbacks.install(in: callbacks)
        var session: OpaquePointer?
        try NativeCall.nghttp2(
            nghttp2_session_client_new(&session, callbacks, Unmanaged.passUnretained(connection).toOpaque()),
            "nghttp2_session_client_new")
        guard let session else { preconditionFailure("nghttp2_session_client_new succeeded without a session") }
        handle = session
        self.counter = counter
        counter.allocated()
        var settings = [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0),
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: Self.streamWindow),
        ]
        try NativeCall.nghttp2(
            nghttp2_submit_settings(handle, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count),
            "nghttp2_submit_settings")
        try NativeCall.nghttp2(
            nghttp2_session_set_local_window_size(handle, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, Self.connectionWindow),
            "nghttp2_session_set_local_window_size")
    }

    deinit {
        nghttp2_session_del(handle)
        counter.freed()
    }

    /// Feeds bytes read from the server; callbacks run during the call.
    func receive(_ bytes: UnsafeRawBufferPointer) throws(HTTP2ClientError) {
        try NativeCall.nghttp2(
            nghttp2_session_mem_recv(handle, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count),
            "nghttp2_session_mem_recv")
    }

    /// The next serialized frames to write, valid until the next call; empty when nothing is due.
    func nextOutput() throws(HTTP2ClientError) -> UnsafeRawBufferPointer {
        var data: UnsafePointer<UInt8>?
        let count = try NativeCall.nghttp2(nghttp2_session_mem_send(handle, &data), "nghttp2_session_mem_send")
        return UnsafeRawBufferPointer(start: data, count: count)
    }

    /// Whether the session still wants to read or write; when neither, the connection is done.
    var isActive: Bool {
        nghttp2_session_want_read(handle) != 0 || nghttp2_session_want_write(handle) != 0
    }

    /// Streams the server lets us open at once (100 until its SETTINGS say otherwise).
    var serverStreamLimit: Int {
        Int(nghttp2_session_get_remote_settings(handle, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS))
    }

    /// Submits `request` (nghttp2 copies its fields) and answers its stream id; a body is read
    /// back through ``ClientSessionCallbacks/readBody`` as flow control allows.
    func submit(_ request: PendingRequest) throws(HTTP2ClientError) -> Int32 {
        fields.removeAll(keepingCapacity: true)
        let bounds = request.fieldBounds
        let result = request.headerBlock.withUnsafeBufferPointer { block -> Int32 in
            guard let base = block.baseAddress else { return Int32(NGHTTP2_ERR_INVALID_ARGUMENT.rawValue) }
            let start = UnsafeMutablePointer(mutating: base)
            for index in stride(from: 0, to: bounds.count, by: 4) {
                fields.append(
                    nghttp2_nv(
                        name: start + bounds[index], value: start + bounds[index + 2], namelen: bounds[index + 1],
                        valuelen: bounds[index + 3], flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)))
            }
            var provider = nghttp2_data_provider()
            provider.read_callback = ClientSessionCallbacks.readBody
            return request.body.isEmpty
                ? nghttp2_submit_request(handle, nil, fields, fields.count, nil, nil)
                : nghttp2_submit_request(handle, nil, fields, fields.count, &provider, nil)
        }
        return try NativeCall.nghttp2(result, "nghttp2_submit_request")
    }

    /// Queues RST_STREAM with CANCEL for a stream whose caller gave up.
    func cancel(streamID: Int32) {
        _ = nghttp2_submit_rst_stream(handle, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, NGHTTP2_CANCEL.rawValue)
    }
}
