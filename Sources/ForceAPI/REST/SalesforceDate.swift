import Foundation

/// Salesforce's datetime forms. Responses use `2024-01-02T03:04:05.000+0000` (UTC, milliseconds,
/// no colon in the offset); SOQL also accepts `…Z` and `…+00:00`, which are parsed too.
/// `If-Unmodified-Since` takes an HTTP date (`Tue, 02 Jan 2024 03:04:05 GMT`).
/// Hand-written so it needs no locale and no shared formatter state across threads.
public enum SalesforceDate {
    /// Parses `yyyy-MM-ddTHH:mm:ss[.SSS](Z|±hhmm|±hh:mm)`; nil when the text is not such a datetime.
    public static func parse(_ text: String) -> Date? {
        milliseconds(text).map { Date(timeIntervalSince1970: Double($0) / 1000) }
    }

    /// Epoch milliseconds of a Salesforce datetime, exactly (no floating point), so sync
    /// high-water marks compare equal to the stored text they came from. A space may stand for
    /// the `T`; digits past milliseconds are dropped.
    public static func milliseconds(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        func number(_ from: Int, _ count: Int) -> Int64? {
            guard from + count <= bytes.count else { return nil }
            var value: Int64 = 0
            for byte in bytes[from..<from + count] {
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int64(byte - 48)
            }
            return value
        }
        guard bytes.count >= 19, bytes[4] == 45, bytes[7] == 45, bytes[10] == 84 || bytes[10] == 32,
              bytes[13] == 58, bytes[16] == 58,
              let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
              let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var index = 19
        var millis: Int64 = 0
        if index < bytes.count, bytes[index] == 46 {
            index += 1
            var digits = 0
            while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
                if digits < 3 { millis = millis * 10 + Int64(bytes[index] - 48) }
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
            for _ in min(digits, 3)..<3 { millis *= 10 }
        }
        var offsetMinutes: Int64 = 0
        guard index < bytes.count else { return nil }  // the offset is required
        switch bytes[index] {
        case 90: index += 1  // Z
        case 43, 45:  // + or -
            let sign: Int64 = bytes[index] == 45 ? -1 : 1
            guard let hours = number(index + 1, 2) else { return nil }
            var minuteStart = index + 3
            if minuteStart < bytes.count, bytes[minuteStart] == 58 { minuteStart += 1 }
            guard let minutes = number(minuteStart, 2) else { return nil }
            offsetMinutes = sign * (hours * 60 + minutes)
            index = minuteStart + 2
        default: return nil
        }
        guard index == bytes.count else { return nil }
        let days = Int64(daysFromCivil(year: Int(year), month: Int(month), day: Int(day)))
        let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second - offsetMinutes * 60
        return seconds * 1_000 + millis
    }

    /// `2024-01-02T03:04:05.000Z`: the form SOQL datetime literals take.
    public static func soqlLiteral(milliseconds: Int64) -> String {
        let (civil, secondOfDay, millis) = split(milliseconds)
        return "\(pad(civil.year, 4))-\(pad(civil.month, 2))-\(pad(civil.day, 2))T\(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2)).\(pad(millis, 3))Z"
    }

    /// `2024-01-02T03:04:05.000+0000`, in UTC, as Salesforce writes datetimes.
    public static func format(_ date: Date) -> String {
        // Nearest, not down: k / 1000 * 1000 can land just below k.
        let totalMilliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
        let (civil, secondOfDay, milliseconds) = split(totalMilliseconds)
        return "\(pad(civil.year, 4))-\(pad(civil.month, 2))-\(pad(civil.day, 2))T\(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2)).\(pad(milliseconds, 3))+0000"
    }

    /// An HTTP date (RFC 9110 IMF-fixdate), for `If-Unmodified-Since` and `If-Modified-Since`.
    public static func httpDate(_ date: Date) -> String {
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
        let (civil, secondOfDay, _) = split(seconds * 1000)
        let days = Int(floorDivide(seconds, 86_400))
        let weekday = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"][((days % 7) + 7) % 7]
        let month = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"][civil.month - 1]
        return "\(weekday), \(pad(civil.day, 2)) \(month) \(pad(civil.year, 4)) \(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2)) GMT"
    }

    private static func split(_ totalMilliseconds: Int64) -> (civil: (year: Int, month: Int, day: Int), secondOfDay: Int, milliseconds: Int) {
        let milliseconds = Int(totalMilliseconds - floorDivide(totalMilliseconds, 1000) * 1000)
        let seconds = floorDivide(totalMilliseconds, 1000)
        let days = floorDivide(seconds, 86_400)
        let secondOfDay = Int(seconds - days * 86_400)
        return (civilFromDays(Int(days)), secondOfDay, milliseconds)
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        value >= 0 ? value / divisor : -((-value + divisor - 1) / divisor)
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }

    /// Days since 1970-01-01 for a proleptic Gregorian date (Howard Hinnant's algorithm).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func civilFromDays(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthPrime = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthPrime + 2) / 5 + 1
        let month = monthPrime < 10 ? monthPrime + 3 : monthPrime - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
