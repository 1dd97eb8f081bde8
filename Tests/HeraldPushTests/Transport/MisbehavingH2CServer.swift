import Foundation

/// A raw h2c server on a loopback port that answers every request with one fault frame: the
/// GOAWAY and RST_STREAM cases nghttpd cannot be asked for. Its accept loop and connections run
/// on threads of their own.
///
/// Only the first request of a connection reaches it intact (libcurl 7.88.1 breaks reused
/// prior-knowledge connections), which is all a fault test sends.
final class MisbehavingH2CServer: Sendable {
    /// What the server answers after its SETTINGS frame.
    enum Fault: Sendable {
        /// GOAWAY with last stream id 0 and NO_ERROR: the request was never processed.
        case goaway
        /// RST_STREAM of stream 1 with INTERNAL_ERROR.
        case resetStream
    }

    let port: Int
    private let listener: Int32

    init(_ fault: Fault) throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let listening = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && getsockname(listener, $0, &length) == 0
            }
        }
        guard listening, listen(listener, 16) == 0 else {
            close(listener)
            throw NGHTTPDError(message: "could not listen")
        }
        self.listener = listener
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread {
            while true {
                let connection = accept(listener, nil, nil)
                guard connection >= 0 else { return }
                Thread.detachNewThread { Self.answer(connection, with: fault) }
            }
        }
    }

    /// The URL of `path` on this server.
    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Stops accepting connections.
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private static func answer(_ connection: Int32, with fault: Fault) {
        var buffer = [UInt8](repeating: 0, count: 65536)
        _ = recv(connection, &buffer, buffer.count, 0)
        var reply = frame(type: 4, stream: 0, payload: [])  // SETTINGS
        switch fault {
        case .goaway: reply += frame(type: 7, stream: 0, payload: [0, 0, 0, 0, 0, 0, 0, 0])
        case .resetStream: reply += frame(type: 3, stream: 1, payload: [0, 0, 0, 2])
        }
        _ = send(connection, reply, reply.count, 0)
        while recv(connection, &buffer, buffer.count, 0) > 0 {}
        close(connection)
    }

    private static func frame(type: UInt8, stream: UInt32, payload: [UInt8]) -> [UInt8] {
        let length = UInt32(payload.count)
        return [UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF), type, 0]
            + withUnsafeBytes(of: stream.bigEndian, Array.init) + payload
    }
}
