import FoundationEssentials
import HeraldModel
import HeraldServerModel

/// The `Retry-After` header (RFC 9110 §10.2.3): delay-seconds or an HTTP date.
enum RetryAfter {
    /// The delay `value` asks for, counted from `now`; a date in the past is 0. `nil` when
    /// `value` is neither a non-negative integer nor an HTTP date.
    static func delay(_ value: String, now: Date) -> TimeInterval? {
        let trimmed = value.trimming(where: \.isSpaceOrTab)
        if !trimmed.isEmpty, trimmed.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            // More digits than an Int64 holds is still a valid, very long, delay.
            return TimeInterval(trimmed) ?? .infinity
        }
        guard let date = httpDate(trimmed, now: now) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }

    /// Parses an HTTP date in any of the three forms a recipient must take (RFC 9110 §5.6.7):
    /// an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), an RFC 850 date (`Sunday, 06-Nov-94
    /// 08:49:37 GMT`, whose two-digit year is the latest such year not more than 50 years after
    /// `now`) or an asctime date (`Sun Nov  6 08:49:37 1994`). Each field is as wide as the
    /// grammar gives it, names are case-sensitive, and a day the month does not have or a time
    /// past 23:59:59 is not a date. The day name is not checked against the date.
    static func httpDate(_ text: String, now: Date) -> Date? {
        var reader = Reader(Array(text.utf8))
        if let date = reader.imfFixdate() { return date }
        reader.rewind()
        if let date = reader.rfc850Date(now: now) { return date }
        reader.rewind()
        return reader.asctimeDate()
    }

    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        mutating func rewind() { index = 0 }

        private static let dayNames = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
        private static let longDayNames = [
            "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday",
        ]
        private static let monthNames = [
            "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
        ]

        /// `day-name "," SP date1 SP time-of-day SP GMT`, date1 = `DD SP Mon SP YYYY`.
        mutating func imfFixdate() -> Date? {
            guard oneOf(Self.dayNames) != nil, literal(", "), let day = number(2), literal(" "),
                let month = oneOf(Self.monthNames), literal(" "), let year = number(4), literal(" "),
                let time = timeOfDay(), literal(" GMT"), index == bytes.count
            else { return nil }
            return Self.date(year: year, month: month + 1, day: day, time: time)
        }

        /// `day-name-l "," SP date2 SP time-of-day SP GMT`, date2 = `DD "-" Mon "-" YY`.
        mutating func rfc850Date(now: Date) -> Date? {
            guard oneOf(Self.longDayNames) != nil, literal(", "), let day = number(2), literal("-"),
                let month = oneOf(Self.monthNames), literal("-"), let shortYear = number(2), literal(" "),
                let time = timeOfDay(), literal(" GMT"), index == bytes.count
            else { return nil }
            // The latest year ending in these two digits that is not more than 50 years ahead.
            let thisYear = Int(
                JSONWriter.civil(fromDays: Int64((now.timeIntervalSince1970 / 86_400).rounded(.down))).year)
            var year = thisYear - thisYear % 100 + shortYear
            if year > thisYear + 50 { year -= 100 }
            return Self.date(year: year, month: month + 1, day: day, time: time)
        }

        /// `day-name SP date3 SP time-of-day SP year`, date3 = `Mon SP (DD / SP D)`.
        mutating func asctimeDate() -> Date? {
            guard oneOf(Self.dayNames) != nil, literal(" "), let month = oneOf(Self.monthNames), literal(" ")
            else { return nil }
            let day: Int
            if literal(" "), let digit = number(1) {
                day = digit
            } else if let digits = number(2) {
                day = digits
            } else {
                return nil
            }
            guard literal(" "), let time = timeOfDay(), literal(" "), let year = number(4), index == bytes.count
            else { return nil }
            return Self.date(year: year, month: month + 1, day: day, time: time)
        }

        /// `HH:MM:SS` as seconds into the day.
        private mutating func timeOfDay() -> Int? {
            guard let hour = number(2), literal(":"), let minute = number(2), literal(":"), let second = number(2),
                hour < 24, minute < 60, second < 60
            else { return nil }
            return hour * 3_600 + minute * 60 + second
        }

        private static func date(year: Int, month: Int, day: Int, time: Int) -> Date? {
            guard day >= 1, day <= daysIn(month: month, year: year) else { return nil }
            let days = JSONWriter.days(fromCivil: (Int64(year), Int64(month), Int64(day)))
            return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + Int64(time)))
        }

        private static func daysIn(month: Int, year: Int) -> Int {
            switch month {
            case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
            case 4, 6, 9, 11: 30
            default: 31
            }
        }

        /// Exactly `count` ASCII digits.
        private mutating func number(_ count: Int) -> Int? {
            guard index + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[index..<index + count] {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            index += count
            return value
        }

        private mutating func literal(_ text: StaticString) -> Bool {
            let expected = UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
            guard index + expected.count <= bytes.count, bytes[index..<index + expected.count].elementsEqual(expected)
            else { return false }
            index += expected.count
            return true
        }

        /// The position in `names` of the name at the cursor.
        private mutating func oneOf(_ names: [String]) -> Int? {
            for (position, name) in names.enumerated() {
                let utf8 = Array(name.utf8)
                if index + utf8.count <= bytes.count, bytes[index..<index + utf8.count].elementsEqual(utf8) {
                    index += utf8.count
                    return position
                }
            }
            return nil
        }
    }
}
