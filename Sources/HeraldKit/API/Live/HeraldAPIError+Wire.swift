import Foundation
import HeraldModel

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension HeraldAPIError {
    /// The error for an HTTP answer that is not a success: 401 unauthenticated, 404 not found,
    /// 5xx server, any other status rejected, with the server's `error.code` and `message`.
    init(status: Int, body: Data) {
        let envelope = try? WireJSON.decoder.decode(ErrorEnvelope.self, from: body)
        let code = envelope?.error.code
        let message = envelope?.error.message
        switch status {
        case 401:
            self.init(kind: .unauthenticated, status: status, code: code, message: message ?? "Sign in again.")
        case 404:
            self.init(kind: .notFound, status: status, code: code, message: message ?? "Not found.")
        case 500...:
            self.init(kind: .server, status: status, code: code, message: message ?? "The server failed (\(status)).")
        default:
            self.init(
                kind: .rejected, status: status, code: code,
                message: message ?? "The server refused the request (\(status)).")
        }
    }

    /// The error for a transport failure, or `CancellationError` when the request was cancelled.
    static func transport(_ error: any Error) -> any Error {
        if error is CancellationError || error is HeraldAPIError { return error }
        guard let urlError = error as? URLError else {
            return HeraldAPIError(kind: .server, message: "The request failed: \(error)")
        }
        switch urlError.code {
        case .cancelled:
            return CancellationError()
        case .timedOut:
            return HeraldAPIError.timeout()
        case .notConnectedToInternet, .cannotConnectToHost, .networkConnectionLost, .cannotFindHost, .dnsLookupFailed,
            .internationalRoamingOff, .dataNotAllowed, .callIsActive:
            return HeraldAPIError.offline("The server could not be reached (\(urlError.code.rawValue)).")
        default:
            return HeraldAPIError(kind: .server, message: "The request failed (URL error \(urlError.code.rawValue)).")
        }
    }

    /// The error for a success whose body could not be read.
    static func unreadable(_ type: Any.Type, status: Int, _ error: any Error) -> HeraldAPIError {
        HeraldAPIError(kind: .server, status: status, message: "The server's answer is not a \(type): \(error)")
    }
}
