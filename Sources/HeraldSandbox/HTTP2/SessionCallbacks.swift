import CNGHTTP2

/// The C callbacks of every session. Each finds its connection through `user_data` (none after
/// the connection detached) and leaves the work to it.
enum SessionCallbacks {
    static func install(in callbacks: OpaquePointer?) {
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks) { _, frame, userData in
            guard let frame, let connection = HTTP2Connection.from(userData),
                frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue),
                frame.pointee.headers.cat == NGHTTP2_HCAT_REQUEST
            else { return 0 }
            connection.beginStream(frame.pointee.hd.stream_id)
            return 0
        }
        nghttp2_session_callbacks_set_on_header_callback(callbacks) {
            _, frame, name, nameLength, value, valueLength, _, userData in
            guard let frame, let name, let value, let connection = HTTP2Connection.from(userData) else { return 0 }
            connection.header(
                streamID: frame.pointee.hd.stream_id,
                name: String(decoding: UnsafeBufferPointer(start: name, count: nameLength), as: UTF8.self),
                value: String(decoding: UnsafeBufferPointer(start: value, count: valueLength), as: UTF8.self))
            return 0
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) {
            _, _, streamID, data, length, userData in
            guard let data, let connection = HTTP2Connection.from(userData) else { return 0 }
            connection.bodyChunk(streamID: streamID, UnsafeBufferPointer(start: data, count: length))
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, userData in
            guard let frame, let connection = HTTP2Connection.from(userData) else { return 0 }
            let type = UInt32(frame.pointee.hd.type)
            let endsStream = frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0
            if endsStream && (type == NGHTTP2_HEADERS.rawValue || type == NGHTTP2_DATA.rawValue) {
                connection.requestComplete(streamID: frame.pointee.hd.stream_id)
            } else if type == NGHTTP2_RST_STREAM.rawValue || type == NGHTTP2_GOAWAY.rawValue {
                connection.peerSent(resetOrGoAway: type == NGHTTP2_RST_STREAM.rawValue ? .reset : .goAway)
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, streamID, _, userData in
            HTTP2Connection.from(userData)?.streamClosed(streamID)
            return 0
        }
    }

    /// The data provider of every response body.
    static let readBody: nghttp2_data_source_read_callback = { _, streamID, buffer, length, flags, _, userData in
        guard let buffer, let flags, let connection = HTTP2Connection.from(userData) else {
            return Int(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue)
        }
        let (count, finished) = connection.readBody(
            streamID: streamID, into: UnsafeMutableBufferPointer(start: buffer, count: length))
        if finished { flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue }
        return count
    }
}
