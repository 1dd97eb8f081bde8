import FoundationEssentials
import HeraldModel

/// Sends one push at a time to APNs (or the sandbox) and answers what came of it as a
/// ``PushVerdict``; the delivery worker runs many sends at once over one ``HTTP2Client``.
///
/// Every request carries the shared provider token; a 403 that refuses it is reported to
/// ``APNsProviderToken/rejected(_:_:)`` so that a later attempt signs anew.
public final class APNsClient: Sendable {
    /// The gateway and topic.
    public let configuration: APNsConfiguration
    private let providerToken: APNsProviderToken
    private let exchange: HTTP2Exchange

    /// A client for `configuration` signing with `providerToken` and sending through `exchange`
    /// (`{ try await http2Client.send($0) }` in production).
    public init(configuration: APNsConfiguration, providerToken: APNsProviderToken, exchange: @escaping HTTP2Exchange) {
        self.configuration = configuration
        self.providerToken = providerToken
        self.exchange = exchange
    }

    /// Sends `payload` to `deviceToken` as delivery `deliveryID` (its `apns-id`), which
    /// expires at `expiresAt` (see ``APNsRequest/make(deviceToken:deliveryID:payload:expiresAt:providerToken:configuration:now:)``).
    ///
    /// A push APNs would refuse for its size, collapse id or token is never sent. Transport
    /// failures become retries when `HTTP2ClientError.isRetryable`, final failures otherwise.
    /// Throws only when the task is cancelled.
    public func send(
        deviceToken: String, deliveryID: String, payload: PushPayload, expiresAt: Date?, now: Date
    ) async throws(CancellationError) -> PushVerdict {
        try await send { bearer throws(APNsRequest.Refusal) in
            try APNsRequest.make(
                deviceToken: deviceToken, deliveryID: deliveryID, payload: payload, expiresAt: expiresAt,
                providerToken: bearer, configuration: configuration, now: now)
        }
    }

    /// Sends the Live Activity push `payload` to the ActivityKit token `deviceToken` as delivery
    /// `deliveryID` (see ``APNsRequest/make(deviceToken:deliveryID:liveActivity:expiresAt:providerToken:configuration:)``),
    /// with the answers read as for an alert: a `pruned` verdict means the activity's token is dead.
    public func send(
        deviceToken: String, deliveryID: String, liveActivity payload: LiveActivityPayload, expiresAt: Date?
    ) async throws(CancellationError) -> PushVerdict {
        try await send { bearer throws(APNsRequest.Refusal) in
            try APNsRequest.make(
                deviceToken: deviceToken, deliveryID: deliveryID, liveActivity: payload, expiresAt: expiresAt,
                providerToken: bearer, configuration: configuration)
        }
    }

    /// Signs, builds the request with `make` (a refusal never reaches APNs) and sends it.
    private func send(
        _ make: (String) throws(APNsRequest.Refusal) -> HTTP2Request
    ) async throws(CancellationError) -> PushVerdict {
        let bearer: String
        do {
            bearer = try providerToken.current()
        } catch {
            return .retry(reason: "ProviderTokenUnavailable", retryAfter: nil)
        }
        let request: HTTP2Request
        do throws(APNsRequest.Refusal) {
            request = try make(bearer)
        } catch {
            return error.prunesDevice ? .pruned(reason: error.reason) : .failed(reason: error.reason)
        }
        let response: HTTP2Response
        do {
            response = try await exchange(request)
        } catch let error as HTTP2ClientError {
            let reason = "Transport: \(error.kind)"
            return error.isRetryable ? .retry(reason: reason, retryAfter: nil) : .failed(reason: reason)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            return .retry(reason: "Transport: \(type(of: error))", retryAfter: nil)
        }
        return verdict(for: response, bearer: bearer).answered(response.status)
    }

    /// The verdict on APNs's answer to a request signed with `bearer`.
    private func verdict(for response: HTTP2Response, bearer: String) -> PushVerdict {
        let reason = Self.reason(in: response.body)
        let described = reason ?? "HTTP \(response.status)"
        switch APNsResponseTable.action(status: response.status, reason: reason) {
        case .sent:
            return .sent(providerMessageID: response.header("apns-id"))
        case .prune:
            return .pruned(reason: described)
        case .refreshProviderToken(let rejection):
            providerToken.rejected(bearer, rejection)
            return .retry(reason: described, retryAfter: nil)
        case .retry:
            return .retry(reason: described, retryAfter: response.header("retry-after"))
        case .fail:
            return .failed(reason: described)
        }
    }

    private struct ErrorBody: Decodable {
        var reason: String?
    }

    /// The `reason` of an error body (`{"reason":"BadDeviceToken"}`), when there is one.
    private static func reason(in body: [UInt8]) -> String? {
        guard !body.isEmpty, let decoded = try? JSONDecoder().decode(ErrorBody.self, from: Data(body)),
            let reason = decoded.reason, !reason.isEmpty
        else { return nil }
        return String(reason.prefix(64))
    }
}
