import Foundation

/// Dates and datetimes as Salesforce writes and reads them, shared by the client (ForceAPI,
/// MobileSync) and localorg. Responses use `2024-01-02T03:04:05.000+0000` (UTC, milliseconds, no
/// colon in the offset); SOQL also takes `…Z` and `…+00:00`; `If-Unmodified-Since` and
/// `Last-Modified` take an HTTP date (`Tue, 02 Jan 2024 03:04:05 GMT`). Hand-written, so it needs
/// no locale and no formatter state shared across threads.
///
/// ```swift
/// SalesforceDate.milliseconds("2024-01-02T03:04:05.000+0000")  // 1704164645000
/// SalesforceDate.formatDateTime(1_704_164_645)                 // "2024-01-02T03:04:05.000+0000"
/// ```
public enum SalesforceDate {
    static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    static let weekdayNames = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]  // 1970-01-01 was a Thursday

    // MARK: Reading

    /// Parses `yyyy-MM-ddTHH:mm:ss[.SSS](Z|±hhmm|±hh:mm)`; nil when the text is not such a datetime.
    public static func parse(_ text: String) -> Date? {
        milliseconds(text).map { Date(timeIntervalSince1970: Double($0) / 1000) }
    }

    /// Epoch milliseconds of a datetime as any Salesforce answers it, exactly (no floating point),
    /// so sync high-water marks compare equal to the stored text they came from. A space may stand
    /// for the `T`; digits past milliseconds are dropped.
    public static func milliseconds(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        func number(_ from: Int, _ count: Int) -> Int64? {
            guard from + count <= bytes.count else { return nil }
            return SalesforceDate.number(bytes[from..<from + count]).map(Int64.init)
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
        guard index < bytes.count, let offset = offsetSeconds(bytes[index...]) else { return nil }  // the offset is required
        let days = daysFromCivil(year: Int(year), month: Int(month), day: Int(day))
        let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second - offset
        return seconds * 1_000 + millis
    }

    /// Parses a datetime a client sends to the org, as the org checks it: the day must exist and
    /// the offset be a real one. Returns whole seconds since 1970 (Salesforce keeps whole seconds).
    public static func parseDateTime(_ text: some StringProtocol) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, parseDate(String(decoding: bytes[0..<10], as: UTF8.self)) != nil,
            let second = number(bytes[17..<19]), second < 60,
            let millis = milliseconds(String(decoding: bytes, as: UTF8.self))
        else { return nil }
        return floorDivide(millis, 1000)
    }

    /// Parses `YYYY-MM-DD` into days since 1970, checking the day exists.
    public static func parseDate(_ text: some StringProtocol) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            let year = number(bytes[0..<4]), let month = number(bytes[5..<7]), let day = number(bytes[8..<10]),
            (1...12).contains(month), day >= 1, day <= daysInMonth(year: year, month: month)
        else { return nil }
        return daysFromCivil(year: year, month: month, day: day)
    }

    /// Parses the HTTP date clients send in `If-Modified-Since` / `If-Unmodified-Since`
    /// (`EEE, dd MMM yyyy HH:mm:ss GMT`; a numeric offset is also accepted), in seconds.
    public static func parseHTTPDate(_ text: some StringProtocol) -> Int64? {
        let parts = text.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 6, let day = Int(parts[1]), let monthIndex = monthNames.firstIndex(of: String(parts[2])),
            let year = Int(parts[3]), day >= 1, day <= daysInMonth(year: year, month: monthIndex + 1)
        else { return nil }
        let time = parts[4].split(separator: ":")
        guard time.count == 3, let hour = Int(time[0]), let minute = Int(time[1]), let second = Int(time[2]),
            hour < 24, minute < 60, second < 61
        else { return nil }
        var offset: Int64 = 0
        let zone = parts[5]
        if zone != "GMT" && zone != "UTC" && zone != "Z" {
            guard zone.count == 5, let sign = zone.first, sign == "+" || sign == "-",
                let hhmm = Int(zone.dropFirst())
            else { return nil }
            offset = Int64(hhmm / 100 * 3600 + hhmm % 100 * 60) * (sign == "-" ? -1 : 1)
        }
        return daysFromCivil(year: year, month: monthIndex + 1, day: day) * 86_400
            + Int64(hour * 3600 + minute * 60 + second) - offset
    }

    // MARK: Writing

    /// `2024-01-02T03:04:05.000Z`: the form SOQL datetime literals take.
    public static func soqlLiteral(milliseconds: Int64) -> String {
        dateTime(milliseconds: milliseconds) + "Z"
    }

    /// `2024-01-02T03:04:05.000+0000`, in UTC, as Salesforce writes datetimes.
    public static func format(_ date: Date) -> String {
        // Nearest, not down: k / 1000 * 1000 can land just below k.
        dateTime(milliseconds: Int64((date.timeIntervalSince1970 * 1000).rounded())) + "+0000"
    }

    /// `2024-01-02T03:04:05.000+0000` for whole seconds since 1970, the form every response uses.
    public static func formatDateTime(_ seconds: Int64) -> String {
        dateTime(milliseconds: seconds * 1000) + "+0000"
    }

    /// `2024-01-02` for a day count since 1970.
    public static func formatDate(days: Int64) -> String {
        let (year, month, day) = civilFromDays(days)
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))"
    }

    /// An HTTP date (RFC 9110 IMF-fixdate), for `If-Unmodified-Since` and `Last-Modified`.
    public static func httpDate(_ date: Date) -> String {
        formatHTTPDate(Int64(date.timeIntervalSince1970.rounded(.down)))
    }

    /// An HTTP date for whole seconds since 1970.
    public static func formatHTTPDate(_ seconds: Int64) -> String {
        let days = floorDivide(seconds, 86_400)
        let secondOfDay = Int(seconds - days * 86_400)
        let (year, month, day) = civilFromDays(days)
        let weekday = weekdayNames[Int(((days % 7) + 7) % 7)]
        return "\(weekday), \(pad(day, 2)) \(monthNames[month - 1]) \(pad(year, 4)) \(clock(secondOfDay)) GMT"
    }

    // MARK: Calendar

    /// Days since 1970-01-01 for a proleptic Gregorian date (Howard Hinnant's days_from_civil).
    public static func daysFromCivil(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let m = Int64(month)
        let dayOfYear = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The calendar date of a day count since 1970-01-01 (Hinnant's civil_from_days).
    public static func civilFromDays(_ days: Int64) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthPrime = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthPrime + 2) / 5 + 1
        let month = monthPrime < 10 ? monthPrime + 3 : monthPrime - 9
        return (Int(yearOfEra + era * 400 + (month <= 2 ? 1 : 0)), Int(month), Int(day))
    }

    public static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Division rounding toward minus infinity, for times before 1970.
    public static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        value >= 0 ? value / divisor : -((-value + divisor - 1) / divisor)
    }

    // MARK: Parts

    /// `2024-01-02T03:04:05.000`, without the zone.
    private static func dateTime(milliseconds total: Int64) -> String {
        let millis = Int(total - floorDivide(total, 1000) * 1000)
        let seconds = floorDivide(total, 1000)
        let days = floorDivide(seconds, 86_400)
        let (year, month, day) = civilFromDays(days)
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(clock(Int(seconds - days * 86_400))).\(pad(millis, 3))"
    }

    /// `03:04:05` for a second of the day.
    private static func clock(_ secondOfDay: Int) -> String {
        "\(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2))"
    }

    /// `Z`, `±hhmm` or `±hh:mm` and nothing after it, as seconds east of UTC.
    private static func offsetSeconds(_ zone: ArraySlice<UInt8>) -> Int64? {
        if zone.count == 1, zone.first == UInt8(ascii: "Z") { return 0 }
        guard let sign = zone.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") else { return nil }
        let digits = Array(zone.dropFirst())
        let hours: Int?
        let minutes: Int?
        if digits.count == 5, digits[2] == UInt8(ascii: ":") {
            (hours, minutes) = (number(digits[0..<2]), number(digits[3..<5]))
        } else if digits.count == 4 {
            (hours, minutes) = (number(digits[0..<2]), number(digits[2..<4]))
        } else {
            return nil
        }
        guard let hours, let minutes, hours < 24, minutes < 60 else { return nil }
        return Int64(hours * 3600 + minutes * 60) * (sign == UInt8(ascii: "-") ? -1 : 1)
    }

    private static func number(_ bytes: ArraySlice<UInt8>) -> Int? {
        var result = 0
        for byte in bytes {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            result = result * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return bytes.isEmpty ? nil : result
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}
