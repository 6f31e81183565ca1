/// Salesforce datetimes (`2016-03-29T18:34:24.000+0000`, `…Z`, `…+00:00`) to and from epoch
/// milliseconds, in UTC, without a locale-dependent formatter.
public enum SalesforceTimestamp {
    /// Epoch ms for a Salesforce datetime; `nil` when the text is not one.
    public static func parse(_ text: String) -> Int64? {
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
            if digits < 3 { for _ in digits..<3 { millis *= 10 } }
        }
        var offsetMinutes: Int64 = 0
        if index < bytes.count {
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
        }
        guard index == bytes.count else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second - offsetMinutes * 60
        return seconds * 1_000 + millis
    }

    /// `yyyy-MM-ddTHH:mm:ss.SSSZ` in UTC, the form SOQL datetime literals take.
    public static func format(_ millis: Int64) -> String {
        let (secondsTotal, ms) = floorDivide(millis, 1_000)
        let (days, secondOfDay) = floorDivide(secondsTotal, 86_400)
        let (year, month, day) = civilFromDays(days)
        func pad(_ value: Int64, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(width - text.count, 0)) + text
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(secondOfDay / 3_600, 2)):\(pad(secondOfDay % 3_600 / 60, 2)):\(pad(secondOfDay % 60, 2)).\(pad(ms, 3))Z"
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> (Int64, Int64) {
        let quotient = a >= 0 ? a / b : -((-a + b - 1) / b)
        return (quotient, a - quotient * b)
    }

    // Howard Hinnant's days-from-civil and civil-from-days algorithms (public domain).
    private static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func civilFromDays(_ days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
