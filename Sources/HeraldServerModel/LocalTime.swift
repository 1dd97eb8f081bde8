import FoundationEssentials
import HeraldModel

/// A time of day, `HH:mm` in some time zone: a `deliverAt` time and a digest's time.
public enum LocalTime {
    /// Minutes after midnight of an `HH:mm` string (00:00 to 23:59), or `nil`.
    public static func minutes(_ text: String) -> Int? { QuietHours.minutes(text) }

    /// The first moment at or after `date` whose wall-clock time in `zone` is `hhmm`: today's when
    /// it is still ahead (or now), else tomorrow's. A time that falls in a daylight-saving gap moves
    /// to just after the gap; `nil` for a malformed `hhmm`.
    public static func next(_ hhmm: String, onOrAfter date: Date, in zone: TimeZone) -> Date? {
        guard let minutes = minutes(hhmm) else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let today = calendar.startOfDay(for: date)
        for offset in 0...2 {
            guard let day = calendar.date(byAdding: .day, value: offset, to: today) else { continue }
            let parts = calendar.dateComponents([.year, .month, .day], from: day)
            guard
                let candidate = calendar.date(
                    from: DateComponents(
                        year: parts.year, month: parts.month, day: parts.day, hour: minutes / 60,
                        minute: minutes % 60))
            else { continue }
            if candidate >= date { return candidate }
        }
        return nil
    }

    /// The zone a user's local times are in: `preferred` (preferences), else `fallback` (the newest
    /// device's), else UTC; an unknown identifier counts as none.
    public static func zone(preferred: String?, fallback: String?) -> TimeZone {
        for identifier in [preferred, fallback] {
            if let identifier, let zone = TimeZones.named(identifier) { return zone }
        }
        return .gmt
    }
}
