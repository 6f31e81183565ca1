import ForceJSON
import Foundation
import MobileSync
import SalesforceIds

/// Reads a file's records into `ImportRow`s: vCard (2.1, 3.0, 4.0; organisation cards become
/// accounts), CSV with a header row, or JSON as `forceterm export --format json` writes it.
public struct ImportReader: Sendable {
    public let schema: RecordSchema
    /// The soup CSV and JSON rows go to when they do not say (`--into`).
    public let kind: RecordKind

    public init(schema: RecordSchema, kind: RecordKind) {
        self.schema = schema
        self.kind = kind
    }

    /// A file's bytes as text: UTF-16 when a BOM says so, else UTF-8 (a BOM dropped); lines that
    /// are not UTF-8 are read as Windows-1252, which spreadsheet programs and old phones still
    /// write, line by line so one Latin-1 card does not garble a UTF-8 card beside it. The second
    /// element says when that fallback was taken.
    public static func text(of data: Data, encoding: String.Encoding? = nil) -> (text: String, note: String?) {
        var bytes = data
        if let encoding, let text = String(data: data, encoding: encoding) {
            return (text.hasPrefix("\u{FEFF}") ? String(text.dropFirst()) : text, nil)
        }
        if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) {
            if let text = String(data: bytes, encoding: .utf16) { return (text.hasPrefix("\u{FEFF}") ? String(text.dropFirst()) : text, nil) }
        }
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        if let text = String(data: bytes, encoding: .utf8) { return (text, nil) }
        var text = ""
        var fallbacks = 0
        for (index, line) in bytes.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
            if index > 0 { text += "\n" }
            if let utf8 = String(data: Data(line), encoding: .utf8) {
                text += utf8
            } else if let decoded = Self.declaredCharset(of: Data(line)).flatMap({ String(data: Data(line), encoding: $0) }) {
                text += decoded
            } else {
                fallbacks += 1
                text += String(data: Data(line), encoding: .windowsCP1252) ?? String(decoding: line, as: UTF8.self)
            }
        }
        guard fallbacks > 0 else { return (text, nil) }
        let lines = fallbacks == 1 ? "1 line is" : "\(fallbacks) lines are"
        return (text, "\(lines) not UTF-8 and \(fallbacks == 1 ? "was" : "were") read as Windows-1252 (Latin-1), as spreadsheet programs write it; --encoding names another (shift_jis, windows-1250…)")
    }

    /// The charset a vCard line's own parameters name (`N;CHARSET=SHIFT_JIS:…`, raw bytes), if any.
    static func declaredCharset(of line: Data) -> String.Encoding? {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        let header = String(decoding: line[line.startIndex..<colon], as: UTF8.self).uppercased()
        guard let range = header.range(of: "CHARSET=") else { return nil }
        let name = header[range.upperBound...].prefix { $0 != ";" && $0 != ":" }
        return TextEncodingName.encoding(named: String(name))
    }

    /// The format a file's content shows, when its name says none.
    public static func sniff(_ text: String) -> ExchangeFormat {
        let start = text.drop { $0.isWhitespace || $0 == "\u{FEFF}" }
        if start.prefix(11).uppercased() == "BEGIN:VCARD" { return .vcard }
        if start.first == "[" || start.first == "{" { return .json }
        return .csv
    }

    public func rows(_ text: String, format: ExchangeFormat, columnMap: [String: String] = [:]) throws -> (rows: [ImportRow], notes: [String]) {
        switch format {
        case .vcard: try vCardRows(text)
        case .csv: try csvRows(text, columnMap: columnMap)
        case .json: try jsonRows(text)
        }
    }

    // MARK: vCard

    func vCardRows(_ text: String) throws -> (rows: [ImportRow], notes: [String]) {
        let cards: [VCard]
        do {
            cards = try VCardFormat.parse(text)
        } catch let error as VCardSyntaxError {
            throw ImportProblem(line: error.line, message: error.reason)
        }
        let contacts = schema.kinds.first { $0.role == .contact }
        let accounts = schema.kinds.first { $0.role == .account }
        var rows: [ImportRow] = []
        var skipped: [Int] = []
        let checks = FieldChecks(schema: schema)
        // The file's lines as the parser numbers them ("\r\n" is one Character), to write a card back.
        let hasLineFeeds = text.contains { $0 == "\n" || $0 == "\r\n" }
        let lines = text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" || (!hasLineFeeds && $0 == "\r") }
            .map { String($0.drop { $0 == "\u{FEFF}" }.reversed().drop { $0 == "\r" }.reversed()) }
        for card in cards {
            let target = VCardMapping.isOrganization(card) ? accounts : contacts
            guard let target else {
                skipped.append(card.line)
                continue
            }
            var row = row(VCardMapping.entry(of: card), kind: target, accepts: checks.check(for: target))
            if card.line >= 1, card.endLine >= card.line, card.endLine <= lines.count {
                row.original = .vcard(lines: Array(lines[(card.line - 1)..<card.endLine]))
            }
            rows.append(row)
        }
        var notes: [String] = []
        if !skipped.isEmpty {
            let cards = skipped.count == 1 ? "the card at line" : "the cards at lines"
            notes.append("left out: \(cards) \(Self.lineList(skipped)) (the config has no soup for that kind of card)")
        }
        if cards.isEmpty { throw ImportProblem(line: 1, message: "the file holds no vCard (no BEGIN:VCARD line)") }
        return (rows, notes)
    }

    /// An entry placed into the fields the sync sends for `kind`.
    func row(_ entry: AddressBookEntry, kind: RecordKind, accepts: @escaping FieldCheck) -> ImportRow {
        let placed = EntryPlacement(kind: kind, fields: schema.fieldNames(for: kind)).place(entry, accepts: accepts)
        return ImportRow(
            line: entry.line, kind: kind, pairs: placed.pairs, id: entry.id.flatMap { Self.usableId($0, kind: kind) },
            accountName: placed.accountName, accountId: placed.accountId, report: placed.report)
    }

    /// An id worth matching: a local id, or a valid Salesforce id of `kind`'s object.
    static func usableId(_ text: String, kind: RecordKind) -> String? {
        let id = text.trimmingWhitespace
        if id.hasPrefix(LocalField.localIdPrefix) { return id }
        return SalesforceId.isValid(id, keyPrefix: kind.keyPrefix) ? id : nil
    }

    // MARK: CSV

    func csvRows(_ text: String, columnMap: [String: String]) throws -> (rows: [ImportRow], notes: [String]) {
        let (header, csvRows) = try CSVText.read(text)
        // `forceterm export all` writes several soups into one file, each row saying its own.
        let soupColumn = header.firstIndex { $0.caseInsensitiveCompare(RecordExporter.soupColumn) == .orderedSame }
        var books: [RecordKind: CSVAddressBook] = [:]
        func book(for kind: RecordKind) throws -> CSVAddressBook {
            if let book = books[kind] { return book }
            let form = schema.form(kind: kind, purpose: .create(preset: [:]), title: "", record: nil)
            let book = try CSVAddressBook(header: header, kind: kind, form: form, columnMap: columnMap, ignoring: soupColumn.map { [$0] } ?? [])
            guard book.readsAnything else {
                throw ImportProblem(
                    line: 1,
                    message:
                        "no column of the header names a field the sync sends for \(kind.plural) (\(form.fields.map(\.name).joined(separator: ", "))); name the columns so, or give --map Field=Column")
            }
            books[kind] = book
            return book
        }
        let first = try book(for: kind)
        var notes: [String] = []
        if first.source != .other { notes.append("columns read as \(first.source.rawValue) writes them") }
        let settings = first.roles.sorted { $0.key < $1.key }.compactMap { $0.value == .setting && $0.key != soupColumn ? header[$0.key] : nil }
        if !settings.isEmpty { notes.append("not imported: \(settings.joined(separator: ", ")) (settings of the program that wrote the file, not data)") }
        let short = csvRows.filter { $0.cells.count < header.count }.map(\.line)
        if !short.isEmpty {
            notes.append(
                "\(short.count) row\(short.count == 1 ? " has" : "s have") fewer cells than the header (line\(short.count == 1 ? "" : "s") \(Self.lineList(short))); the missing cells are read as empty"
            )
        }
        var rows: [ImportRow] = []
        let checks = FieldChecks(schema: schema)
        for csvRow in csvRows {
            var target = kind
            if let soupColumn {
                let soup = csvRow.cells.indices.contains(soupColumn) ? csvRow.cells[soupColumn].trimmingWhitespace : ""
                guard let named = schema.kinds.first(where: { $0.soupName == soup }) else {
                    var row = ImportRow(line: csvRow.line, kind: kind, pairs: [], problem: Self.unknownSoup(soup, in: schema))
                    row.original = .csv(cells: csvRow.cells)
                    rows.append(row)
                    continue
                }
                target = named
            }
            var row = row(try book(for: target).entry(csvRow), kind: target, accepts: checks.check(for: target))
            if csvRow.cells.count > header.count, csvRow.cells.dropFirst(header.count).contains(where: { !$0.trimmingWhitespace.isEmpty }) {
                row.problem = "it has \(csvRow.cells.count) cells but the header names \(header.count) columns; a value with a comma in it needs quotes around it"
            }
            row.original = .csv(cells: csvRow.cells)
            rows.append(row)
        }
        return (rows, notes)
    }

    static func unknownSoup(_ soup: String, in schema: RecordSchema) -> String {
        "its soup is \(soup.isEmpty ? "empty" : soup); this config's record soups are \(schema.kinds.map(\.soupName).joined(separator: ", "))"
    }

    /// `3, 9, 12` or `3, 9, 12 and 40 more`.
    static func lineList(_ lines: [Int]) -> String {
        let shown = lines.prefix(8).map(String.init).joined(separator: ", ")
        return lines.count > 8 ? "\(shown) and \(lines.count - 8) more" : shown
    }

    // MARK: JSON

    func jsonRows(_ text: String) throws -> (rows: [ImportRow], notes: [String]) {
        let value: JSONValue
        do {
            value = try JSONParser.parse(text)
        } catch {
            let before = text.utf8.prefix(error.offset)
            let line = before.reduce(1) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
            throw ImportProblem(line: line, message: "the file is not valid JSON here: \(error.message)")
        }
        let objects: [JSONValue] = value.arrayValue ?? [value]
        let lines = Self.elementLines(text)
        let skippedKeys: Set<String> = ["id", "entryId", "soup", "state", "attributes", ImportRejects.errorKey]
        var leftOut: [String] = []
        var rows: [ImportRow] = []
        for (index, element) in objects.enumerated() {
            let line = lines.indices.contains(index) ? lines[index] : 1
            guard let object = element.objectValue else {
                throw ImportProblem(line: line, message: "record \(index + 1) is not a JSON object")
            }
            let soup = object["soup"]?.stringValue
            let target = schema.kinds.first { $0.soupName == soup } ?? kind
            if let soup, target.soupName != soup {
                var row = ImportRow(line: line, kind: kind, pairs: [], problem: Self.unknownSoup(soup, in: schema))
                row.original = .json(object)
                rows.append(row)
                continue
            }
            let fields = schema.fieldNames(for: target)
            var pairs: [(field: String, text: String)] = []
            for (key, value) in object where !skippedKeys.contains(key) && key != "Id" && !ConflictComparison.isBookkeeping(key) && !key.hasPrefix("_soup") {
                if fields.contains(key) {
                    pairs.append((field: key, text: LocalRecord.text(value)))
                } else if !leftOut.contains(key) {
                    leftOut.append(key)
                }
            }
            let id = object["id"]?.stringValue ?? object["Id"]?.stringValue
            let accountId = pairs.first { $0.field == "AccountId" }?.text
            pairs.removeAll { $0.field == "AccountId" }
            var row = ImportRow(
                line: line, kind: target, pairs: pairs, id: id.flatMap { Self.usableId($0, kind: target) },
                accountId: accountId?.isEmpty == false ? accountId : nil)
            row.original = .json(object)
            rows.append(row)
        }
        var notes: [String] = []
        if !leftOut.isEmpty { notes.append("left out: the key\(leftOut.count == 1 ? "" : "s") \(leftOut.joined(separator: ", ")) (not fields the sync sends)") }
        return (rows, notes)
    }

    /// The line each element of a top-level JSON array starts on, so a bad record can be named.
    static func elementLines(_ text: String) -> [Int] {
        var lines: [Int] = []
        var line = 1
        var depth = 0
        var inString = false
        var escaped = false
        for character in text {
            if character.isNewline { line += 1 }
            if inString {
                if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == "\"" { inString = false }
                continue
            }
            switch character {
            case "\"":
                if depth == 1 { lines.append(line) }
                inString = true
            case "[", "{":
                if depth == 1 { lines.append(line) }
                depth += 1
            case "]", "}": depth -= 1
            default: break
            }
        }
        return lines
    }
}

extension RecordKind {
    /// The first three characters of this object's record ids, for the standard objects.
    var keyPrefix: String? { SalesforceId.standardKeyPrefix(of: sObjectType) }
}

/// Whether a value fits a field's form (an email that looks like one, a phone of phone
/// characters); a value that does not is kept in the note field rather than refusing its record.
public typealias FieldCheck = @Sendable (_ field: String, _ text: String) -> Bool

/// The form checks of each kind's fields, read once per import.
final class FieldChecks: @unchecked Sendable {
    let schema: RecordSchema
    private var checks: [String: FieldCheck] = [:]

    init(schema: RecordSchema) {
        self.schema = schema
    }

    func check(for kind: RecordKind) -> FieldCheck {
        if let check = checks[kind.soupName] { return check }
        let form = schema.form(kind: kind, purpose: .create(preset: [:]), title: "", record: nil)
        let rules = Dictionary(form.fields.map { ($0.name, $0.rule) }, uniquingKeysWith: { first, _ in first })
        let check: FieldCheck = { field, text in
            guard let rule = rules[field] else { return true }
            switch rule.format {
            case .email, .phone, .url, .date: return rule.problem(with: text) == nil
            default: return true
            }
        }
        checks[kind.soupName] = check
        return check
    }
}
