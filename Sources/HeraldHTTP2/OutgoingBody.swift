/// A body being sent on a stream, read out by the session as flow control allows.
package struct OutgoingBody: Sendable {
    package let bytes: [UInt8]
    /// Bytes handed to nghttp2 so far.
    private var sent = 0

    package init(_ bytes: [UInt8] = []) {
        self.bytes = bytes
    }

    /// Copies the next bytes into `buffer`: how many, and whether they were the last.
    package mutating func read(into buffer: UnsafeMutableBufferPointer<UInt8>) -> (count: Int, finished: Bool) {
        let count = min(buffer.count, bytes.count - sent)
        let start = sent
        bytes.withUnsafeBufferPointer { source in
            _ = buffer.initialize(fromContentsOf: source[start..<start + count])
        }
        sent += count
        return (count, sent == bytes.count)
    }
}
