import CZlib

/// A request body sent with `Content-Encoding: gzip` (or `deflate`, zlib's format), inflated
/// through zlib with a bound on what it may grow to: a small hostile body that inflates to
/// gigabytes stops at the bound.
///
/// Owns one `z_stream` at a fixed address (zlib keeps a pointer back to it), its state freed in
/// `deinit`; every zlib return code goes through ``check(_:_:)``.
final class Inflater {
    /// Why a body could not be inflated.
    enum Failure: Error, Equatable {
        /// Not gzip or zlib data, truncated, or with a bad checksum.
        case corrupt(String)
        /// It inflates to more than the bound.
        case tooLarge(limit: Int)
    }

    private let stream: UnsafeMutablePointer<z_stream>
    private var initialized = false

    private init() throws(Failure) {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        try check(herald_inflateInit_gzip_or_zlib(stream), "inflateInit2")
        initialized = true
    }

    deinit {
        if initialized { inflateEnd(stream) }
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// `body` inflated, at most `limit` bytes; one gzip member (or zlib stream), nothing after it.
    static func inflate(_ body: [UInt8], limit: Int) throws(Failure) -> [UInt8] {
        try Inflater().run(body, limit: limit)
    }

    private func run(_ body: [UInt8], limit: Int) throws(Failure) -> [UInt8] {
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        let result: Int32 = try body.withUnsafeBufferPointer { (input) throws(Failure) -> Int32 in
            // zlib reads `next_in` only; its type is not const.
            stream.pointee.next_in = input.baseAddress.map { UnsafeMutablePointer(mutating: $0) }
            stream.pointee.avail_in = UInt32(input.count)
            while true {
                let status = chunk.withUnsafeMutableBufferPointer { chunk in
                    stream.pointee.next_out = chunk.baseAddress
                    stream.pointee.avail_out = UInt32(chunk.count)
                    return CZlib.inflate(stream, Z_NO_FLUSH)
                }
                let produced = chunk.count - Int(stream.pointee.avail_out)
                guard output.count + produced <= limit else { throw .tooLarge(limit: limit) }
                output.append(contentsOf: chunk[..<produced])
                switch status {
                case Z_STREAM_END: return status
                case Z_OK: continue
                case Z_BUF_ERROR where stream.pointee.avail_in == 0:
                    throw .corrupt("the compressed body ends before its end")
                default: try check(status, "inflate")
                }
            }
        }
        guard result == Z_STREAM_END, stream.pointee.avail_in == 0 else {
            throw .corrupt("bytes follow the compressed body")
        }
        return output
    }

    /// Throws unless `status` is `Z_OK`, naming `call` and zlib's message.
    private func check(_ status: Int32, _ call: String) throws(Failure) {
        guard status != Z_OK else { return }
        let detail = stream.pointee.msg.map { String(cString: $0) } ?? "zlib error \(status)"
        throw .corrupt("\(call): \(detail)")
    }
}
