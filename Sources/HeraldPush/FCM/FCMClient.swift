import FoundationEssentials
import HeraldModel

/// Sends one push at a time to FCM HTTP v1 (or the sandbox) and answers what came of it as a
/// ``PushVerdict``; the delivery worker runs many sends at once over one ``HTTP2Client``.
///
/// Every request carries the shared OAuth2 access token; a 401 that refuses it is reported to
/// ``FCMAccessTokenCache/rejected(_:)`` so that a later attempt exchanges anew.
public final class FCMClient: PushClient {
    /// The endpoint and project.
    public let configuration: FCMConfiguration
    private let accessTokens: FCMAccessTokenCache
    private let exchange: HTTP2Exchange

    /// A client for `configuration` authorised by `accessTokens` and sending through `exchange`
    /// (`{ try await http2Client.send($0) }` in production).
    public init(configuration: FCMConfiguration, accessTokens: FCMAccessTokenCache, exchange: @escaping HTTP2Exchange) {
        self.configuration = configuration
        self.accessTokens = accessTokens
        self.exchange = exchange
    }

    /// Sends `payload` to the registration token `deviceToken`, expiring at `expiresAt` (see
    /// ``FCMSendRequest/make(deviceToken:payload:expiresAt:accessToken:configuration:now:)``).
    /// FCM has no client-chosen message id, so `deliveryID` is not sent; the verdict's provider
    /// message id is FCM's `name` (`projects/{project}/messages/{id}`).
    ///
    /// A push FCM would refuse for its size is never sent. A failed token exchange and transport
    /// failures become retries (final failures when `HTTP2ClientError.isRetryable` says so).
    /// Throws only when the task is cancelled.
    public func send(
        deviceToken: String, deliveryID: String, payload: PushPayload, expiresAt: Date?, now: Date
    ) async throws(CancellationError) -> PushVerdict {
        let bearer: String
        do {
            bearer = try await accessTokens.accessToken()
        } catch {
            if let verdict = try Self.transportVerdict(error) { return verdict }
            let detail = (error as? PushAuthError).map { ": \($0.identifier)" } ?? ""
            return .retry(reason: "AccessTokenUnavailable\(detail)", retryAfter: nil)
        }
        let request: HTTP2Request
        do throws(FCMSendRequest.Refusal) {
            request = try FCMSendRequest.make(
                deviceToken: deviceToken, payload: payload, expiresAt: expiresAt, accessToken: bearer,
                configuration: configuration, now: now)
        } catch {
            return .failed(reason: error.reason)
        }
        let response: HTTP2Response
        do {
            response = try await exchange(request)
        } catch {
            return try Self.transportVerdict(error) ?? .retry(reason: "Transport: \(type(of: error))", retryAfter: nil)
        }
        return verdict(for: response, bearer: bearer).answered(response.status)
    }

    /// The verdict on a transport error (nil for any other error); rethrows cancellation.
    private static func transportVerdict(_ error: any Error) throws(CancellationError) -> PushVerdict? {
        if error is CancellationError { throw CancellationError() }
        guard let error = error as? HTTP2ClientError else { return nil }
        let reason = "Transport: \(error.kind)"
        return error.isRetryable ? .retry(reason: reason, retryAfter: nil) : .failed(reason: reason)
    }

    /// The verdict on FCM's answer to a request authorised with `bearer`.
    private func verdict(for response: HTTP2Response, bearer: String) -> PushVerdict {
        let error = FCMErrorBody(response.body)
        let described = error?.reason ?? "HTTP \(response.status)"
        switch FCMResponseTable.action(status: response.status, error: error) {
        case .sent:
            return .sent(providerMessageID: Self.messageName(in: response.body))
        case .prune:
            return .pruned(reason: described)
        case .refreshAccessToken:
            accessTokens.rejected(bearer)
            return .retry(reason: described, retryAfter: nil)
        case .retry:
            let quotaWait =
                error?.errorCode == "QUOTA_EXCEEDED" ? String(FCMResponseTable.quotaExceededRetryAfter) : nil
            return .retry(reason: described, retryAfter: response.header("retry-after") ?? quotaWait)
        case .fail:
            return .failed(reason: described)
        }
    }

    private struct SentBody: Decodable {
        var name: String?
    }

    /// The `name` of a success body (`{"name": "projects/p/messages/0:1500415314455276%31bd1c9631bd1c96"}`).
    private static func messageName(in body: [UInt8]) -> String? {
        guard let decoded = try? JSONDecoder().decode(SentBody.self, from: Data(body)), let name = decoded.name,
            !name.isEmpty
        else { return nil }
        return String(name.prefix(200))
    }
}
