/// The HTTP/2 implementation under an `HTTP2Client`.
public enum HTTP2Engine: String, Sendable, CaseIterable {
    /// libnghttp2 and OpenSSL over non-blocking sockets, driven by one epoll thread: the default,
    /// several times cheaper per request than libcurl, and it never resets a finished stream.
    case nghttp2
    /// libcurl's multi interface (over its own nghttp2), kept for comparison and as a fallback.
    case libcurl
}
