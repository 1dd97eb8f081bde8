import HeraldKit

/// Device storage kept in memory; survives as long as the object, like storage across launches.
@MainActor public final class InMemoryKeyValueStore {
    public var values: [String: String]

    public init(_ values: [String: String] = [:]) {
        self.values = values
    }

    public var store: KeyValueStore {
        KeyValueStore(
            string: { [self] key in values[key] },
            setString: { [self] value, key in values[key] = value }
        )
    }
}
