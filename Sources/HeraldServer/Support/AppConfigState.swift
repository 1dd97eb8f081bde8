import FoundationEssentials
import HeraldModel
import HeraldServerModel
import HeraldStore
import Synchronization

/// The published app-config document, read once at start and replaced on `PUT /v1/app-config`.
final class AppConfigState: Sendable {
    private let document: Mutex<AppConfigDocument>

    init(_ document: AppConfigDocument?) {
        self.document = Mutex(document ?? AppConfigDocument())
    }

    var current: AppConfigDocument { document.withLock { $0 } }

    /// The catalog in force: the published one, else the default.
    var catalog: Catalog { document.withLock { $0.catalog ?? .standard } }

    /// The push policy's rules in force: the catalog, frequency caps and digest categories.
    var rules: PushRules { document.withLock { PushRules($0) } }

    func replace(with newDocument: AppConfigDocument) {
        document.withLock { $0 = newDocument }
    }
}
