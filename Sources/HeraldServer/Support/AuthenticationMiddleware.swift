import FoundationEssentials
import HeraldHTTP
import HeraldStore

/// Who called a user route: the user, and when their token expires (a live stream ends then).
struct UserIdentity: Sendable {
    let id: String
    let expires: Date
}

/// Which publisher key called a publisher route (already within its call rate).
struct PublisherIdentity: Sendable {
    let key: APIKeyRecord
}

/// Routes behind it need a valid user token (see ``Authenticator/session(_:)``): the identity is
/// put into the request context, else the answer is 401 with `WWW-Authenticate`.
struct UserAuthentication: Middleware {
    let auth: Authenticator

    func handle(
        _ request: Request, context: RequestContext,
        next: @Sendable (Request, RequestContext) async throws -> Response
    ) async throws -> Response {
        let session = try auth.session(request)
        var context = context
        context[UserIdentity.self] = UserIdentity(id: session.user, expires: session.expires)
        return try await next(request, context)
    }
}

/// Routes behind it need a valid publisher API key within its call rate (see
/// ``Authenticator/publisher(_:)``): 401, or 429 with `Retry-After`, otherwise.
struct PublisherAuthentication: Middleware {
    let auth: Authenticator

    func handle(
        _ request: Request, context: RequestContext,
        next: @Sendable (Request, RequestContext) async throws -> Response
    ) async throws -> Response {
        let key = try await auth.publisher(request)
        var context = context
        context[PublisherIdentity.self] = PublisherIdentity(key: key)
        return try await next(request, context)
    }
}

extension RequestContext {
    /// The caller of a route behind ``UserAuthentication``.
    var user: UserIdentity {
        get throws {
            guard let identity = self[UserIdentity.self] else { throw Self.unauthenticatedRoute("user") }
            return identity
        }
    }

    /// The caller of a route behind ``PublisherAuthentication``.
    var publisher: APIKeyRecord {
        get throws {
            guard let identity = self[PublisherIdentity.self] else { throw Self.unauthenticatedRoute("publisher") }
            return identity.key
        }
    }

    /// A handler read an identity its route's group does not establish: a wiring bug.
    private static func unauthenticatedRoute(_ kind: String) -> HTTPError {
        HTTPError(500, code: "internal_error", message: "This route reads a \(kind) it was not given.")
    }
}
