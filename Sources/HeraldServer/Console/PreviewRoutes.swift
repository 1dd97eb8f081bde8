import FoundationEssentials
import HeraldHTTP
import HeraldServerModel

/// `POST /v1/previews`: a draft notification (a publish without its audience) as every surface
/// would show it (``NotificationPreview``), checked as a publish is: bad input is the same 400,
/// naming the field. Nothing is stored.
struct PreviewRoutes {
    let services: Services

    func register(in router: inout Router) {
        router.group(PublisherAuthentication(auth: services.auth)) { group in
            group.add(.POST, "/v1/previews", preview)
        }
    }

    @Sendable func preview(_ request: Request, _ context: RequestContext) async throws -> Response {
        let draft = try JSONBody.decode(NotificationDraft.self, from: request)
        try draft.validate()
        let document = services.appConfig.current
        try PushSizeCheck.check(draft, catalog: document.catalog ?? .standard)
        return try Response.json(
            NotificationPreview(
                draft, catalog: document.catalog ?? .standard,
                allowedPrefixes: document.deepLinks?.allowedPrefixes ?? [], now: services.now()))
    }
}
