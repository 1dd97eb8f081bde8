import CThreads
import HeraldModel

#if os(Linux)
    import Glibc
#endif

/// Whether this process could load named time zones (`Europe/Amsterdam`), answered without
/// loading them: ``HeraldModel/TimeZones`` loads FoundationInternationalization, and through it
/// ICU, with the first named zone, and a server packaged without them would otherwise find out
/// only then (refusing the zone, not applying quiet hours stored in one, reading `deliverAt` and
/// digest times in one as UTC). The server logs the answer once at start.
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
    /// path, in order), or `nil` when they can or the path is unknown (empty). The first
    /// directory holding FoundationInternationalization is where it would be loaded from, and
    /// it looks for ICU beside itself (its run path is `$ORIGIN`), not in the executable's run
    /// path. Not consulted: `/etc/ld.so.cache` (glibc cannot list it), so a library found only
    /// through it is reported missing, which the message says.
    static func problem(searching directories: [String]) -> String? {
        guard !directories.isEmpty else { return nil }
        let (internationalization, icu) = (libraries[0], libraries[1])
        guard let directory = directories.first(where: { access($0 + "/" + internationalization, R_OK) == 0 }) else {
            return
                "\(internationalization) is in none of the directories the dynamic loader searches (\(directories.joined(separator: ":")); /etc/ld.so.cache not checked): install it, with \(icu) beside it, from the Swift toolchain the server was built with (beside libFoundationEssentials.so)"
        }
        guard access(directory + "/" + icu, R_OK) == 0 else {
            return
                "\(icu) is not beside \(directory)/\(internationalization), which loads it from there: install it there, from the Swift toolchain the server was built with"
        }
        return nil
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
