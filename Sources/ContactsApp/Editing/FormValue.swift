import ForceJSON

/// What a user typed, read as the value Salesforce takes for the field's type.
enum FormValue {
    /// `YYYY-MM-DD` when `text` is a real date in that form.
    static func date(_ text: String) -> String? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
            (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year)
        else { return nil }
        return text
    }

    /// Salesforce's `YYYY-MM-DDTHH:MM:SS.000+0000` for a UTC date and time typed as
    /// `YYYY-MM-DD HH:MM[:SS]` or in ISO 8601 with a zero offset.
    static func dateTime(_ text: String) -> String? {
        guard text.count >= 16 else { return nil }
        let datePart = String(text.prefix(10))
        let separator = text[text.index(text.startIndex, offsetBy: 10)]
        guard let date = date(datePart), separator == " " || separator == "T" else { return nil }
        var rest = Substring(text.dropFirst(11))
        for zone in ["Z", "+0000", "+00:00"] where rest.hasSuffix(zone) { rest = rest.dropLast(zone.count) }
        if let dot = rest.firstIndex(of: ".") {
            guard rest[rest.index(after: dot)...].allSatisfy(\.isNumber) else { return nil }
            rest = rest[..<dot]
        }
        let clock = rest.split(separator: ":", omittingEmptySubsequences: false)
        guard clock.count == 2 || clock.count == 3, clock.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isNumber) }),
            let hour = Int(clock[0]), let minute = Int(clock[1]), hour < 24, minute < 60
        else { return nil }
        let second = clock.count == 3 ? Int(clock[2]) ?? 60 : 0
        guard second < 60 else { return nil }
        return "\(date)T\(clock[0]):\(clock[1]):\(two(second)).000+0000"
    }

    /// Why `text` is not a number of that size, or nil.
    static func numberProblem(_ text: String, precision: Int, scale: Int, label: String) -> String? {
        var digits = Substring(text)
        if digits.first == "-" { digits = digits.dropFirst() }
        let parts = digits.split(separator: ".", omittingEmptySubsequences: false)
        guard !digits.isEmpty, parts.count <= 2, parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
            !(parts.first ?? "").isEmpty || parts.count == 2
        else {
            return scale == 0 ? "\(label) is a whole number" : "\(label) is a number, like 1234.5"
        }
        let decimals = parts.count == 2 ? parts[1].count : 0
        if decimals > scale {
            return scale == 0 ? "\(label) is a whole number" : "\(label) takes at most \(scale) decimal\(scale == 1 ? "" : "s")"
        }
        let whole = parts[0].drop { $0 == "0" }.count
        if whole > precision - scale { return "\(label) takes at most \(precision - scale) digits before the point" }
        return nil
    }

    /// A checkbox as people write one in a file or on a command line; nil when it is not one.
    static func checkbox(_ text: String) -> Bool? {
        switch text.trimmingWhitespace.lowercased() {
        case "true", "yes", "y", "1", "x", "on": true
        case "false", "no", "n", "0", "off", "": false
        default: nil
        }
    }

    /// The JSON value saved for `text` (already checked by the field's rule).
    static func json(_ text: String, format: FieldRule.Format) -> JSONValue {
        let trimmed = text.trimmingWhitespace
        if format == .checkbox { return .bool(trimmed == "true") }
        guard !trimmed.isEmpty else { return .null }
        switch format {
        case let .number(_, scale):
            if scale == 0, let whole = Int64(trimmed) { return .int(whole) }
            return Double(trimmed).map(JSONValue.double) ?? .string(trimmed)
        case .multiPicklist:
            return .string(trimmed.split(separator: ";").map { String($0).trimmingWhitespace }.filter { !$0.isEmpty }.joined(separator: ";"))
        case .dateTime:
            return .string(dateTime(trimmed) ?? trimmed)
        default:
            return .string(trimmed)
        }
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    private static func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
