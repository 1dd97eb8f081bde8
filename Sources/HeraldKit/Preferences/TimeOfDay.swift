import Foundation
import HeraldModel

/// A time of day on the 24-hour clock, as the preference time pickers show and set it (quiet
/// hours, the digest). On the wire it is `HH:mm`, read with the server's rule.
public struct TimeOfDay: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// 0 to 23.
    public let hour: Int
    /// 0 to 59.
    public let minute: Int

    public init(hour: Int, minute: Int) {
        precondition((0..<24).contains(hour) && (0..<60).contains(minute), "not a time of day: \(hour):\(minute)")
        self.hour = hour
        self.minute = minute
    }

    /// Reads `HH:mm` (00:00 to 23:59); `nil` for anything else.
    public init?(_ text: String) {
        guard let minutes = QuietHours.minutes(text) else { return nil }
        self.init(hour: minutes / 60, minute: minutes % 60)
    }

    /// The time `date` shows on a clock in `zone`.
    init(_ date: Date, in zone: TimeZone) {
        let parts = Calendar.gregorian(in: zone).dateComponents([.hour, .minute], from: date)
        self.init(hour: parts.hour ?? 0, minute: parts.minute ?? 0)
    }

    /// `HH:mm`, as the server reads it and the screen shows it.
    public var text: String {
        String(format: "%02d:%02d", hour, minute)
    }

    public var description: String { text }

    public static func < (lhs: TimeOfDay, rhs: TimeOfDay) -> Bool {
        (lhs.hour, lhs.minute) < (rhs.hour, rhs.minute)
    }
}

extension Calendar {
    /// The Gregorian calendar, reckoned in `zone`.
    static func gregorian(in zone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar
    }
}
