import FoundationEssentials
import HeraldModel

/// The `Retry-After` header (RFC 9110 §10.2.3): delay-seconds or an HTTP date.
enum RetryAfter {
    /// The delay `value` asks for, counted from `now`; a date in the past is 0. `nil` when
    /// `value` is neither a non-negative integer nor an IMF-fixdate.
    static func delay(_ value: String, now: Date) -> TimeInterval? {
        let trimmed = value.trimming(where: \.isSpaceOrTab)
        if !trimmed.isEmpty, trimmed.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            // More digits than an Int64 holds is still a valid, very long, delay.
            return TimeInterval(trimmed) ?? .infinity
        }
        guard let date = httpDate(trimmed) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }

    /// Parses an IMF-fixdate such as `Sun, 06 Nov 1994 08:49:37 GMT`: a day name, the day of
    /// the month, a month name, the year, the time of day, each field as wide as RFC 9110
    /// §5.6.7 gives it; a day that the month does not have, or a time past 23:59:60, is not one.
    static func httpDate(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count == 29,
            Self.dayNames.contains(where: { $0.elementsEqual(bytes[0..<3]) }),
            bytes[3...4].elementsEqual(", ".utf8), bytes[7] == UInt8(ascii: " "), bytes[11] == UInt8(ascii: " "),
            bytes[16] == UInt8(ascii: " "), bytes[19] == UInt8(ascii: ":"), bytes[22] == UInt8(ascii: ":"),
            bytes[25...].elementsEqual(" GMT".utf8),
            let month = Self.monthNames.firstIndex(where: { $0.elementsEqual(bytes[8..<11]) }),
            let day = digits(bytes[5..<7]), let year = digits(bytes[12..<16]), let hour = digits(bytes[17..<19]),
            let minute = digits(bytes[20..<22]), let second = digits(bytes[23..<25]),
            day >= 1, day <= daysIn(month: month + 1, year: year), hour < 24, minute < 60, second <= 60
        else { return nil }
        // Days from 1970-01-01 to the date (the civil calendar's count, proleptic Gregorian).
        let shifted = month + 1 <= 2 ? year - 1 : year
        let era = (shifted >= 0 ? shifted : shifted - 399) / 400
        let yearOfEra = shifted - era * 400
        let dayOfYear = (153 * ((month + 1) + ((month + 1) > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hour * 3_600 + minute * 60 + second))
    }

    private static let dayNames = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"].map { Array($0.utf8) }
    private static let monthNames = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]
    .map { Array($0.utf8) }

    private static func digits(_ bytes: ArraySlice<UInt8>) -> Int? {
        var value = 0
        for byte in bytes {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
