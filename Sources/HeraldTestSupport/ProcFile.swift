import Foundation

/// The whole text of a file under `/proc` (`/proc/<pid>/maps`): such files report a size of 0,
/// and `String(contentsOfFile:)` then stops after its first 4 KiB, so a test looking for a line
/// further down would find nothing and pass.
public func procFile(_ path: String) throws -> String {
    guard let file = FileHandle(forReadingAtPath: path) else {
        throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: path])
    }
    defer { try? file.close() }
    return String(decoding: try file.readToEnd() ?? Data(), as: UTF8.self)
}
