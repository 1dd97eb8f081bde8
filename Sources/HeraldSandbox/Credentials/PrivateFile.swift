import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Files that have their mode from the first byte on: by default only their owner may read them
/// (key material the sandbox keeps).
package enum PrivateFile {
    /// Replaces `path` with `data`: written to a new file created with `mode` beside it, then
    /// renamed over `path`, so no reader ever sees a partial file or one other users could open.
    /// The descriptor is closed on exec, so a process started meanwhile does not keep the file
    /// open for writing (which would make running it, if it is a program, fail: ETXTBSY).
    package static func write(_ data: some DataProtocol, to path: String, mode: mode_t = 0o600) throws {
        let temporary = path + ".tmp-" + UUID().uuidString
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw failure("cannot create \(temporary)") }
        var written = true
        let bytes = Array(data)
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                written = false
                break
            }
            offset += count
        }
        let closed = close(fd) == 0
        guard written, closed, rename(temporary, path) == 0 else {
            let error = failure("cannot write \(path)")
            unlink(temporary)
            throw error
        }
    }

    private static func failure(_ what: String) -> SandboxError {
        SandboxError(.credentials, "\(what): \(String(cString: strerror(errno)))")
    }
}
