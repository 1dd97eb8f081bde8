import COpenSSL

/// An OpenSSL memory BIO, freed with its owner.
final class MemoryBIO {
    let pointer: OpaquePointer

    /// An empty, writable BIO.
    init() throws {
        pointer = try OpenSSLCall.check(BIO_new(BIO_s_mem()), "BIO_new")
    }

    deinit { BIO_free(pointer) }

    /// Runs `body` with a read-only BIO over `bytes`; the BIO does not outlive the call.
    static func reading<Result>(_ bytes: [UInt8], _ body: (OpaquePointer) throws -> Result) throws -> Result {
        try bytes.withUnsafeBytes { buffer in
            let bio = try OpenSSLCall.check(BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)), "BIO_new_mem_buf")
            defer { BIO_free(bio) }
            return try body(bio)
        }
    }

    /// Everything written to the BIO so far.
    func contents() throws -> [UInt8] {
        let pending = Int(BIO_ctrl_pending(pointer))
        guard pending > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: pending)
        let read = BIO_read(pointer, &bytes, Int32(pending))
        guard read == Int32(pending) else { throw OpenSSLCall.failure("BIO_read") }
        return bytes
    }
}
