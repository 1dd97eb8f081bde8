import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A loopback TCP port that takes connections and never answers: a server that hangs.
/// Call ``stop()`` when done.
final class SilentServer: Sendable {
    let port: Int
    private let fd: Int32
    private let connections = Mutex<[Int32]>([])

    init() throws {
        (fd, port) = try Self.listeningSocket()
    }

    /// Waits until a client connects (accepting it, and still never answering).
    func nextConnection() async {
        let fd = fd
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                Thread.detachNewThread { [self] in
                    let client = accept(fd, nil, nil)
                    if client >= 0 { connections.withLock { $0.append(client) } }
                    continuation.resume()
                }
            }
        } onCancel: {
            _ = shutdown(fd, Int32(SHUT_RDWR))
        }
    }

    /// Closes the port and every connection.
    func stop() {
        _ = shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
        for client in connections.withLock({ $0 }) { close(client) }
    }

    /// A port nothing listens on: bound, read and closed again, so a connect is refused.
    static func closedPort() throws -> Int {
        let (fd, port) = try listeningSocket()
        close(fd)
        return port
    }

    private static func listeningSocket() throws -> (Int32, Int) {
        #if canImport(Glibc)
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw EndToEndError.socket("socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            close(fd)
            throw EndToEndError.socket("bind/listen: errno \(errno)")
        }
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else {
            close(fd)
            throw EndToEndError.socket("getsockname: errno \(errno)")
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }
}
