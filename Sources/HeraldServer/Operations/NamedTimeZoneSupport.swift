import CThreads
import HeraldModel

#if os(Linux)
    import Glibc
#endif

/// Whether this process could load named time zones (`Europe/Amsterdam`), answered without
/// loading them: ``HeraldModel/TimeZones`` loads FoundationInternationalization, and through it
/// ICU, with the first named zone, and a server packaged without them would otherwise find out
/// only then (refusing the zone, and treating zones stored earlier as UTC). The server logs the
/// answer once at start.
enum NamedTimeZoneSupport {
    /// The libraries named zones need: FoundationInternationalization, and the ICU it links.
    static let libraries = ["libFoundationInternationalization.so", "lib_FoundationICU.so"]

    /// Why named time zones cannot be loaded here, or `nil` when they can (or are loaded already).
    static func problem() -> String? {
        #if os(Linux)
            if let loaded = dlopen(libraries[0], RTLD_LAZY | RTLD_NOLOAD) {
                dlclose(loaded)
                return nil
            }
            return problem(searching: librarySearchPath())
        #else
            return nil
        #endif
    }

    /// Why named time zones cannot be loaded from `directories` (the dynamic loader's search
    /// path, in order), or `nil` when every library they need is in one of them.
    static func problem(searching directories: [String]) -> String? {
        let missing = libraries.filter { library in
            !directories.contains { access($0 + "/" + library, R_OK) == 0 }
        }
        guard !missing.isEmpty else { return nil }
        return
            "\(missing.joined(separator: " and ")) \(missing.count == 1 ? "is" : "are") in none of the directories the dynamic loader searches (\(directories.joined(separator: ":"))): install \(missing.count == 1 ? "it" : "them") beside libFoundationEssentials.so, from the Swift toolchain the server was built with"
    }

    #if os(Linux)
        /// The directories the dynamic loader searches for a library `herald` opens by name.
        static func librarySearchPath() -> [String] {
            guard let path = herald_library_search_path() else { return [] }
            defer { free(path) }
            return (0..<path.pointee.count).compactMap { index in
                herald_search_directory_name(path, index).map { String(cString: $0) }
            }
        }
    #endif
}
