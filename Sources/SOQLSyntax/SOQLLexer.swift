import SalesforceTime

/// One token of a SOQL statement, with the UTF-8 offset where it starts (for error positions).
package struct SOQLToken: Sendable, Equatable {
    package enum Kind: Sendable, Equatable {
        case identifier(String)
        /// A quoted string: its value, and the same text as a LIKE pattern (where `\%` and `\_`
        /// stay escaped and a literal backslash is doubled, for `LIKE … ESCAPE '\'`).
        case string(value: String, likePattern: String)
        case integer(Int64)
        case decimal(Double)
        case date(days: Int64)
        case dateTime(seconds: Int64)
        case comma, leftParenthesis, rightParenthesis, colon
        case comparison(String)
        case end
    }

    package var kind: Kind
    package var offset: Int
    package var text: String

    package init(kind: Kind, offset: Int, text: String) {
        self.kind = kind
        self.offset = offset
        self.text = text
    }

    /// True when this is the keyword `word` (keywords ignore case).
    package func isKeyword(_ word: String) -> Bool {
        if case let .identifier(name) = kind { return name.uppercased() == word }
        return false
    }
}

/// A query that cannot be run, with the UTF-8 offset of the culprit so the message can point at it
/// like Salesforce's (`ERROR at Row:1:Column:N`).
package struct SOQLError: Error, Sendable {
    package var errorCode: String
    package var detail: String
    package var offset: Int

    package init(errorCode: String, detail: String, offset: Int) {
        self.errorCode = errorCode
        self.detail = detail
        self.offset = offset
    }
}

