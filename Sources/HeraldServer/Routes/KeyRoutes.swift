import FoundationEssentials
import HeraldHTTP
import HeraldModel
import HeraldStore

/// Publisher API keys over HTTP, as `herald keys` does in the shell (the console's Keys page):
/// list, create (the secret is in the answer once; only its hash is stored), revoke.
struct KeyRoutes {
    let services: Services

    static let maxNameLength = 100

    func register(in router: inout Router) {
        router.group(PublisherAuthentication(auth: services.auth)) { group in
            group.add(.GET, "/v1/keys", list)
            group.add(.POST, "/v1/keys", create)
            group.add(.DELETE, "/v1/keys/{id}", revoke)
        }
    }

    struct CreateRequest: Decodable {
        var name: String
    }

    @Sendable func list(_ request: Request, _ context: RequestContext) async throws -> Response {
        let keys = try await services.store.apiKeys()
        return try Response.json(KeyList(items: keys.map { KeyItem($0, key: nil) }))
    }

    @Sendable func create(_ request: Request, _ context: RequestContext) async throws -> Response {
        let body = try JSONBody.decode(CreateRequest.self, from: request)
        let name = body.name.trimmingWhitespace()
        guard (1...Self.maxNameLength).contains(name.count),
            !name.unicodeScalars.contains(where: \.isControlOrFormat)
        else {
            throw HTTPError(
                400, code: "invalid_name",
                message: "`name` must be 1 to \(Self.maxNameLength) characters without control characters.",
                field: "name")
        }
        let (key, record) = APIKeys.generate(name: name, now: services.now())
        try await services.store.createAPIKey(record)
        return try Response.json(KeyItem(record, key: key), status: 201)
    }

    /// 204 once revoked (also when it already was); every server refuses the key within a second,
    /// and its console sessions end.
    @Sendable func revoke(_ request: Request, _ context: RequestContext) async throws -> Response {
        let id = context.parameter("id")
        switch try await services.store.revokeAPIKey(id: id, at: services.now()) {
        case .revoked, .alreadyRevoked:
            services.auth.keyRevoked(id: id)
            return .noContent()
        case .notFound: throw HTTPError(404, code: "not_found", message: "No API key has this id.")
        }
    }
}

struct KeyList: Encodable {
    var items: [KeyItem]
}

/// A key as its publishers see it; `key`, the secret, only in the answer that created it.
struct KeyItem: Encodable {
    var id: String
    var name: String
    var createdAt: Date
    var lastUsedAt: Date?
    var key: String?

    init(_ record: APIKeyRecord, key: String?) {
        id = record.id
        name = record.name
        createdAt = record.createdAt
        lastUsedAt = record.lastUsedAt
        self.key = key
    }
}
