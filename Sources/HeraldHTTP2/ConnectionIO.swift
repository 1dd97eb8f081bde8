#if canImport(Glibc)
    import Glibc
#endif

/// One connection's socket (owned: closed in `deinit`), its TLS stream when there is one and its
/// session, on the loop's thread: bytes read into the session, its frames written back out,
/// coalesced up to ``writeBatch``. The client and the server connection each add their role.
/// Without a session (a server connection speaking HTTP/1.1), the role reads with
/// ``read(into:)`` and queues what it writes with ``queue(_:)``; ``flush(throwing:)`` writes it.
package final class ConnectionIO {
    package let fd: Int32
    package var tls: TLSStream?
    package var session: Session?
    /// Frames the socket did not take yet, from `outputStart` on.
    private var output: [UInt8] = []
    private var outputStart = 0

    /// Coalesce frames up to this much before writing.
    private static let writeBatch = 64 * 1024

    /// What one read did.
    package enum Receive<Failure: Error> {
        /// Bytes went into the session (whose callbacks have run).
        case received
        case wantsReadable
        case wantsWritable
        /// The peer closed the connection, or it broke.
        case ended
        /// The peer broke HTTP/2: the session queued GOAWAY (flush to send it).
        case broken(Failure)
    }

    /// Where a flush stopped.
    package enum Flush<Failure: Error> {
        /// Everything is written and the session has nothing more to say.
        case done
        /// The socket took less than everything: it waits to be writable (or, for TLS, readable).
        case blocked(wantsWritable: Bool)
        /// The session failed to make frames.
        case sessionFailed(Failure)
        /// The connection broke while writing, with this `errno`.
        case socketFailed(errno: Int32)
    }

    package init(fd: Int32) {
        self.fd = fd
        output.reserveCapacity(Self.writeBatch + 16 * 1024)
    }

    deinit { close(fd) }

    /// Reads once, through TLS when set, into `buffer`.
    package func read(into buffer: UnsafeMutableRawBufferPointer) -> SocketIO {
        tls.map { $0.read(into: buffer) } ?? SocketIO.receive(fd, into: buffer)
    }

    /// Adds `bytes` to what the next flush writes, after what is already queued.
    package func queue(_ bytes: some Collection<UInt8>) {
        output.append(contentsOf: bytes)
    }

    /// Reads once, through TLS when set, and feeds what came to the session.
    package func receive<Failure: NativeCallError>(into buffer: UnsafeMutableRawBufferPointer, throwing: Failure.Type)
        -> Receive<Failure>
    {
        switch read(into: buffer) {
        case .transferred(let count):
            guard let session else { return .received }
            do throws(Failure) {
                try session.receive(UnsafeRawBufferPointer(rebasing: buffer[..<count]), throwing: Failure.self)
                return .received
            } catch {
                return .broken(error)
            }
        case .wantsReadable: return .wantsReadable
        case .wantsWritable: return .wantsWritable
        case .closed, .failed: return .ended
        }
    }

    /// Writes the session's frames (or, without a session, the queued bytes) until the socket
    /// pushes back or there is nothing more.
    package func flush<Failure: NativeCallError>(throwing: Failure.Type) -> Flush<Failure> {
        while true {
            if let session, output.count - outputStart < Self.writeBatch {
                let frames: UnsafeRawBufferPointer
                do throws(Failure) {
                    frames = try session.nextOutput(throwing: Failure.self)
                } catch {
                    return .sessionFailed(error)
                }
                if !frames.isEmpty {
                    output.append(contentsOf: frames)
                    continue
                }
            }
            guard outputStart < output.count else { return .done }
            let result = output.withUnsafeBytes { bytes in
                let pending = UnsafeRawBufferPointer(rebasing: bytes[outputStart...])
                return tls.map { $0.write(pending) } ?? SocketIO.send(fd, pending)
            }
            switch result {
            case .transferred(let count):
                outputStart += count
                guard outputStart == output.count else { return .blocked(wantsWritable: true) }
                output.removeAll(keepingCapacity: true)
                outputStart = 0
            case .wantsWritable: return .blocked(wantsWritable: true)
            case .wantsReadable: return .blocked(wantsWritable: false)
            case .closed, .failed: return .socketFailed(errno: errno)
            }
        }
    }
}
