import HeraldKit
import HeraldModel

/// `GET /v1/app-config` as the server answers it: the stored document's update decision for
/// this install (the server's own rule, `AppConfigDocument.decision`), the deep-link allowlist
/// and the catalog. The install is described as `HeraldAPI.live` describes it, from
/// ``PlatformFacts``; an unknown install source sends no installer info. Records each call.
@MainActor public final class FakeAppConfigBackend {
    /// What a publisher stored with `PUT /v1/app-config`.
    public var document: AppConfigDocument
    public private(set) var calls = 0

    public init(_ document: AppConfigDocument = AppConfigDocument()) {
        self.document = document
    }

    /// The answer for an install described by `platform`.
    public func response(for platform: PlatformFacts) -> AppConfigResponse {
        AppConfigResponse(
            update: document.decision(
                platform: platform.platform, version: platform.appVersion,
                installSource: platform.installSource?.queryValue),
            deepLinks: document.deepLinks ?? DeepLinkPolicy(allowedPrefixes: []),
            catalog: document.catalog ?? .standard)
    }

    /// `api.appConfig` for an install described by `platform`.
    public func appConfig(for platform: PlatformFacts) -> @MainActor @Sendable () async throws -> AppConfigResponse {
        { [self] in
            calls += 1
            return response(for: platform)
        }
    }
}
