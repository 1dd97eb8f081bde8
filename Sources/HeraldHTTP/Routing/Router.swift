/// Matches requests to handlers by method and path pattern ("/v1/items/{id}") and runs
/// middleware around the result. Literal segments win over parameters.
///
/// - Unknown path: 404 `not_found`. Known path, other method: 405 `method_not_allowed`
///   with `Allow`. HEAD is answered by the GET route when there is no HEAD route.
/// - Middleware runs in the order added, after matching (so `context.route` is set),
///   also for 404 and 405.
/// - A thrown `HTTPError` becomes its JSON response; any other error is logged at error
///   level and becomes 500 `internal_error`.
public struct Router: Responder {
    public typealias Handler = @Sendable (Request, RequestContext) async throws -> Response

    struct Endpoint: Sendable {
        var pattern: String
        var parameterNames: [String]
        var handler: Handler
    }

    struct Node: Sendable {
        var literals: [String: Node] = [:]
        /// Zero or one child for a `{parameter}` segment (an array gives the recursion a box).
        var parameter: [Node] = []
        var endpoints: [HTTPMethod: Endpoint] = [:]
        var methodOrder: [HTTPMethod] = []
    }

    private var root = Node()
    private var middlewares: [any Middleware] = []
    private var routeList: [(method: HTTPMethod, pattern: String)] = []

    public init() {}

    /// Adds a route. Pattern segments written `{name}` match any one segment and are
    /// passed as `context.parameters[name]`. Adding the same method and pattern twice
    /// replaces the handler.
    public mutating func add(_ method: HTTPMethod, _ pattern: String, _ handler: @escaping Handler) {
        let segments = Self.segments(of: pattern)
        var names: [String] = []
        for segment in segments where Self.isParameter(segment) {
            names.append(String(segment.dropFirst().dropLast()))
        }
        let endpoint = Endpoint(pattern: pattern, parameterNames: names, handler: handler)
        Self.insert(endpoint, method: method, segments: segments[...], into: &root)
        routeList.removeAll { $0.method == method && $0.pattern == pattern }
        routeList.append((method: method, pattern: pattern))
    }

    /// Adds middleware; it runs after any added before it.
    public mutating func add(middleware: any Middleware) {
        middlewares.append(middleware)
    }

    /// Adds the routes `build` adds to a group whose `middleware` (authentication, say) runs
    /// around each of its handlers, after the router's own middleware.
    public mutating func group(_ middleware: any Middleware..., build: (inout RouterGroup) -> Void) {
        var group = RouterGroup(middleware: middleware)
        build(&group)
        for route in group.routes {
            let chain = group.middleware
            let handler = route.handler
            add(route.method, route.pattern) { request, context in
                try await RouterGroup.run(chain[...], request, context, handler)
            }
        }
    }

    /// Every route, in the order added.
    public var routes: [(method: HTTPMethod, pattern: String)] { routeList }

    /// Runs the middleware (logging, metrics) around an answer the transport gave by itself.
    public func transportAnswered(_ request: Request, with response: Response, context: RequestContext) async {
        _ = try? await run(0, request, context) { _, _ in response }
    }

    public func respond(to request: Request, context: RequestContext) async throws -> Response {
        var context = context
        let final: Handler
        switch resolve(request.method, rawPath: request.rawPath) {
        case .matched(let endpoint, let parameters):
            context.route = endpoint.pattern
            context.parameters = parameters
            final = endpoint.handler
        case .methodNotAllowed(let allowed, let pattern):
            context.route = pattern
            final = { _, _ in throw HTTPError.methodNotAllowed(allowed: allowed) }
        case .notFound:
            context.route = nil
            final = { request, _ in throw HTTPError.notFound("No route for \(request.path).") }
        }
        do {
            return try await run(0, request, context, final)
        } catch {
            return ErrorMapping.response(for: error, context: context)
        }
    }

    private func run(_ index: Int, _ request: Request, _ context: RequestContext, _ final: Handler) async throws
        -> Response
    {
        guard index < middlewares.count else { return try await final(request, context) }
        return try await middlewares[index].handle(request, context: context) { request, context in
            try await self.run(index + 1, request, context, final)
        }
    }

    // MARK: Matching

