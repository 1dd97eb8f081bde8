import Foundation
import Testing

@testable import HeraldModel

/// Named time zones, which the server loads with the first one asked for (see ``TimeZones``).
@Suite("Time zones")
struct TimeZonesTests {
    @Test("the known time zones are the toolchain's (if not: run scripts/known-time-zones.sh)")
    func knownAreTheToolchains() {
        let toolchain = Set(TimeZone.knownTimeZoneIdentifiers)
        #expect(
            TimeZones.known == toolchain,
            "new: \(toolchain.subtracting(TimeZones.known).sorted()), gone: \(TimeZones.known.subtracting(toolchain).sorted())"
        )
    }

    @Test("a named zone is found by its identifier, an unknown name is not, and validation accepts only known names")
    func named() throws {
        let newYork = try #require(TimeZones.named("America/New_York"))
        #expect(newYork.secondsFromGMT(for: Date(timeIntervalSince1970: 1_700_000_000)) == -5 * 3600)
        #expect(TimeZones.named("Mars/Olympus_Mons") == nil)
        // Found by name (ICU knows abbreviations) but ambiguous, so validation refuses it.
        #expect(TimeZones.named("PST") != nil)
        #expect(!Check.isKnownTimeZone("PST"))
        #expect(Check.isKnownTimeZone("America/New_York") && Check.isKnownTimeZone("UTC"))
        #expect(Check.isKnownTimeZone("Etc/GMT+2") && !Check.isKnownTimeZone("GMT+2"))
    }

    @Test("UTC by its common names is GMT without zone data, and validation accepts each of them")
    func universal() throws {
        let instant = Date(timeIntervalSince1970: 1_700_000_000)
        for name in ["UTC", "GMT", "Etc/UTC", "Etc/GMT"] {
            let zone = try #require(TimeZones.named(name), "\(name)")
            #expect(zone == .gmt && zone.secondsFromGMT(for: instant) == 0, "\(name)")
            #expect(Check.isKnownTimeZone(name), "\(name)")
        }
        #expect(TimeZones.named("Etc/GMT+2")?.secondsFromGMT(for: instant) == -2 * 3600)
    }
}
