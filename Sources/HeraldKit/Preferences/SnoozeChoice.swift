import Foundation

/// What the person can pick on the preferences screen's snooze row.
public enum SnoozeChoice: String, Sendable, Equatable, CaseIterable {
    /// Pushes wait for an hour from now.
    case oneHour
    /// Pushes wait until 08:00 on the device's clock the next morning: today's 08:00 while it is
    /// still night (before 04:00), tomorrow's from 04:00 on. Chosen at 01:30, the snooze ends in
    /// six and a half hours; at 07:30, a day later rather than in half an hour.
    case untilTomorrowMorning
    /// The snooze ends now.
    case off

    /// When the morning snooze ends.
    public static let morning = TimeOfDay(hour: 8, minute: 0)
    /// Before this hour the night still belongs to the day before, so "tomorrow morning" is today's.
    public static let nightEndsHour = 4

    /// When a snooze chosen at `now` ends, with `zone` the device's; `nil` for ``off``.
    func end(choosingAt now: Date, in zone: TimeZone) -> Date? {
        switch self {
        case .off:
            return nil
        case .oneHour:
            return now.addingTimeInterval(60 * 60)
        case .untilTomorrowMorning:
            let calendar = Calendar.gregorian(in: zone)
            let isNight = calendar.component(.hour, from: now) < Self.nightEndsHour
            let day = isNight ? now : calendar.date(byAdding: .day, value: 1, to: now) ?? now
            return calendar.date(
                bySettingHour: Self.morning.hour, minute: Self.morning.minute, second: 0, of: day)
        }
    }
}
