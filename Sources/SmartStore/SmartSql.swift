import GRDB
import GRDBSQLite

/// Smart SQL after translation to the store's SQL, with enough of a map back to the original text
/// to report errors at the character the user wrote.
public struct ConvertedSmartSql: Sendable, Equatable {
    public let sql: String
    let original: String
    /// Replaced spans, as UTF-8 byte ranges in the converted and the original text, in order.
    let replacements: [Replacement]

    struct Replacement: Sendable, Equatable {
        let converted: Range<Int>
        let original: Range<Int>
    }

    /// The 1-based character position in the original Smart SQL of a UTF-8 byte offset in `sql`.
    func originalPosition(ofConvertedByte offset: Int) -> Int {
        var delta = 0
        var mapped: Int?
        for replacement in replacements {
            if offset < replacement.converted.lowerBound { break }
            if offset < replacement.converted.upperBound {
                mapped = replacement.original.lowerBound
                break
            }
            delta = replacement.original.upperBound - replacement.converted.upperBound
        }
        let byte = min(max(mapped ?? offset + delta, 0), original.utf8.count)
        return Self.characterPosition(ofByte: byte, in: original)
    }

    static func characterPosition(ofByte byte: Int, in text: String) -> Int {
        let utf8 = text.utf8
        let index = utf8.index(utf8.startIndex, offsetBy: byte, limitedBy: utf8.endIndex) ?? utf8.endIndex
        return text[..<index].count + 1
    }

    /// The converted statement without trailing semicolons, ready to be wrapped in a subquery.
    var wrappableSQL: String {
        var text = Substring(sql)
        while let last = text.last, last == ";" || last.isWhitespace { text = text.dropLast() }
        return String(text)
    }
}

/// Translates Smart SQL (`{soup}`, `{soup:path}`, `{soup:_soup}`, …) into the store's SQL.
///
/// Works like the SDK's translation (references inside string literals are left alone, except in the
/// argument of MATCH) with a linear scan instead of regular expressions, so long queries stay fast.
public enum SmartSqlConverter {
    public static func convert(_ smartSql: String, soups: [String: SoupInfo]) throws(SmartSqlError) -> ConvertedSmartSql {
        let lowered = smartSql.drop { $0.isWhitespace }.prefix(6).lowercased()
        if lowered.hasPrefix("insert") || lowered.hasPrefix("update") || lowered.hasPrefix("delete") {
            throw SmartSqlError(.notSelect, position: 1)
        }
        let input = Array(smartSql.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(input.count + 64)
        var replacements: [ConvertedSmartSql.Replacement] = []
        var index = 0
        var inString = false
        var stringIsMatchArgument = false
        let quote = UInt8(ascii: "'")
        let openBrace = UInt8(ascii: "{")
        let closeBrace = UInt8(ascii: "}")

        while index < input.count {
            let byte = input[index]
            if inString, byte == quote {
                if index + 1 < input.count, input[index + 1] == quote {
                    output.append(contentsOf: [quote, quote])
                    index += 2
                } else {
                    inString = false
                    output.append(byte)
                    index += 1
                }
                continue
            }
            if !inString, byte == quote {
                stringIsMatchArgument = precedingWord(in: output).lowercased() == "match"
                inString = true
                output.append(byte)
                index += 1
                continue
            }
            guard byte == openBrace, !inString || stringIsMatchArgument else {
                output.append(byte)
                index += 1
                continue
            }
            let closing = input[(index + 1)...].firstIndex(of: closeBrace)
            // Outside a string, a `{` that meets another `{` (or the end) before its `}` is a
            // reference left open, not SQL: say so rather than what SQLite makes of the rest.
            if !inString, closing == nil || input[(index + 1)..<(closing ?? input.count)].contains(openBrace) {
                throw SmartSqlError(.unclosedBrace, position: ConvertedSmartSql.characterPosition(ofByte: index, in: smartSql))
            }
            guard let close = closing, close > index + 1 else {
                output.append(byte)
                index += 1
                continue
            }
            let reference = String(decoding: input[(index + 1)..<close], as: UTF8.self)
            let position = ConvertedSmartSql.characterPosition(ofByte: index, in: smartSql)
            let precededByDot = output.last == UInt8(ascii: ".")
            var start = output.count
            switch try translate(reference, soups: soups, position: position) {
            case let .plain(text, tableQualified):
                if !precededByDot, let table = tableQualified { output.append(contentsOf: "\(table).".utf8) }
                output.append(contentsOf: text.utf8)
            case let .jsonExtract(path):
                if precededByDot {
                    // alias.{soup:path} → json_extract(alias.soup, '$.path')
                    output.removeLast()
                    let aliasStart = output.lastIndex { !isIdentifierByte($0) }.map { $0 + 1 } ?? 0
                    let alias = String(decoding: output[aliasStart...], as: UTF8.self)
                    output.removeSubrange(aliasStart...)
                    start = aliasStart
                    output.append(contentsOf: JSONPathSQL.extract(path, table: alias).utf8)
                } else {
                    output.append(contentsOf: JSONPathSQL.extract(path).utf8)
                }
            }
            replacements.append(.init(converted: start..<output.count, original: index..<(close + 1)))
            index = close + 1
        }
        return ConvertedSmartSql(sql: String(decoding: output, as: UTF8.self), original: smartSql, replacements: replacements)
    }

    private enum Translation {
        /// Text to emit; `tableQualified` names the table to put in front unless the user wrote `alias.`.
        case plain(String, tableQualified: String?)
        case jsonExtract(path: String)
    }

    private static func translate(
        _ reference: String, soups: [String: SoupInfo], position: Int
    ) throws(SmartSqlError) -> Translation {
        let parts = reference.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count <= 2, !parts[0].isEmpty else { throw SmartSqlError(.invalidReference(reference), position: position) }
        guard let soup = soups[parts[0]] else { throw SmartSqlError(.unknownSoup(parts[0]), position: position) }
        guard parts.count == 2 else { return .plain(soup.tableName, tableQualified: nil) }
        let path = parts[1]
        guard !path.isEmpty else { throw SmartSqlError(.invalidReference(reference), position: position) }
        switch path {
        case "_soup": return .plain("soup", tableQualified: soup.tableName)
        case "_soupEntryId": return .plain("id", tableQualified: soup.tableName)
        case "_soupCreatedDate": return .plain("created", tableQualified: soup.tableName)
        case "_soupLastModifiedDate": return .plain("lastModified", tableQualified: soup.tableName)
        default:
            if let spec = soup.indexSpec(forPath: path), spec.type != .json1, let column = spec.columnName {
                return .plain(column, tableQualified: nil)
            }
            return .jsonExtract(path: path)
        }
    }

    private static func isIdentifierByte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
            || byte == 0x5F || byte >= 0x80
    }

