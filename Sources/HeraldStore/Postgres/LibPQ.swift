import CPostgres

#if canImport(Glibc)
    import Glibc
#endif

/// libpq, loaded (`dlopen`) the first time a PostgreSQL database is opened rather than linked.
///
/// A server on SQLite, the default, so never maps libpq or what libpq links (Kerberos, LDAP,
/// SASL, GnuTLS): about 1 MiB of its idle memory, and it starts on a machine without libpq. The
/// functions are those `HERALD_LIBPQ_FUNCTIONS` in the shim lists, typed as libpq-fe.h declares
/// them; the library is loaded once and never unloaded.
enum LibPQ {
    /// The library's name as the dynamic loader finds it (libpq's major version 5 since PostgreSQL 8.2).
    static let libraryName = "libpq.so.5"

    fileprivate static let loaded = load(libraryName)

    /// libpq's functions, loading the library the first time; throws when it cannot be loaded.
    static func functions() throws(StoreError) -> herald_libpq {
        try loaded.get()
    }

    /// Loads `name` and finds every function Herald calls in it.
    static func load(_ name: String) -> Result<herald_libpq, StoreError> {
        guard let library = dlopen(name, RTLD_NOW | RTLD_LOCAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? "unknown reason"
            return .failure(
                StoreError(
                    code: .postgres,
                    message: "PostgreSQL needs libpq (\(name)), which could not be loaded: \(reason); "
                        + "on Debian or Ubuntu, install it with: apt-get install libpq5"))
        }
        let table = UnsafeMutablePointer<herald_libpq>.allocate(capacity: 1)
        defer { table.deallocate() }
        if let missing = herald_libpq_resolve(library, table) {
            dlclose(library)
            return .failure(
                StoreError(
                    code: .postgres,
                    message: "\(name) is not a libpq Herald can use: it has no \(String(cString: missing))"))
        }
        // Every member is set: the table is whole.
        return .success(table.move())
    }

    /// `PQconnectdbParams` with `parameters` (keyword, value) in order (a later keyword wins over an earlier
    /// one) and the `dbname` value expanded as a connection URL. nil when libpq could not
    /// allocate a connection.
    static func connect(_ parameters: [(String, String)]) throws(StoreError) -> OpaquePointer? {
        let pq = try functions()
        let keywords = parameters.map { copy($0.0) } + [nil]
        let values = parameters.map { copy($0.1) } + [nil]
        defer {
            for copy in keywords + values { free(copy) }
        }
        return keywords.map { $0.map { UnsafePointer($0) } }.withUnsafeBufferPointer { keywords in
            values.map { $0.map { UnsafePointer($0) } }.withUnsafeBufferPointer { values in
                pq.PQconnectdbParams(keywords.baseAddress, values.baseAddress, 1)
            }
        }
    }

    /// A C copy of `text` for libpq, freed by the caller.
    static func copy(_ text: String) -> UnsafeMutablePointer<CChar> {
        guard let copy = strdup(text) else { fatalError("out of memory copying a PostgreSQL parameter") }
        return copy
    }

    /// Stops libpq printing the server's NOTICE messages (e.g. "drop cascades to ...") to
    /// stderr; errors still arrive as failed results.
    static func ignoreNotices(_ connection: OpaquePointer) {
        _ = libpq.PQsetNoticeProcessor(connection, { _, _ in }, nil)
    }
}

/// libpq's functions, for code holding a connection or a result: those exist only once
/// ``LibPQ/functions()`` loaded the library.
var libpq: herald_libpq {
    guard case .success(let functions) = LibPQ.loaded else {
        preconditionFailure("libpq is called before a PostgreSQL connection was opened")
    }
    return functions
}
