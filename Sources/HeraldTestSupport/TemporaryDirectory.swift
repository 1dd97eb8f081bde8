import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A fresh directory for one test, removed with everything in it by ``remove()`` or at the end
/// of ``withTemporaryDirectory(_:_:)``.
///
/// Every one lives under one directory of this test process (`herald-tests-<pid>` in the
/// system's temporary directory), which is removed when the process exits, so what a test does
/// not remove itself does not outlive the run either; the directory of a process that died
/// without exiting is removed by the next test process.
public struct TemporaryDirectory: Sendable {
    public let url: URL

    public var path: String { url.path }

    /// Makes `<prefix>-<uuid>` under the process's directory.
    public init(_ prefix: String = "herald") throws {
        url = try TemporaryRoot.url.appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// The path of `name` inside the directory.
    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Removes the directory and what it holds.
    public func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}

/// Runs `body` with a fresh directory and removes it afterwards, whether `body` threw or not.
public func withTemporaryDirectory<Result>(
    _ prefix: String = "herald", _ body: (TemporaryDirectory) async throws -> Result
) async throws -> Result {
    let directory = try TemporaryDirectory(prefix)
    defer { directory.remove() }
    return try await body(directory)
}

/// The per-process directory every ``TemporaryDirectory`` is made in.
enum TemporaryRoot {
    static let prefix = "herald-tests-"

    /// Made on first use; removed at exit.
    static var url: URL {
        get throws {
            guard let made else { throw CocoaError(.fileWriteUnknown) }
            return made
        }
    }

    private static let made: URL? = try? {
        let system = FileManager.default.temporaryDirectory
        removeAbandoned(in: system)
        let url = system.appendingPathComponent("\(prefix)\(getpid())", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        atexit { TemporaryRoot.removeOwn() }
        return url
    }()

    private static func removeOwn() {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)\(getpid())")
        try? FileManager.default.removeItem(at: url)
    }

    /// Removes the directories of test processes that no longer run (killed before they exited).
    private static func removeAbandoned(in system: URL) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: system.path)) ?? []
        for name in names where name.hasPrefix(prefix) {
            guard let pid = Int32(name.dropFirst(prefix.count)), pid != getpid() else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH {
                try? FileManager.default.removeItem(at: system.appendingPathComponent(name))
            }
        }
    }
}
