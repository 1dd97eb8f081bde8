#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension QuietHours {
    /// Checks `start` and `end` are `HH:mm` (00:00 to 23:59), differ, and `timeZone` is a known identifier.
    public func validate() throws { try validate(field: "quietHours") }

    func validate(field: String) throws {
        guard let startMinutes = QuietHours.minutes(start) else {
            throw ValidationError.invalid("\(field).start", "must be a time as HH:mm, from 00:00 to 23:59.")
        }
        guard let endMinutes = QuietHours.minutes(end) else {
            throw ValidationError.invalid("\(field).end", "must be a time as HH:mm, from 00:00 to 23:59.")
        }
        if startMinutes == endMinutes {
            throw ValidationError.invalid("\(field).end", "must differ from \(field).start.")
        }
        try Check.timeZone(timeZone, "\(field).timeZone")
    }

    /// Minutes after midnight of an `HH:mm` string, or `nil`.
    package static func minutes(_ text: String) -> Int? {
        let bytes = Array(text.utf8)
        guard bytes.count == 5, bytes[2] == UInt8(ascii: ":") else { return nil }
        let digits = [bytes[0], bytes[1], bytes[3], bytes[4]]
        guard digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        let values = digits.map { Int($0 - UInt8(ascii: "0")) }
        let hour = values[0] * 10 + values[1]
        let minute = values[2] * 10 + values[3]
        guard hour < 24, minute < 60 else { return nil }
        return hour * 60 + minute
    }

    /// When the window that contains `date` ends, or `nil` when `date` is outside it (or the
    /// window is malformed). A window whose end is before its start runs over midnight;
    /// an end that falls in a daylight-saving gap moves to just after the gap.
    public func end(ifContaining date: Date) -> Date? {
        guard let startMinutes = QuietHours.minutes(start), let endMinutes = QuietHours.minutes(end),
            startMinutes != endMinutes, let zone = TimeZones.named(timeZone)
        else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let local = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
        guard let hour = local.hour, let minute = local.minute else { return nil }
        let now = hour * 60 + minute
        let inside: Bool
        if startMinutes < endMinutes {
            inside = now >= startMinutes && now < endMinutes
        } else {
            inside = now >= startMinutes || now < endMinutes
        }
        guard inside else { return nil }
        // The window ends today when the end time is still ahead, else tomorrow.
        var day = calendar.startOfDay(for: date)
        if now >= endMinutes, let tomorrow = calendar.date(byAdding: .day, value: 1, to: day) {
            day = tomorrow
        }
        let dayParts = calendar.dateComponents([.year, .month, .day], from: day)
        let target = calendar.date(
            from: DateComponents(
                year: dayParts.year, month: dayParts.month, day: dayParts.day,
                hour: endMinutes / 60, minute: endMinutes % 60
            )
        )
        guard let target, target > date else {
            // Clock changes can put the computed end behind us; wait one minute rather than never.
            return date.addingTimeInterval(60)
        }
        return target
    }
}
