import SOQLSyntax

/// A parsed SOSL search: `FIND {terms} [IN … FIELDS] [RETURNING Object(fields …), …] [LIMIT n]`.
struct SOSLSearch: Sendable {
    enum Scope: String, Sendable { case all = "ALL", name = "NAME", email = "EMAIL", phone = "PHONE" }
    /// Alternatives (OR) of word lists that must all match (AND); `*` and `?` already turned into `%` and `_`.
    var alternatives: [[String]]
    var scope: Scope
    /// One query per RETURNING object; empty means every object.
    var returning: [SOQLQuery]
    var limit: Int?
}

extension SOQLParser {
    /// Parses SOSL. The braces of FIND are read here; the rest reuses the SOQL lexer and parser.
    static func parseSearch(_ text: String) throws(SOQLError) -> SOSLSearch {
        let bytes = Array(text.utf8)
        var index = 0
        func skipSpace() { while index < bytes.count, [32, 9, 10, 13].contains(bytes[index]) { index += 1 } }
        skipSpace()
        guard bytes.count >= index + 4, String(decoding: bytes[index..<index + 4], as: UTF8.self).uppercased() == "FIND" else {
            throw SOQLError(errorCode: "MALFORMED_SEARCH", detail: "SOSL searches start with FIND {…}", offset: index)
        }
        index += 4
        skipSpace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else {
            throw SOQLError(errorCode: "MALFORMED_SEARCH", detail: "expected '{' after FIND", offset: index)
        }
        index += 1
        var term: [UInt8] = []
        var escapedPositions = Set<Int>()
        while true {
            guard index < bytes.count else { throw SOQLError(errorCode: "MALFORMED_SEARCH", detail: "missing '}' after the search term", offset: index) }
            if bytes[index] == UInt8(ascii: "\\"), index + 1 < bytes.count {
                escapedPositions.insert(term.count)
                term.append(bytes[index + 1])
                index += 2
                continue
            }
            if bytes[index] == UInt8(ascii: "}") {
                index += 1
                break
            }
            term.append(bytes[index])
            index += 1
        }
        let alternatives = try searchAlternatives(term, escaped: escapedPositions, offset: index)
        let restText = String(decoding: bytes[index...], as: UTF8.self)
        var parser = SOQLParser(
            tokens: try SOQLLexer.tokenize(restText).map { token in
                var shifted = token
                shifted.offset += index
                return shifted
            })
        var search = SOSLSearch(alternatives: alternatives, scope: .all, returning: [], limit: nil)
        if parser.current.isKeyword("IN") {
            parser.advance()
            guard case let .identifier(word) = parser.current.kind, let scope = SOSLSearch.Scope(rawValue: word.uppercased()) else { throw parser.unexpected() }
            search.scope = scope
            parser.advance()
            try parser.expectKeyword("FIELDS")
        }
        if parser.current.isKeyword("RETURNING") {
            parser.advance()
            repeat {
                if parser.current.kind == .comma { parser.advance() }
                guard case let .identifier(objectName) = parser.current.kind, !objectName.contains(".") else { throw parser.unexpected() }
                var query = SOQLQuery(
                    items: [], isCount: false, objectName: objectName, objectOffset: parser.current.offset,
                    condition: nil, ordering: [], limit: nil, offset: nil)
                parser.advance()
                if parser.current.kind == .leftParenthesis {
                    parser.advance()
                    repeat {
                        if parser.current.kind == .comma { parser.advance() }
                        query.items.append(.field(try parser.parseFieldPath()))
                    } while parser.current.kind == .comma
                    try parser.parseClauses(into: &query)
                    guard parser.current.kind == .rightParenthesis else { throw parser.unexpected() }
                    parser.advance()
                }
                search.returning.append(query)
            } while parser.current.kind == .comma
        }
        if parser.current.isKeyword("LIMIT") {
            parser.advance()
            guard case let .integer(limit) = parser.current.kind, limit > 0 else { throw parser.unexpected() }
            search.limit = Int(clamping: limit)
            parser.advance()
        }
        guard parser.current.kind == .end else { throw parser.unexpected() }
        return search
    }

    /// Splits a search term into OR-alternatives of AND-ed words, quoted phrases kept whole,
    /// wildcards turned into LIKE wildcards and literal `%`/`_` escaped.
    static func searchAlternatives(_ term: [UInt8], escaped: Set<Int>, offset: Int) throws(SOQLError) -> [[String]] {
        var words: [String] = []
        var current: [UInt8] = []
        var inPhrase = false
        func finish() {
            if !current.isEmpty { words.append(String(decoding: current, as: UTF8.self)) }
            current = []
        }
        for (position, byte) in term.enumerated() {
            let isEscaped = escaped.contains(position)
            switch byte {
            case UInt8(ascii: "\"") where !isEscaped:
                finish()
                inPhrase.toggle()
            case 32, 9, 10, 13:
                // Blanks separate words, except inside a "phrase", which matches as written.
                if inPhrase { current.append(byte) } else { finish() }
            case UInt8(ascii: "*") where !isEscaped: current.append(UInt8(ascii: "%"))
            case UInt8(ascii: "?") where !isEscaped: current.append(UInt8(ascii: "_"))
            case UInt8(ascii: "%"), UInt8(ascii: "_"), UInt8(ascii: "\\"): current += [UInt8(ascii: "\\"), byte]
            default: current.append(byte)
            }
        }
        finish()
        var alternatives: [[String]] = [[]]
        for word in words {
            switch word.uppercased() {
            case "OR": alternatives.append([])
            case "AND": continue
            default: alternatives[alternatives.count - 1].append(word)
            }
        }
        alternatives = alternatives.filter { !$0.isEmpty }
        let significant = alternatives.flatMap { $0 }.map { $0.replacingOccurrences(of: "%", with: "").replacingOccurrences(of: "_", with: "") }
        guard !alternatives.isEmpty, significant.allSatisfy({ $0.count >= 2 }) else {
            throw SOQLError(errorCode: "MALFORMED_SEARCH", detail: "search term must be longer than one character", offset: offset)
        }
        return alternatives
    }
}
