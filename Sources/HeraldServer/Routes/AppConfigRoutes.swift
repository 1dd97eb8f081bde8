import Foundation
import HeraldHTTP
import HeraldModel

/// Remote app config: public read with the update decision for the caller's install,
/// publisher write.
struct AppConfigRoutes {
    let services: Services

    func register(in router: inout Router) {
        router.add(.GET, "/v1/app-config", read)
        router.group(PublisherAuthentication(auth: services.auth)) { group in
            group.add(.PUT, "/v1/app-config", replace)
        }
    }

    @Sendable func read(_ request: Request, _ context: RequestContext) async throws -> Response {
        let document = services.appConfig.current
        var update: UpdateDecision?
        if let rawPlatform = request.query["platform"], !rawPlatform.isEmpty {
            guard let platform = DevicePlatform(rawValue: rawPlatform) else {
                throw HTTPError(400, code: "invalid_platform", message: "`platform` must be ios or android.")
            }
            let version = request.query["version"].flatMap { $0.isEmpty ? nil : $0 }
            if let version, SemanticVersion(version) == nil {
                throw HTTPError(
                    400, code: "invalid_version", message: "`version` must be a semantic version such as 1.7.0.")
            }
            let installSource = request.query["installSource"].flatMap { $0.isEmpty ? nil : $0 }
            update = document.decision(platform: platform, version: version, installSource: installSource)
        }
        return try Response.json(
            AppConfigResponse(
                update: update,
                deepLinks: document.deepLinks ?? DeepLinkPolicy(allowedPrefixes: []),
                catalog: document.catalog ?? .standard))
    }

    @Sendable func replace(_ request: Request, _ context: RequestContext) async throws -> Response {
        let document = try JSONBody.decode(AppConfigDocument.self, from: request)
        try document.validate()
        try await services.store.setAppConfig(document, at: services.now())
        services.appConfig.replace(with: document)
        return try Response.json(document)
    }
}