    private static func precedingWord(in output: [UInt8]) -> String {
        var end = output.count
        while end > 0, output[end - 1] == 0x20 || output[end - 1] == 0x0A || output[end - 1] == 0x09 || output[end - 1] == 0x0D {
            end -= 1
        }
        var start = end
        while start > 0, isIdentifierByte(output[start - 1]) { start -= 1 }
        return String(decoding: output[start..<end], as: UTF8.self)
    }

    /// Compiles the converted statement without running it: a single, read-only statement, or an
    /// error that points at the offending character of the Smart SQL the user wrote.
    static func validate(_ converted: ConvertedSmartSql, in db: Database) throws {
        guard let connection = db.sqliteConnection else { throw SmartStoreError.database(message: "the store is closed") }
        var statement: OpaquePointer?
        var tailOffset = 0
        let sql = converted.sql
        let code = sql.withCString { base -> Int32 in
            var tail: UnsafePointer<CChar>?
            let code = sqlite3_prepare_v2(connection, base, -1, &statement, &tail)
            if let tail { tailOffset = base.distance(to: tail) }
            return code
        }
        defer { sqlite3_finalize(statement) }
        if code != SQLITE_OK {
            let message = String(cString: sqlite3_errmsg(connection))
            let offset = Int(sqlite3_error_offset(connection))
            let position = offset >= 0 ? converted.originalPosition(ofConvertedByte: offset) : nil
            throw SmartStoreError.smartSql(SmartSqlError(.sqlite(message), position: position))
        }
        guard statement != nil else {
            throw SmartStoreError.smartSql(SmartSqlError(.sqlite("the query is empty")))
        }
        let rest = sql.utf8.dropFirst(tailOffset)
        if let extra = rest.firstIndex(where: { $0 != 0x3B && $0 != 0x20 && $0 != 0x0A && $0 != 0x09 && $0 != 0x0D }) {
            let byte = sql.utf8.distance(from: sql.utf8.startIndex, to: extra)
            throw SmartStoreError.smartSql(
                SmartSqlError(.multipleStatements, position: converted.originalPosition(ofConvertedByte: byte)))
        }
        if sqlite3_stmt_readonly(statement) == 0 {
            throw SmartStoreError.smartSql(SmartSqlError(.notSelect, position: 1))
        }
    }
}
