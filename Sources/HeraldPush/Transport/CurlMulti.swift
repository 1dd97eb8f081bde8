import CCurl
import HeraldHTTP2

/// Owns one libcurl multi handle and frees it in `deinit`.
///
/// `@unchecked Sendable`: every call but `wakeUp()` (which libcurl allows from any thread)
/// is made on the transfer loop's thread.
final class CurlMulti: @unchecked Sendable {
    let handle: UnsafeMutableRawPointer
    private let counter: HandleCounter

    init(counter: HandleCounter) throws(HTTP2ClientError) {
        guard let handle = curl_multi_init() else {
            throw HTTP2ClientError(kind: .other, code: 0, message: "curl_multi_init failed")
        }
        self.handle = handle
        self.counter = counter
        counter.allocated()
    }

    deinit {
        curl_multi_cleanup(handle)
        counter.freed()
    }

    func set(_ option: CURLMoption, _ value: Int) throws(HTTP2ClientError) {
        try curlCheck(herald_curl_multi_setopt_long(handle, option, value))
    }

    func add(_ easy: CurlEasy) throws(HTTP2ClientError) {
        try curlCheck(curl_multi_add_handle(handle, easy.handle))
    }

    func remove(_ easy: CurlEasy) throws(HTTP2ClientError) {
        try curlCheck(curl_multi_remove_handle(handle, easy.handle))
    }

    /// Runs every transfer as far as it can go without blocking.
    func perform() throws(HTTP2ClientError) {
        var running: Int32 = 0
        try curlCheck(curl_multi_perform(handle, &running))
    }

    /// The next finished transfer: its easy handle and result.
    func nextFinished() -> (easy: UnsafeMutableRawPointer, result: CURLcode)? {
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(handle, &remaining) {
            if message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle {
                return (easy, message.pointee.data.result)
            }
        }
        return nil
    }

    /// Waits until a socket is ready, `wakeUp()` is called or `milliseconds` pass.
    func poll(milliseconds: Int32) throws(HTTP2ClientError) {
        try curlCheck(curl_multi_poll(handle, nil, 0, milliseconds, nil))
    }

    /// Ends a `poll` early; libcurl allows this from any thread.
    func wakeUp() throws(HTTP2ClientError) {
        try curlCheck(curl_multi_wakeup(handle))
    }
}