/// Splits SOQL text into tokens.
package struct SOQLLexer {
    let bytes: [UInt8]
    var position = 0

    package init(_ text: String) { bytes = Array(text.utf8) }

    package static func tokenize(_ text: String) throws(SOQLError) -> [SOQLToken] {
        var lexer = SOQLLexer(text)
        var tokens: [SOQLToken] = []
        while true {
            let token = try lexer.next()
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    private func byte(at index: Int) -> UInt8? { index < bytes.count ? bytes[index] : nil }

    private static func isDigit(_ byte: UInt8?) -> Bool { byte.map { (48...57).contains($0) } ?? false }
    private static func isIdentifierStart(_ byte: UInt8) -> Bool {
        (65...90).contains(byte) || (97...122).contains(byte) || byte == 95
    }
    private static func isIdentifierPart(_ byte: UInt8) -> Bool { isIdentifierStart(byte) || isDigit(byte) || byte == 46 }

    package mutating func next() throws(SOQLError) -> SOQLToken {
        while let current = byte(at: position), current == 32 || current == 9 || current == 10 || current == 13 { position += 1 }
        let start = position
        guard let current = byte(at: position) else { return SOQLToken(kind: .end, offset: start, text: "<EOF>") }
        func token(_ kind: SOQLToken.Kind, length: Int) -> SOQLToken {
            position = start + length
            return SOQLToken(kind: kind, offset: start, text: String(decoding: bytes[start..<start + length], as: UTF8.self))
        }
        switch current {
        case UInt8(ascii: ","): return token(.comma, length: 1)
        case UInt8(ascii: "("): return token(.leftParenthesis, length: 1)
        case UInt8(ascii: ")"): return token(.rightParenthesis, length: 1)
        case UInt8(ascii: ":"): return token(.colon, length: 1)
        case UInt8(ascii: "="): return token(.comparison("="), length: 1)
        case UInt8(ascii: "!"):
            if byte(at: start + 1) == UInt8(ascii: "=") { return token(.comparison("!="), length: 2) }
        case UInt8(ascii: "<"):
            if byte(at: start + 1) == UInt8(ascii: "=") { return token(.comparison("<="), length: 2) }
            if byte(at: start + 1) == UInt8(ascii: ">") { return token(.comparison("!="), length: 2) }
            return token(.comparison("<"), length: 1)
        case UInt8(ascii: ">"):
            if byte(at: start + 1) == UInt8(ascii: "=") { return token(.comparison(">="), length: 2) }
            return token(.comparison(">"), length: 1)
        case UInt8(ascii: "'"):
            return try stringLiteral()
        default:
            break
        }
        if Self.isDigit(current) || ((current == UInt8(ascii: "-") || current == UInt8(ascii: "+")) && Self.isDigit(byte(at: start + 1))) {
            return try numberOrDate()
        }
        if Self.isIdentifierStart(current) {
            var end = start + 1
            while let next = byte(at: end), Self.isIdentifierPart(next) { end += 1 }
            let text = String(decoding: bytes[start..<end], as: UTF8.self)
            return token(.identifier(text), length: end - start)
        }
        let text = String(decoding: [current], as: UTF8.self)
        throw SOQLError(errorCode: "MALFORMED_QUERY", detail: "unexpected token: '\(text)'", offset: start)
    }

    private mutating func stringLiteral() throws(SOQLError) -> SOQLToken {
        let start = position
        var value: [UInt8] = []
        var pattern: [UInt8] = []
        var index = start + 1
        while true {
            guard let current = byte(at: index) else {
                throw SOQLError(errorCode: "MALFORMED_QUERY", detail: "line 1:\(start) mismatched character '<EOF>' expecting '''", offset: start)
            }
            if current == UInt8(ascii: "'") {
                index += 1
                break
            }
            if current == UInt8(ascii: "\\") {
                guard let escaped = byte(at: index + 1) else {
                    index += 1
                    continue
                }
                switch escaped {
                case UInt8(ascii: "n"), UInt8(ascii: "N"):
                    value.append(10)
                    pattern.append(10)
                case UInt8(ascii: "r"), UInt8(ascii: "R"):
                    value.append(13)
                    pattern.append(13)
                case UInt8(ascii: "t"), UInt8(ascii: "T"):
                    value.append(9)
                    pattern.append(9)
                case UInt8(ascii: "b"), UInt8(ascii: "B"):
                    value.append(8)
                    pattern.append(8)
                case UInt8(ascii: "f"), UInt8(ascii: "F"):
                    value.append(12)
                    pattern.append(12)
                case UInt8(ascii: "'"), UInt8(ascii: "\""):
                    value.append(escaped)
                    pattern.append(escaped)
                case UInt8(ascii: "\\"):
                    value.append(escaped)
                    pattern.append(contentsOf: [92, 92])
                case UInt8(ascii: "%"), UInt8(ascii: "_"):
                    value.append(escaped)
                    pattern.append(contentsOf: [92, escaped])
                default:
                    throw SOQLError(
                        errorCode: "MALFORMED_QUERY",
                        detail:
                            "Invalid string literal '\\\(String(decoding: [escaped], as: UTF8.self))'. Illegal character sequence '\\\(String(decoding: [escaped], as: UTF8.self))' in string literal.",
                        offset: index)
                }
                index += 2
                continue
            }
            value.append(current)
            pattern.append(current)
            index += 1
        }
        position = index
        return SOQLToken(
            kind: .string(value: String(decoding: value, as: UTF8.self), likePattern: String(decoding: pattern, as: UTF8.self)),
            offset: start, text: String(decoding: bytes[start..<index], as: UTF8.self))
    }

    /// Numbers, and the unquoted date (`2024-01-02`) and datetime literals in every form clients send.
    private mutating func numberOrDate() throws(SOQLError) -> SOQLToken {
        let start = position
        let looksLikeDate =
            bytes.count >= start + 10
            && (0..<10).allSatisfy { offset in
                let character = bytes[start + offset]
                return offset == 4 || offset == 7 ? character == UInt8(ascii: "-") : Self.isDigit(character)
            }
        if looksLikeDate {
            var end = start + 10
            if byte(at: end) == UInt8(ascii: "T") {
                while let next = byte(at: end), Self.isDigit(next) || [UInt8(ascii: "T"), UInt8(ascii: ":"), UInt8(ascii: "."), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "Z")].contains(next)
                { end += 1 }
            }
            let text = String(decoding: bytes[start..<end], as: UTF8.self)
            position = end
            if end == start + 10, let days = SalesforceDate.parseDate(text) {
                return SOQLToken(kind: .date(days: days), offset: start, text: text)
            }
            if let seconds = SalesforceDate.parseDateTime(text) {
                return SOQLToken(kind: .dateTime(seconds: seconds), offset: start, text: text)
            }
            throw SOQLError(errorCode: "MALFORMED_QUERY", detail: "line 1:\(start) no viable alternative at character '\(text)'", offset: start)
        }
        var end = start + 1
        var sawPoint = false
        while let next = byte(at: end), Self.isDigit(next) || (next == UInt8(ascii: ".") && !sawPoint) {
            if next == UInt8(ascii: ".") { sawPoint = true }
            end += 1
        }
        let text = String(decoding: bytes[start..<end], as: UTF8.self)
        position = end
        if !sawPoint, let integer = Int64(text) { return SOQLToken(kind: .integer(integer), offset: start, text: text) }
        if let decimal = Double(text) { return SOQLToken(kind: .decimal(decimal), offset: start, text: text) }
        throw SOQLError(errorCode: "MALFORMED_QUERY", detail: "unexpected token: '\(text)'", offset: start)
    }
}
