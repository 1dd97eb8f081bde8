#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Decoding is strict, because a typo in a PATCH would otherwise be silently ignored:
/// an unknown key, a wrong type, or `null` for anything but `quietHours`, `snoozedUntil`, `digest`
/// and `timeZone` is a `DecodingError`. An absent `quietHours` keeps the stored window;
/// `"quietHours": null` clears it; `"snoozedUntil": null` ends a snooze; `"digest": null` turns the
/// digest off and forgets its time; `"timeZone": null` forgets the time zone.
extension PreferencesPatch: Codable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case globalEnabled, categories, disabledTypes, quietHours, snoozedUntil, digest, mutedSources, timeZone
    }

    public init(from decoder: any Decoder) throws {
        try StrictKeys.reject(
            unknownIn: decoder, allowed: CodingKeys.allCases.map(\.rawValue), type: "preferences patch")
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init()
        if container.contains(.globalEnabled) {
            globalEnabled = try container.decode(Bool.self, forKey: .globalEnabled)
        }
        if container.contains(.categories) {
            categories = try container.decode([String: Bool].self, forKey: .categories)
        }
        if container.contains(.disabledTypes) {
            disabledTypes = try container.decode([String].self, forKey: .disabledTypes)
        }
        if container.contains(.quietHours) {
            if try container.decodeNil(forKey: .quietHours) {
                quietHours = .some(nil)
            } else {
                quietHours = .some(try container.decode(StrictQuietHours.self, forKey: .quietHours).value)
            }
        }
        if container.contains(.snoozedUntil) {
            snoozedUntil = .some(
                try container.decodeNil(forKey: .snoozedUntil)
                    ? nil : try container.decode(Date.self, forKey: .snoozedUntil))
        }
        if container.contains(.digest) {
            digest = .some(
                try container.decodeNil(forKey: .digest)
                    ? nil : try container.decode(StrictDigest.self, forKey: .digest).value)
        }
        if container.contains(.mutedSources) {
            mutedSources = try container.decode([String].self, forKey: .mutedSources)
        }
        if container.contains(.timeZone) {
            timeZone = .some(
                try container.decodeNil(forKey: .timeZone) ? nil : try container.decode(String.self, forKey: .timeZone))
        }
    }

    /// Encodes only what the patch names; a cleared `quietHours` as `null`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(globalEnabled, forKey: .globalEnabled)
        try container.encodeIfPresent(categories, forKey: .categories)
        try container.encodeIfPresent(disabledTypes, forKey: .disabledTypes)
        switch quietHours {
        case .none: break
        case .some(.none): try container.encodeNil(forKey: .quietHours)
        case .some(.some(let window)): try container.encode(window, forKey: .quietHours)
        }
        switch snoozedUntil {
        case .none: break
        case .some(.none): try container.encodeNil(forKey: .snoozedUntil)
        case .some(.some(let until)): try container.encode(until, forKey: .snoozedUntil)
        }
        switch digest {
        case .none: break
        case .some(.none): try container.encodeNil(forKey: .digest)
        case .some(.some(let digest)): try container.encode(digest, forKey: .digest)
        }
        try container.encodeIfPresent(mutedSources, forKey: .mutedSources)
        switch timeZone {
        case .none: break
        case .some(.none): try container.encodeNil(forKey: .timeZone)
        case .some(.some(let zone)): try container.encode(zone, forKey: .timeZone)
        }
    }
}

/// `DigestSettings` decoded without tolerating unknown keys; both fields required.
private struct StrictDigest: Decodable {
    var value: DigestSettings

    enum CodingKeys: String, CodingKey, CaseIterable { case enabled, localTime }

    init(from decoder: any Decoder) throws {
        try StrictKeys.reject(unknownIn: decoder, allowed: CodingKeys.allCases.map(\.rawValue), type: "digest")
        let container = try decoder.container(keyedBy: CodingKeys.self)
        value = DigestSettings(
            enabled: try container.decode(Bool.self, forKey: .enabled),
            localTime: try container.decode(String.self, forKey: .localTime))
    }
}

/// `QuietHours` decoded without tolerating unknown keys.
private struct StrictQuietHours: Decodable {
    var value: QuietHours

    enum CodingKeys: String, CodingKey, CaseIterable { case start, end, timeZone }

    init(from decoder: any Decoder) throws {
        try StrictKeys.reject(unknownIn: decoder, allowed: CodingKeys.allCases.map(\.rawValue), type: "quietHours")
        let container = try decoder.container(keyedBy: CodingKeys.self)
        value = QuietHours(
            start: try container.decode(String.self, forKey: .start),
            end: try container.decode(String.self, forKey: .end),
            timeZone: try container.decode(String.self, forKey: .timeZone)
        )
    }
}

package enum StrictKeys {
    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Throws `DecodingError.dataCorrupted` naming the first key not in `allowed`.
    package static func reject(unknownIn decoder: any Decoder, allowed: [String], type: String) throws {
        let container = try decoder.container(keyedBy: AnyKey.self)
        let unknown = container.allKeys.map(\.stringValue).filter { !allowed.contains($0) }.sorted()
        if let first = unknown.first {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: decoder.codingPath + [AnyKey(stringValue: first)],
                    debugDescription:
                        "Unknown key '\(first)' in \(type); allowed keys are \(allowed.joined(separator: ", "))."
                )
            )
        }
    }
}
