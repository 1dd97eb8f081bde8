#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension AnalyticsEventBatch {
    /// Checks 1 to ``Limits/eventsPerBatch`` events, each name `[a-z0-9_.]` up to
    /// ``Limits/eventNameMaxLength``, each `properties` at most ``Limits/eventPropertiesMaxBytes`` as JSON.
    public func validate() throws {
        if events.isEmpty {
            throw ValidationError(field: "events", code: "required", message: "events must hold at least 1 event.")
        }
        if events.count > Limits.eventsPerBatch {
            throw ValidationError.tooMany("events", max: Limits.eventsPerBatch, what: "events per batch")
        }
        for (index, event) in events.enumerated() {
            try event.validate(field: "events[\(index)]")
        }
    }
}

extension AnalyticsEvent {
    /// Checks the name and the encoded size of the properties.
    public func validate() throws { try validate(field: "event") }

    func validate(field: String) throws {
        if name.isEmpty { throw ValidationError.required("\(field).name") }
        if name.utf8.count > Limits.eventNameMaxLength {
            throw ValidationError.tooLong("\(field).name", max: Limits.eventNameMaxLength)
        }
        let ok = name.utf8.allSatisfy { Check.isLowerAlnum($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".") }
        if !ok {
            throw ValidationError.invalid(
                "\(field).name", "must use only lowercase letters, digits, _ and ., such as notification_banner_shown.")
        }
        if let properties {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            let size = (try? encoder.encode(properties).count) ?? Int.max
            if size > Limits.eventPropertiesMaxBytes {
                throw ValidationError.tooLong(
                    "\(field).properties", max: Limits.eventPropertiesMaxBytes, unit: "bytes of JSON")
            }
        }
    }
}
