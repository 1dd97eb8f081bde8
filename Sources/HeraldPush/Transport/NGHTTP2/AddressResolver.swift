import Foundation
import HeraldHTTP2

#if canImport(Glibc)
    import Glibc
#endif

/// Host names to addresses with `getaddrinfo`, which blocks: lookups run on Dispatch's pool, never
/// on the loop's thread, so one slow lookup delays no other connection (IP literals need none:
/// see `SocketAddress(literal:port:)`).
enum AddressResolver {
    /// Looks the host name of `origin` up on another thread and calls `done` there with its
    /// addresses.
    static func lookUp(_ origin: Origin, done: @escaping @Sendable (Result<[SocketAddress], HTTP2ClientError>) -> Void)
    {
        DispatchQueue.global().async { done(blockingLookUp(origin)) }
    }

    private static func blockingLookUp(_ origin: Origin) -> Result<[SocketAddress], HTTP2ClientError> {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_ADDRCONFIG | AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let result = getaddrinfo(origin.host, String(origin.port), &hints, &list)
        defer { if let list { freeaddrinfo(list) } }
        guard result == 0 else {
            return .failure(
                HTTP2ClientError(
                    kind: .connectionRefused, code: Int(result), library: "getaddrinfo",
                    message: "Could not resolve host \(origin.host): \(String(cString: gai_strerror(result)))"))
        }
        var addresses: [SocketAddress] = []
        var entry = list
        while let current = entry {
            if let address = current.pointee.ai_addr {
                addresses.append(SocketAddress(address, length: current.pointee.ai_addrlen))
            }
            entry = current.pointee.ai_next
        }
        return .success(addresses)
    }
}
