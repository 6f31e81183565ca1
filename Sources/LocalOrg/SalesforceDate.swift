/// Dates and datetimes as Salesforce writes and reads them. Datetimes are kept as whole seconds
/// since 1970 (UTC), the precision Salesforce returns; dates as days since 1970.
public enum SalesforceDate {
    static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    static let weekdayNames = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]  // 1970-01-01 was a Thursday

    /// Days since 1970-01-01 for a proleptic Gregorian date (Hinnant's days_from_civil).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let m = Int64(month)
        let dayOfYear = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The calendar date of a day count since 1970-01-01 (Hinnant's civil_from_days).
    static func civilFromDays(_ days: Int64) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (Int(yearOfEra + era * 400 + (month <= 2 ? 1 : 0)), Int(month), Int(day))
    }

    /// `2024-01-02T03:04:05.000+0000`, the form every Salesforce response uses.
    public static func formatDateTime(_ seconds: Int64) -> String {
        let days = floorDivide(seconds, 86_400)
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = civilFromDays(days)
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(Int(secondOfDay / 3600), 2)):\(pad(Int(secondOfDay % 3600 / 60), 2)):\(pad(Int(secondOfDay % 60), 2)).000+0000"
    }

    /// `2024-01-02` for a day count.
    public static func formatDate(days: Int64) -> String {
        let (year, month, day) = civilFromDays(days)
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))"
    }

    /// Parses `YYYY-MM-DD` into days since 1970, checking the day exists.
    public static func parseDate(_ text: some StringProtocol) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
              let year = number(bytes[0..<4]), let month = number(bytes[5..<7]), let day = number(bytes[8..<10]),
              (1...12).contains(month), day >= 1, day <= daysInMonth(year: year, month: month) else { return nil }
        return daysFromCivil(year: year, month: month, day: day)
    }

    /// Parses a datetime in any form clients send: `…Z`, `…+00:00`, `….000+0000`, with or without
    /// fractional seconds (dropped: Salesforce keeps whole seconds).
    public static func parseDateTime(_ text: some StringProtocol) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: " "),
              let days = parseDate(String(decoding: bytes[0..<10], as: UTF8.self)),
              bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
              let hour = number(bytes[11..<13]), let minute = number(bytes[14..<16]), let second = number(bytes[17..<19]),
              hour < 24, minute < 60, second < 60 else { return nil }
        var index = 19
        if bytes[index] == UInt8(ascii: ".") {
            index += 1
            let start = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            guard index > start else { return nil }
        }
        guard index < bytes.count else { return nil }
        var offsetSeconds: Int64 = 0
        let zone = bytes[index...]
        if zone.count == 1, zone.first == UInt8(ascii: "Z") {
            offsetSeconds = 0
        } else if let sign = zone.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
            let digits = Array(zone.dropFirst())
            let hoursText: ArraySlice<UInt8>
            let minutesText: ArraySlice<UInt8>
            if digits.count == 5, digits[2] == UInt8(ascii: ":") {
                hoursText = digits[0..<2]; minutesText = digits[3..<5]
            } else if digits.count == 4 {
                hoursText = digits[0..<2]; minutesText = digits[2..<4]
            } else { return nil }
            guard let offsetHours = number(hoursText), let offsetMinutes = number(minutesText),
                  offsetHours < 24, offsetMinutes < 60 else { return nil }
            offsetSeconds = Int64(offsetHours * 3600 + offsetMinutes * 60) * (sign == UInt8(ascii: "-") ? -1 : 1)
        } else { return nil }
        return days * 86_400 + Int64(hour * 3600 + minute * 60 + second) - offsetSeconds
    }

    /// An HTTP date (`Tue, 02 Jan 2024 03:04:05 GMT`), as in `Last-Modified`.
    public static func formatHTTPDate(_ seconds: Int64) -> String {
        let days = floorDivide(seconds, 86_400)
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = civilFromDays(days)
        let weekday = weekdayNames[Int(((days % 7) + 7) % 7)]
        return "\(weekday), \(pad(day, 2)) \(monthNames[month - 1]) \(pad(year, 4)) \(pad(Int(secondOfDay / 3600), 2)):\(pad(Int(secondOfDay % 3600 / 60), 2)):\(pad(Int(secondOfDay % 60), 2)) GMT"
    }

    /// Parses the HTTP date clients send in `If-Modified-Since` / `If-Unmodified-Since`
    /// (`EEE, dd MMM yyyy HH:mm:ss GMT`; a numeric offset is also accepted).
    public static func parseHTTPDate(_ text: some StringProtocol) -> Int64? {
        let parts = text.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 6, let day = Int(parts[1]), let monthIndex = monthNames.firstIndex(of: String(parts[2])),
              let year = Int(parts[3]), day >= 1, day <= daysInMonth(year: year, month: monthIndex + 1) else { return nil }
        let time = parts[4].split(separator: ":")
        guard time.count == 3, let hour = Int(time[0]), let minute = Int(time[1]), let second = Int(time[2]),
              hour < 24, minute < 60, second < 61 else { return nil }
        var offset: Int64 = 0
        let zone = parts[5]
        if zone != "GMT" && zone != "UTC" && zone != "Z" {
            guard zone.count == 5, let sign = zone.first, sign == "+" || sign == "-",
                  let hhmm = Int(zone.dropFirst()) else { return nil }
            offset = Int64(hhmm / 100 * 3600 + hhmm % 100 * 60) * (sign == "-" ? -1 : 1)
        }
        return daysFromCivil(year: year, month: monthIndex + 1, day: day) * 86_400
            + Int64(hour * 3600 + minute * 60 + second) - offset
    }

    static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        value >= 0 ? value / divisor : -((-value + divisor - 1) / divisor)
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
