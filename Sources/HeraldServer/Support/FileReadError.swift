import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Why a file could not be read, in the words of the system (`No such file or directory`,
/// `Permission denied`), for messages that name the file and the setting that pointed at it.
enum FileReadError {
    static func reason(_ error: any Error) -> String {
        if let posix = (error as? CocoaError)?.underlying as? POSIXError {
            return String(cString: strerror(posix.code.rawValue))
        }
        if let posix = error as? POSIXError { return String(cString: strerror(posix.code.rawValue)) }
        if let cocoa = error as? CocoaError, cocoa.code == .fileReadInapplicableStringEncoding {
            return "it is not UTF-8 text"
        }
        return String(describing: error)
    }
}
