#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if os(Linux)
    import Glibc
#endif

/// Named time zones (`Europe/Amsterdam`): every lookup of one by its identifier goes through
/// ``named(_:)``, and ``known`` is what validation accepts.
///
/// On Linux, FoundationEssentials alone knows only `GMT` and fixed offsets: it finds named zones
/// at run time in FoundationInternationalization (over ICU). The server does not link that
/// library, which with ICU is about 2 MiB of an idle server's memory: ``named(_:)`` loads it
/// the first time a named zone is asked for (a few milliseconds, once) and keeps it.
package enum TimeZones {
    /// The zone `identifier` names, or `nil` when there is none by that name. Accepts more than
    /// ``known`` (abbreviations such as `PST`, legacy names): validation decides what is stored.
    package static func named(_ identifier: String) -> TimeZone? {
        // UTC by its common names needs no zone data: the many users who keep it never load ICU,
        // and it works where ICU could not be loaded.
        if universal.contains(identifier) { return .gmt }
        #if os(Linux)
            guard internationalizationLoaded else { return nil }
        #endif
        return TimeZone(identifier: identifier)
    }

    /// Whether named zones cannot be loaded in this process (FoundationInternationalization is
    /// missing): loads it, if it has not been, to find out.
    package static var unavailable: Bool {
        #if os(Linux)
            !internationalizationLoaded
        #else
            false
        #endif
    }

    /// Names of UTC answered without loading anything, and accepted by validation as they are.
    static let universal: Set<String> = ["UTC", "GMT", "Etc/UTC", "Etc/GMT"]

    /// The identifiers validation accepts as time zones: ICU's canonical location zones
    /// (generated from the toolchain into KnownTimeZones.swift, so client and server agree).
    package static let known: Set<String> = Set(knownIdentifiers)

    #if os(Linux)
        /// The name the dynamic loader finds FoundationInternationalization by (the directory of
        /// the FoundationEssentials the program runs with, through its run path).
        static let internationalizationLibrary = "libFoundationInternationalization.so"

        /// Whether FoundationInternationalization is loaded (it may already be, linked by a
        /// program that imports Foundation): loaded once, by the first lookup, never unloaded.
        private static let internationalizationLoaded: Bool =
            dlopen(internationalizationLibrary, RTLD_NOW | RTLD_LOCAL) != nil
    #endif
}
