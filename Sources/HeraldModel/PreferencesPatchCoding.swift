import Foundation

/// Decoding is strict, because a typo in a PATCH would otherwise be silently ignored:
/// an unknown key, a wrong type, or `null` for anything but `quietHours` and `snoozedUntil` is a
/// `DecodingError`. An absent `quietHours` keeps the stored window; `"quietHours": null` clears it;
/// `"snoozedUntil": null` ends a snooze.
extension PreferencesPatch: Codable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case globalEnabled, categories, disabledTypes, quietHours, snoozedUntil
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
