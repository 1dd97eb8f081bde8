import FoundationEssentials
import HeraldHTTP
import HeraldModel

/// Remote app config: public read with the update decision for the caller's install,
/// publisher read of the stored document with its `ETag`, and publisher write, conditional on
/// `If-Match` so two people editing at once cannot overwrite each other unseen.
struct AppConfigRoutes {
    let services: Services

    func register(in router: inout Router) {
        router.add(.GET, "/v1/app-config", read)
        router.group(PublisherAuthentication(auth: services.auth)) { group in
            group.add(.GET, "/v1/app-config/document", document)
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

    /// The stored document (`{}` before the first write) with its version as a strong `ETag`.
    @Sendable func document(_ request: Request, _ context: RequestContext) async throws -> Response {
        let record = try await services.store.appConfigRecord()
        var response = try Response.json(record.document ?? AppConfigDocument())
        response.headers["ETag"] = Self.etag(record.version)
        return response
    }

    /// Replaces the document. With `If-Match: "<version>"` only over that version (412
    /// `app_config_conflict` with the current `ETag` otherwise); `If-Match: *` or none: whatever stands.
    @Sendable func replace(_ request: Request, _ context: RequestContext) async throws -> Response {
        let document = try JSONBody.decode(AppConfigDocument.self, from: request)
        try document.validate()
        let ifVersion = Self.ifVersion(request.headers["If-Match"])
        if case .some(.none) = ifVersion { throw try await conflict() }
        guard
            let stored = try await services.store.setAppConfig(
                document, at: services.now(), ifVersion: ifVersion ?? nil)
        else { throw try await conflict() }
        services.appConfig.replace(with: document)
        var response = try Response.json(document)
        response.headers["ETag"] = Self.etag(stored.version)
        return response
    }

    private func conflict() async throws -> HTTPError {
        let current = try await services.store.appConfigRecord()
        var headers = HTTPHeaders()
        headers["ETag"] = Self.etag(current.version)
        return HTTPError(
            412, code: "app_config_conflict",
            message: "The app config changed since you read it (it is now version \(current.version)). "
                + "Load it again, reapply your edit and save.",
            headers: headers)
    }

    static func etag(_ version: Int) -> String { "\"\(version)\"" }

    /// `nil` without a condition (no header, or `*`); `.some(nil)` for a condition no version
    /// can meet (a weak or foreign tag); else the version named.
    static func ifVersion(_ header: String?) -> Int?? {
        guard let header = header?.trimming(where: \.isSpaceOrTab), !header.isEmpty, header != "*" else {
            return nil
        }
        guard header.count >= 3, header.first == "\"", header.last == "\"",
            let version = Int(header.dropFirst().dropLast()), version >= 0
        else { return .some(nil) }
        return .some(version)
    }
}
