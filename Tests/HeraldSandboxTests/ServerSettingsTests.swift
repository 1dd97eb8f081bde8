import Foundation
import HeraldSandbox
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("HTTP/2 server SETTINGS")
struct ServerSettingsTests {
    /// curl 7.88 does not print the peer's SETTINGS, so this reads the server's first frame itself.
    @Test("the server's first frame is SETTINGS with MAX_CONCURRENT_STREAMS 1000")
    func maxConcurrentStreams() async throws {
        let test = try TestServer()
        let settings = await FirstFrame.read(port: test.port)
        await test.server.stop()
        #expect(settings[0x3] == 1000)
    }
}

/// A bare h2c client on a thread of its own: sends the preface, reads the first frame.
enum FirstFrame {
    /// The parameters of the server's first frame when it is SETTINGS (id to value); empty otherwise.
    static func read(port: Int) async -> [UInt16: UInt32] {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: readBlocking(port: port)) }
        }
    }

    private static func readBlocking(port: Int) -> [UInt16: UInt32] {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return [:] }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { return [:] }
        let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8) + [0, 0, 0, 0x4, 0, 0, 0, 0, 0]
        guard send(fd, preface, preface.count, Int32(MSG_NOSIGNAL)) == preface.count else { return [:] }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 9 || bytes.count < 9 + frameLength(bytes) {
            let count = recv(fd, &chunk, chunk.count, 0)
            guard count > 0 else { return [:] }
            bytes += chunk[..<count]
        }
        guard bytes[3] == 0x4 else { return [:] }
        var settings: [UInt16: UInt32] = [:]
        for offset in stride(from: 9, to: 9 + frameLength(bytes), by: 6) {
            let id = UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
            settings[id] = bytes[offset + 2..<offset + 6].reduce(0) { $0 << 8 | UInt32($1) }
        }
        return settings
    }

    private static func frameLength(_ header: [UInt8]) -> Int {
        Int(header[0]) << 16 | Int(header[1]) << 8 | Int(header[2])
    }
}
