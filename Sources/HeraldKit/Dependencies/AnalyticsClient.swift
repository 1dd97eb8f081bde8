import HeraldModel

/// Records product analytics events (`notification_banner_shown`, ...).
public struct AnalyticsClient: Sendable {
    public var log: @MainActor @Sendable (_ name: String, _ properties: [String: JSONValue]) -> Void

    public init(log: @escaping @MainActor @Sendable (_ name: String, _ properties: [String: JSONValue]) -> Void) {
        self.log = log
    }

    /// Records `name` without properties.
    @MainActor public func log(_ name: String) { log(name, [:]) }
}
