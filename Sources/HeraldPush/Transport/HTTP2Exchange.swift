/// Sends one request and answers its response, whatever its status; throws for transport
/// failures only (`HTTP2ClientError`, or `CancellationError`).
///
/// `HTTP2Client.send` in production; tests pass fakes as strict as the providers.
public typealias HTTP2Exchange = @Sendable (HTTP2Request) async throws -> HTTP2Response
