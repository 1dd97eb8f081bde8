import HeraldPush
import Testing

/// `HTTP2Request(url:)` splits a URL as written into scheme, authority and path (the client
/// checks them); without "://" it is all path.
@Suite("HTTP2Request URL split")
struct HTTP2RequestURLTests {
    @Test(arguments: [
        ("https://api.push.apple.com/3/device/abc", "https", "api.push.apple.com", "/3/device/abc"),
        ("https://127.0.0.1:8443", "https", "127.0.0.1:8443", ""),
        ("http://[2001:db8::1]:80/v1?x=1#f", "http", "[2001:db8::1]:80", "/v1?x=1#f"),
        ("https://host?q=a://b", "https", "host", "?q=a://b"),
        ("https://h/p://q", "https", "h", "/p://q"),
        ("/only/a/path", "", "", "/only/a/path"),
        ("mailto:x", "", "", "mailto:x"),
        ("a:/b", "", "", "a:/b"),
        ("ends:", "", "", "ends:"),
        ("ends:/", "", "", "ends:/"),
        ("://", "", "", ""),
        ("", "", "", ""),
        ("é://ü/ß", "é", "ü", "/ß"),
    ])
    func split(url: String, scheme: String, authority: String, path: String) {
        let request = HTTP2Request(url: url)
        #expect(request.scheme == scheme)
        #expect(request.authority == authority)
        #expect(request.path == path)
    }
}
