import Foundation
import HeraldStore

/// Opens the store a database URL names.
public enum StoreFactory {
    public static func open(url: String) throws -> any HeraldStore {
        try SQLiteStore.open(url: url)
    }
}
