import Foundation

/// One HTTP request to a push provider or its token endpoint, independent of the client.
public struct PushHTTPRequest: Sendable, Equatable {
    /// `GET`, `POST`, ...
    public var method: String
    /// The absolute URL.
    public var url: URL
    /// Header fields by lowercase name (HTTP/2 spells them so).
    public var headers: [String: String]
    /// The body; empty for none.
    public var body: [UInt8]

    public init(method: String, url: URL, headers: [String: String] = [:], body: [UInt8] = []) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// The answer to a ``PushHTTPRequest``.
public struct PushHTTPResponse: Sendable, Equatable {
    /// The status code.
    public var status: Int
    /// Header fields by lowercase name.
    public var headers: [String: String]
    /// The body.
    public var body: [UInt8]

    public init(status: Int, headers: [String: String] = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// Sends one request and answers its response; throws for transport failures only.
public typealias PushHTTPExchange = @Sendable (PushHTTPRequest) async throws -> PushHTTPResponse
