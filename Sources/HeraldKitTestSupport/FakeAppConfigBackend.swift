import HeraldKit
import HeraldModel

/// `GET /v1/app-config` as the server answers it: the stored document's update decision for
/// this install (the server's own rule, `AppConfigDocument.decision`), the deep-link allowlist
/// and the catalog. The install is described as `HeraldAPI.live` describes it, from
/// ``PlatformFacts``; an unknown install source sends no installer info, an empty version none.
/// Any other installed version that is not a semantic version is refused with 400
/// `invalid_version`, as the server does.
public struct FakeAppConfigBackend: Sendable {
    /// What a publisher stored with `PUT /v1/app-config`.
    public var document: AppConfigDocument

    public init(_ document: AppConfigDocument = AppConfigDocument()) {
        self.document = document
    }

    /// The answer for an install described by `platform`.
    public func response(for platform: PlatformFacts) throws -> AppConfigResponse {
        let version = platform.appVersion.isEmpty ? nil : platform.appVersion
        if let version, SemanticVersion(version) == nil {
            throw HeraldAPIError(
                kind: .rejected, status: 400, code: "invalid_version",
                message: "`version` must be a semantic version such as 1.7.0.")
        }
        return AppConfigResponse(
            update: document.decision(
                platform: platform.platform, version: version,
                installSource: platform.installSource?.queryValue),
            deepLinks: document.deepLinks ?? DeepLinkPolicy(allowedPrefixes: []),
            catalog: document.catalog ?? .standard)
    }
}
