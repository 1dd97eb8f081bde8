import CPostgres
import Testing

@testable import HeraldStore

/// libpq is loaded when a PostgreSQL database is first opened, not linked (see ``LibPQ``).
@Suite("libpq loading")
struct LibPQLoadingTests {
    @Test("libpq loads by its library name, with every function Herald calls")
    func loads() throws {
        let functions = try LibPQ.load(LibPQ.libraryName).get()
        // A function of the loaded library answers as libpq does: no connection is bad.
        #expect(functions.PQstatus(nil) == CONNECTION_BAD)
    }

    @Test("a libpq that cannot be loaded is an error naming the library and the package to install")
    func missingLibrary() throws {
        let error = try #require(throws: StoreError.self) { try LibPQ.load("libpq-not-installed.so.5").get() }
        #expect(error.code == .postgres)
        #expect(
            error.message.hasPrefix("PostgreSQL needs libpq (libpq-not-installed.so.5), which could not be loaded: "))
        #expect(error.message.contains("cannot open shared object file"), "\(error.message)")
        #expect(error.message.hasSuffix("apt-get install libpq5"))
    }

    @Test("a library without libpq's functions is refused, naming the first one it lacks")
    func libraryWithoutTheFunctions() throws {
        let error = try #require(throws: StoreError.self) { try LibPQ.load("libz.so.1").get() }
        #expect(error.code == .postgres)
        #expect(error.message == "libz.so.1 is not a libpq Herald can use: it has no PQclear")
    }
}