    enum Resolution {
        case matched(Endpoint, [String: String])
        case methodNotAllowed([HTTPMethod], pattern: String?)
        case notFound
    }

    /// Matches the still-encoded path: it is split at its slashes first and each segment decoded
    /// after, so `%2F` is part of a segment, never a separator.
    func resolve(_ method: HTTPMethod, rawPath: String) -> Resolution {
        let segments = Self.segments(of: rawPath).map {
            $0.utf8.contains(UInt8(ascii: "%")) ? Substring(URLDecoding.decodePath($0)) : $0
        }
        var candidates: [(node: Node, values: [String])] = []
        var values: [String] = []
        Self.collect(segments[...], node: root, values: &values, into: &candidates)
        guard !candidates.isEmpty else { return .notFound }

        for candidate in candidates {
            let endpoint =
                candidate.node.endpoints[method]
                ?? (method == .HEAD ? candidate.node.endpoints[.GET] : nil)
            if let endpoint {
                var parameters: [String: String] = [:]
                for (name, value) in zip(endpoint.parameterNames, candidate.values) {
                    parameters[name] = value
                }
                return .matched(endpoint, parameters)
            }
        }
        var allowed: [HTTPMethod] = []
        for candidate in candidates {
            for method in candidate.node.methodOrder where !allowed.contains(method) {
                allowed.append(method)
            }
        }
        if allowed.contains(.GET) && !allowed.contains(.HEAD) {
            allowed.append(.HEAD)
        }
        let first = candidates[0].node
        return .methodNotAllowed(allowed, pattern: first.methodOrder.first.flatMap { first.endpoints[$0]?.pattern })
    }

    /// Depth-first, literal before parameter, every node with endpoints that matches.
    private static func collect(
        _ segments: ArraySlice<Substring>,
        node: Node,
        values: inout [String],
        into candidates: inout [(node: Node, values: [String])]
    ) {
        guard let segment = segments.first else {
            if !node.endpoints.isEmpty { candidates.append((node, values)) }
            return
        }
        let rest = segments.dropFirst()
        if let literal = node.literals[String(segment)] {
            collect(rest, node: literal, values: &values, into: &candidates)
        }
        if let parameter = node.parameter.first {
            values.append(String(segment))
            collect(rest, node: parameter, values: &values, into: &candidates)
            values.removeLast()
        }
    }

    private static func insert(
        _ endpoint: Endpoint, method: HTTPMethod, segments: ArraySlice<Substring>, into node: inout Node
    ) {
        guard let segment = segments.first else {
            if node.endpoints[method] == nil { node.methodOrder.append(method) }
            node.endpoints[method] = endpoint
            return
        }
        let rest = segments.dropFirst()
        if isParameter(segment) {
            if node.parameter.isEmpty { node.parameter = [Node()] }
            insert(endpoint, method: method, segments: rest, into: &node.parameter[0])
        } else {
            insert(endpoint, method: method, segments: rest, into: &node.literals[String(segment), default: Node()])
        }
    }

    static func segments(of path: String) -> [Substring] {
        path.split(separator: "/", omittingEmptySubsequences: true)
    }

    static func isParameter(_ segment: Substring) -> Bool {
        segment.count > 2 && segment.first == "{" && segment.last == "}"
    }
}

/// Routes that share middleware (see ``Router/group(_:build:)``).
public struct RouterGroup {
    fileprivate let middleware: [any Middleware]
    fileprivate var routes: [(method: HTTPMethod, pattern: String, handler: Router.Handler)] = []

    fileprivate init(middleware: [any Middleware]) {
        self.middleware = middleware
    }

    /// Adds a route, as ``Router/add(_:_:_:)`` does, behind the group's middleware.
    public mutating func add(_ method: HTTPMethod, _ pattern: String, _ handler: @escaping Router.Handler) {
        routes.append((method, pattern, handler))
    }

    fileprivate static func run(
        _ chain: ArraySlice<any Middleware>, _ request: Request, _ context: RequestContext,
        _ handler: @escaping Router.Handler
    ) async throws -> Response {
        guard let first = chain.first else { return try await handler(request, context) }
        return try await first.handle(request, context: context) { request, context in
            try await run(chain.dropFirst(), request, context, handler)
        }
    }
}
