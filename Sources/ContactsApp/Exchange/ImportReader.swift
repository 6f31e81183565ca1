import ForceJSON
import Foundation

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

    /// A file's bytes as text: UTF-8 (a BOM dropped), else Windows-1252, which spreadsheet
    /// programs still write; the second element says when that fallback was taken.
    public static func text(of data: Data) -> (text: String, note: String?) {
        var bytes = data
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        if let text = String(data: bytes, encoding: .utf8) { return (text, nil) }
        let text = String(data: bytes, encoding: .windowsCP1252) ?? String(decoding: bytes, as: UTF8.self)
        return (text, "the file is not UTF-8; it was read as Windows-1252 (Latin-1), as spreadsheet programs write it")
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
        var unsynced: [String] = []
        var skipped: [Int] = []
        for card in cards {
            let target = VCardMapping.isOrganization(card) ? accounts : contacts
            guard let target else {
                skipped.append(card.line)
                continue
            }
            let read = VCardMapping(kind: target, fields: schema.fieldNames(for: target)).texts(of: card)
            for property in read.unsynced where !unsynced.contains(property) { unsynced.append(property) }
            rows.append(ImportRow(line: card.line, kind: target, pairs: read.pairs, id: read.id, accountName: read.accountName))
        }
        var notes: [String] = []
        if !unsynced.isEmpty {
            notes.append("left out: \(unsynced.joined(separator: ", ")) (the config's sync sends no field for \(unsynced.count == 1 ? "it" : "them"))")
        }
        if !skipped.isEmpty {
            notes.append("left out: the cards at lines \(skipped.map(String.init).joined(separator: ", ")) (the config has no soup for that kind of card)")
        }
        if cards.isEmpty { throw ImportProblem(line: 0, message: "the file holds no vCard (no BEGIN:VCARD line)") }
        return (rows, notes)
    }

    // MARK: CSV

    /// Column names other programs use (Outlook's and Google's exports) for fields forceterm knows.
    static let contactColumnAliases: [String: String] = [
        "given name": "FirstName", "first name": "FirstName", "family name": "LastName", "last name": "LastName", "surname": "LastName",
        "e-mail address": "Email", "email address": "Email", "e-mail": "Email", "e-mail 1 - value": "Email", "email 1": "Email",
        "job title": "Title", "company": "AccountId", "account": "AccountId", "account name": "AccountId", "organization 1 - name": "AccountId",
        "organization": "AccountId", "organization 1 - title": "Title", "mobile phone": "MobilePhone", "mobile": "MobilePhone",
        "home phone": "HomePhone", "business phone": "Phone", "phone 1 - value": "Phone", "department": "Department",
        "organization 1 - department": "Department", "notes": "Description",
    ]
    static let accountColumnAliases: [String: String] = [
        "account name": "Name", "company": "Name", "organization": "Name", "web page": "Website", "web site": "Website", "url": "Website",
        "business phone": "Phone", "main phone": "Phone",
    ]
    static let idColumns: Set<String> = ["id", "salesforce id", "record id", "uid"]

    func csvRows(_ text: String, columnMap: [String: String]) throws -> (rows: [ImportRow], notes: [String]) {
        let (header, csvRows) = try CSVText.read(text)
        let form = schema.form(kind: kind, purpose: .create(preset: [:]), title: "", record: nil)
        var fieldByColumn: [Int: String] = [:]
        var idColumn: Int?
        var mappedFields: Set<String> = []
        // --map FIELD=COLUMN first: the user's word wins.
        for (field, column) in columnMap {
            guard let index = header.firstIndex(where: { $0.caseInsensitiveCompare(column) == .orderedSame }) else {
                throw ImportProblem(line: 1, message: "--map \(field)=\(column): the header has no column \(column); it has \(header.joined(separator: ", "))")
            }
            if field.caseInsensitiveCompare("Id") == .orderedSame {
                idColumn = index
                continue
            }
            guard let formField = RecordDraft.field(named: field, in: form) else {
                throw ImportProblem(line: 0, message: "--map \(field)=\(column): \(kind.plural) have no field \(field) that the sync sends; they have \(form.fields.map(\.name).joined(separator: ", "))")
            }
            fieldByColumn[index] = formField.name
            mappedFields.insert(formField.name)
        }
        let aliases = kind.role == .account ? Self.accountColumnAliases : kind.role == .contact ? Self.contactColumnAliases : [:]
        var leftOut: [String] = []
        for (index, name) in header.enumerated() where fieldByColumn[index] == nil && index != idColumn {
            if name.isEmpty { continue }
            if idColumn == nil, Self.idColumns.contains(name.lowercased()) {
                idColumn = index
            } else if let field = RecordDraft.field(named: name, in: form)?.name ?? aliases[name.lowercased()].flatMap({ alias in form.fields.first { $0.name == alias }?.name }),
                      !mappedFields.contains(field) {
                fieldByColumn[index] = field
                mappedFields.insert(field)
            } else {
                leftOut.append(name)
            }
        }
        if fieldByColumn.isEmpty {
            throw ImportProblem(line: 1, message: "no column of the header names a field the sync sends for \(kind.plural) (\(form.fields.map(\.name).joined(separator: ", "))); name the columns so, or give --map Field=Column")
        }
        let rows = csvRows.map { row in
            let pairs = fieldByColumn.sorted { $0.key < $1.key }.map { index, field in
                (field: field, text: row.cells.indices.contains(index) ? row.cells[index] : "")
            }
            let id = idColumn.flatMap { row.cells.indices.contains($0) ? row.cells[$0].trimmingWhitespace : nil }
            return ImportRow(line: row.line, kind: kind, pairs: pairs, id: id?.isEmpty == false ? id : nil)
        }
        var notes: [String] = []
        if !leftOut.isEmpty {
            notes.append("left out: the columns \(leftOut.joined(separator: ", ")) (no field the sync sends has that name; --map Field=Column takes one in)")
        }
        return (rows, notes)
    }

    // MARK: JSON

    func jsonRows(_ text: String) throws -> (rows: [ImportRow], notes: [String]) {
        let value: JSONValue
        do {
            value = try JSONParser.parse(text)
        } catch {
            throw ImportProblem(line: 0, message: "the file is not valid JSON (\(error))")
        }
        let objects: [JSONValue] = value.arrayValue ?? [value]
        let lines = Self.elementLines(text)
        let skippedKeys: Set<String> = ["id", "entryId", "soup", "state", "attributes"]
        var leftOut: [String] = []
        var rows: [ImportRow] = []
        for (index, element) in objects.enumerated() {
            let line = lines.indices.contains(index) ? lines[index] : 1
            guard let object = element.objectValue else {
                throw ImportProblem(line: line, message: "record \(index + 1) is not a JSON object")
            }
            let soup = object["soup"]?.stringValue
            let target = schema.kinds.first { $0.soupName == soup } ?? kind
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
            rows.append(ImportRow(line: line, kind: target, pairs: pairs, id: id))
        }
        var notes: [String] = []
        if !leftOut.isEmpty { notes.append("left out: the keys \(leftOut.joined(separator: ", ")) (not fields the sync sends)") }
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
