/// One handler for the sandbox's server: each request goes to the first look-alike whose
/// path prefix it starts with (APNs `/3/device/`, its admin endpoint, and the others as
/// they are added); anything else answers 404 with a JSON error.
public struct SandboxRouter: Sendable {
    /// A path prefix and the handler that answers under it.
    public struct Route: Sendable {
        public let prefix: String
        public let handler: @Sendable (HTTP2Request) -> HTTP2Answer

        public init(prefix: String, handler: @escaping @Sendable (HTTP2Request) -> HTTP2Answer) {
            self.prefix = prefix
            self.handler = handler
        }
    }

    private let routes: [Route]

    /// A router over `routes`, tried in order.
    public init(_ routes: [Route]) {
        self.routes = routes
    }

    /// The server's handler.
    @Sendable public func answer(to request: HTTP2Request) -> HTTP2Answer {
        for route in routes where request.path.hasPrefix(route.prefix) {
            return route.handler(request)
        }
        return .now(.json(404, ["error": "the sandbox has no route for \(request.method) \(request.path.prefix(200))"]))
    }

    /// ``answer(to:)``, waited for.
    @Sendable public func respond(to request: HTTP2Request) async -> HTTP2Response {
        await answer(to: request).response
    }
}

extension APNsSandbox {
    /// The routes of the APNs look-alike: pushes under `/3/`, the admin endpoint under `/admin/apns/`.
    public var routes: [SandboxRouter.Route] {
        [
            SandboxRouter.Route(prefix: "/3/", handler: answer),
            SandboxRouter.Route(prefix: APNsAdmin.prefix, handler: answer),
        ]
    }
}
