import CCurl
import HeraldHTTP2

/// Owns one libcurl easy handle, the header list and error buffer it points at, and frees them
/// all in `deinit`.
///
/// `@unchecked Sendable`: one thread uses it at a time, handed over in turn: the caller that
/// builds a request, the transfer loop, then ``EasyHandlePool`` under its lock.
final class CurlEasy: @unchecked Sendable {
    let handle: UnsafeMutableRawPointer
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private let counter: HandleCounter

    init(counter: HandleCounter) throws(HTTP2ClientError) {
        guard let handle = curl_easy_init() else {
            throw HTTP2ClientError(kind: .other, code: 0, message: "curl_easy_init failed")
        }
        self.handle = handle
        self.counter = counter
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(to: 0)
        counter.allocated()
        try set(CURLOPT_ERRORBUFFER, pointer: errorBuffer)
    }

    deinit {
        curl_easy_cleanup(handle)
        curl_slist_free_all(headerList)
        errorBuffer.deallocate()
        counter.freed()
    }

    /// Back to libcurl's default options, for the next request (the connections stay with the
    /// multi handle).
    func reset() throws(HTTP2ClientError) {
        curl_easy_reset(handle)
        curl_slist_free_all(headerList)
        headerList = nil
        errorBuffer[0] = 0
        try set(CURLOPT_ERRORBUFFER, pointer: errorBuffer)
    }

    /// libcurl's detailed message of the last failure, or "".
    var errorDetail: String { String(cString: errorBuffer) }

    func set(_ option: CURLoption, _ value: Int) throws(HTTP2ClientError) {
        try curlCheck(herald_curl_easy_setopt_long(handle, option, value))
    }

    func set(_ option: CURLoption, _ value: String) throws(HTTP2ClientError) {
        try curlCheck(value.withCString { herald_curl_easy_setopt_pointer(handle, option, $0) })
    }

    func set(_ option: CURLoption, pointer: UnsafeRawPointer?) throws(HTTP2ClientError) {
        try curlCheck(herald_curl_easy_setopt_pointer(handle, option, pointer))
    }

    func set(_ option: CURLoption, callback: curl_write_callback) throws(HTTP2ClientError) {
        try curlCheck(herald_curl_easy_setopt_write_callback(handle, option, callback))
    }

    /// Sends `body` (copied by libcurl).
    func setBody(_ body: [UInt8]) throws(HTTP2ClientError) {
        try curlCheck(herald_curl_easy_setopt_offset(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)))
        guard !body.isEmpty else { return try set(CURLOPT_COPYPOSTFIELDS, "") }
        try curlCheck(
            body.withUnsafeBytes { herald_curl_easy_setopt_pointer(handle, CURLOPT_COPYPOSTFIELDS, $0.baseAddress) })
    }

    /// Sends these header lines ("name: value") instead of libcurl's defaults.
    func setHeaders(_ lines: [String]) throws(HTTP2ClientError) {
        for line in lines {
            guard let appended = curl_slist_append(headerList, line) else {
                throw HTTP2ClientError(kind: .other, code: 0, message: "curl_slist_append failed")
            }
            headerList = appended
        }
        try set(CURLOPT_HTTPHEADER, pointer: headerList)
    }

    func info(_ info: CURLINFO) throws(HTTP2ClientError) -> Int {
        var value = 0
        try curlCheck(herald_curl_easy_getinfo_long(handle, info, &value))
        return value
    }
}
