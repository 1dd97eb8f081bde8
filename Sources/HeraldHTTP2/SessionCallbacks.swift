import CNGHTTP2

/// The C callbacks of every session, either role. Each finds its session through `user_data`
/// and hands the event to the session's delegate (none once it detached).
enum SessionCallbacks {
    static func install(in callbacks: OpaquePointer?) {
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks) { _, frame, userData in
            guard let frame, let delegate = Session.delegate(of: userData),
                frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue),
                frame.pointee.headers.cat == NGHTTP2_HCAT_REQUEST
            else { return 0 }
            delegate.sessionBeganRequest(streamID: frame.pointee.hd.stream_id)
            return 0
        }
        nghttp2_session_callbacks_set_on_header_callback(callbacks) {
            _, frame, name, nameLength, value, valueLength, _, userData in
            guard let frame, let name, let value, let delegate = Session.delegate(of: userData) else { return 0 }
            delegate.sessionReceivedHeader(
                streamID: frame.pointee.hd.stream_id, name: UnsafeBufferPointer(start: name, count: nameLength),
                value: UnsafeBufferPointer(start: value, count: valueLength))
            return 0
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) {
            _, _, streamID, data, length, userData in
            guard let data, let delegate = Session.delegate(of: userData) else { return 0 }
            delegate.sessionReceivedData(streamID: streamID, UnsafeBufferPointer(start: data, count: length))
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, userData in
            guard let frame, let delegate = Session.delegate(of: userData) else { return 0 }
            let header = frame.pointee.hd
            switch UInt32(header.type) {
            case NGHTTP2_HEADERS.rawValue, NGHTTP2_DATA.rawValue:
                if header.type == UInt8(NGHTTP2_HEADERS.rawValue), frame.pointee.headers.cat == NGHTTP2_HCAT_REQUEST {
                    delegate.sessionReceived(.requestHeaders(streamID: header.stream_id))
                }
                if header.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0 {
                    delegate.sessionReceived(.endOfStream(streamID: header.stream_id))
                }
            case NGHTTP2_RST_STREAM.rawValue:
                delegate.sessionReceived(.reset(streamID: header.stream_id, code: frame.pointee.rst_stream.error_code))
            case NGHTTP2_GOAWAY.rawValue:
                delegate.sessionReceived(
                    .goAway(lastStreamID: frame.pointee.goaway.last_stream_id, code: frame.pointee.goaway.error_code))
            case NGHTTP2_SETTINGS.rawValue where header.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) == 0:
                delegate.sessionReceived(.settings)
            default: break
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, streamID, code, userData in
            Session.delegate(of: userData)?.sessionClosedStream(streamID, code: code)
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_not_send_callback(callbacks) { _, frame, libraryError, userData in
            guard let frame, let delegate = Session.delegate(of: userData),
                frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue)
            else { return 0 }
            delegate.sessionCouldNotSendHeaders(streamID: frame.pointee.hd.stream_id, libraryError: libraryError)
            return 0
        }
    }

    /// The data provider of every body sent.
    static let readBody: nghttp2_data_source_read_callback = { _, streamID, buffer, length, flags, _, userData in
        guard let buffer, let flags, let delegate = Session.delegate(of: userData) else {
            return Int(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue)
        }
        let (count, finished) = delegate.sessionReadBody(
            streamID: streamID, into: UnsafeMutableBufferPointer(start: buffer, count: length))
        if finished { flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue }
        return count
    }
}
