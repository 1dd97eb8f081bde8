import Foundation
import HeraldHTTPTestSupport
import Synchronization

/// `nghttpd` (Debian's nghttp2-server) as a child process serving HTTP/2 over TLS on a loopback
/// port, with a self-signed certificate: the HTTP/2 server of the transport tests until
/// Herald's sandbox exists. (h2c only for the nghttp2 engine: libcurl 7.88.1 fails every request
/// after the first on a prior-knowledge connection, curl issue 10634.)
///
/// It serves `hello.txt` and `empty`, echoes the body of any POST (unless started without
/// `--echo-upload`), and hangs (the whole server, blocked opening a FIFO) on `GET /hang`, which
/// keeps requests in flight for as long as a test needs.
/// Nothing here blocks a cooperative thread: the exit is awaited through ``ChildProcess``.
final class NGHTTPD: Sendable {
    let port: Int
    /// "https", or "http" for h2c.
    let scheme: String
    private let root: URL
    private let process: ChildProcess

    private init(port: Int, scheme: String, root: URL, process: ChildProcess) {
        self.port = port
        self.scheme = scheme
        self.root = root
        self.process = process
    }

    /// A test that fails before `stop()` still ends its server; the document root goes too.
    deinit {
        process.send(SIGKILL)
        try? FileManager.default.removeItem(at: root)
    }

    /// The URL of `path` on this server.
    func url(_ path: String) -> String { "\(scheme)://127.0.0.1:\(port)\(path)" }

    /// Starts nghttpd on `port` (nil: a free one), over TLS unless `cleartext` (h2c), with
    /// `options` added (the default echoes POST bodies: `--echo-upload`), and waits until it
    /// accepts connections. A free port can be taken (by a client's outgoing connection) before
    /// nghttpd binds it: then it tries another.
    static func start(port: Int? = nil, cleartext: Bool = false, options: [String] = ["--echo-upload"]) async throws
        -> NGHTTPD
    {
        let certificate = try await TestCertificate.shared.value
        for _ in 0..<5 {
            let root = try makeRoot()
            let chosen = try port ?? freePort()
            let identity = cleartext ? ["--no-tls"] : []
            let process = try ChildProcess.spawn(
                "/usr/sbin/nghttpd",
                identity + options + ["-d", root.path, String(chosen)]
                    + (cleartext ? [] : [certificate.keyFile, certificate.certificateFile]),
                captureOutput: false, captureError: false)
            let server = NGHTTPD(port: chosen, scheme: cleartext ? "http" : "https", root: root, process: process)
            for _ in 0..<250 where process.exitIfEnded == nil {
                if canConnect(chosen) { return server }
                try await Task.sleep(for: .milliseconds(20))
            }
            await server.stop()
            guard port == nil, process.exitIfEnded != nil else { break }
        }
        throw NGHTTPDError(message: "nghttpd did not listen on \(port.map { "port \($0)" } ?? "a free port")")
    }

    /// Whether the server is stuck answering `GET /hang` (so requests sent so far are in flight).
    var isHanging: Bool {
        let wchan = try? String(contentsOfFile: "/proc/\(process.pid)/wchan", encoding: .utf8)
        return wchan == "wait_for_partner"
    }

    /// Waits until a `GET /hang` sent earlier has reached the server.
    func waitUntilHanging() async throws {
        for _ in 0..<500 where !isHanging { try await Task.sleep(for: .milliseconds(10)) }
        guard isHanging else { throw NGHTTPDError(message: "nghttpd never received GET /hang") }
    }

    /// Sends `signal` (SIGKILL: a crash) and waits for the exit.
    func stop(signal: Int32 = SIGKILL) async {
        process.send(signal)
        _ = await process.exit()
    }

    private static func makeRoot() throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("nghttpd-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try Data("hello\n".utf8).write(to: root.appendingPathComponent("hello.txt"))
        try Data().write(to: root.appendingPathComponent("empty"))
        guard mkfifo(root.appendingPathComponent("hang").path, 0o600) == 0 else {
            throw NGHTTPDError(message: "mkfifo failed")
        }
        return root
    }
}

/// A loopback port nothing listens on (free when asked; another process may take it later).
func freePort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = loopback(port: 0)
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
        }
    }
    guard bound else { throw NGHTTPDError(message: "no free port") }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// Whether something accepts connections on loopback `port`.
func canConnect(_ port: Int) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = loopback(port: port)
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
        }
    }
}

private func loopback(port: Int) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return address
}

struct NGHTTPDError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
