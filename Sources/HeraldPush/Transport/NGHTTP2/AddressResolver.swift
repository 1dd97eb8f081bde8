import Dispatch
import FoundationEssentials
import HeraldHTTP2

/// Host names to addresses with `getaddrinfo`, which blocks: lookups run on Dispatch's pool, never
/// on the loop's thread, so one slow lookup delays no other connection (IP literals need none:
/// see `SocketAddress(literal:port:)`).
enum AddressResolver {
    /// Looks the host name of `origin` up on another thread and calls `done` there with its
    /// addresses.
    static func lookUp(_ origin: Origin, done: @escaping @Sendable (Result<[SocketAddress], HTTP2ClientError>) -> Void)
    {
        DispatchQueue.global().async {
            done(
                SocketAddress.resolve(host: origin.host, port: origin.port).mapError { failure in
                    HTTP2ClientError(
                        kind: .connectionRefused, code: Int(failure.code), library: "getaddrinfo",
                        message: "Could not resolve host \(origin.host): \(failure.message)")
                })
        }
    }
}
