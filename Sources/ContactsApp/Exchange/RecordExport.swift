import ForceJSON
import SmartStore

/// The file formats records are exported to and imported from.
public enum ExchangeFormat: String, CaseIterable, Sendable {
    case vcard, csv, json

    /// The format a file's name says (`.vcf`, `.vcard`, `.csv`, `.json`); nil when it says none.
    public static func named(byPath path: String) -> ExchangeFormat? {
        let lowered = path.lowercased()
        if lowered.hasSuffix(".vcf") || lowered.hasSuffix(".vcard") { return .vcard }
        if lowered.hasSuffix(".csv") { return .csv }
        if lowered.hasSuffix(".json") { return .json }
        return nil
    }
}

/// Writes local records as vCard 4.0, CSV or JSON, a record at a time through `write` so a large
/// soup is never held whole. Records marked deleted here are left out: they are gone from the
/// user's point of view. Several kinds go into one file with accounts first, so an import of it
/// links each contact to its account: vCard as organisation cards, CSV with a `Soup` column, JSON
/// with each record's `soup`.
public struct RecordExporter: Sendable {
    public let store: SmartStore
    public let schema: RecordSchema
    public let kinds: [RecordKind]
    /// "4.0" (RFC 6350) or "3.0" (RFC 2426), for address books that still want 3.0.
    public var vCardVersion = "4.0"
    /// CSV for Excel: a UTF-8 byte order mark first, so it does not read the file as the
    /// system's legacy code page (line ends are CRLF in any case).
    public var excel = false

    public init(store: SmartStore, schema: RecordSchema, kind: RecordKind) {
        self.init(store: store, schema: schema, kinds: [kind])
    }

    public init(store: SmartStore, schema: RecordSchema, kinds: [RecordKind]) {
        self.store = store
        self.schema = schema
        self.kinds = kinds.filter { $0.role == .account } + kinds.filter { $0.role != .account }
    }

    /// The CSV column that says each row's soup, when a file holds several.
    public static let soupColumn = "Soup"

    /// The kinds a format can carry: vCard has no card for records other than people and organisations.
    public func kinds(for format: ExchangeFormat) -> [RecordKind] {
        format == .vcard ? kinds.filter { $0.role != .other } : kinds
    }

    /// Writes the records `search` finds (all without one) in the list's order; returns how many.
    @discardableResult
    public func export(as format: ExchangeFormat, search: String? = nil, write: (String) throws -> Void) throws -> Int {
        let exported = kinds(for: format)
        let several = exported.count > 1
        var columns: [String] = []
        for kind in exported { for field in schema.fieldNames(for: kind) where !columns.contains(field) { columns.append(field) } }
        var count = 0
        switch format {
        case .csv: try write((excel ? "\u{FEFF}" : "") + CSVText.row((several ? [Self.soupColumn] : []) + ["Id"] + columns))
        case .json: try write("[")
        case .vcard: break
        }
        var accountNames: [String: String] = [:]
        let accounts = schema.kinds.first { $0.role == .account }.map { RecordRepository(store: store, kind: $0) }
        func accountName(_ record: LocalRecord) -> String? {
            let id = record.string("AccountId")
            guard !id.isEmpty, let accounts else { return nil }
            if let known = accountNames[id] { return known }
            let name = (try? accounts.record(id: id))??.string("Name") ?? ""
            accountNames[id] = name
            return name
        }
        for kind in exported {
            let repository = RecordRepository(store: store, kind: kind)
            let ids = if let search, !search.isEmpty { try repository.entryIds(matching: search) } else { nil as [Int64]? }
            let fields = schema.fieldNames(for: kind)
            let mapping = VCardMapping(kind: kind, fields: fields)
            try repository.forEachRecord(entryIds: ids) { record in
                guard !record.isLocallyDeleted else { return }
                switch format {
                case .vcard:
                    let card = mapping.card(for: record, accountName: kind.role == .contact ? accountName(record) : nil)
                    try write(VCardFormat.write(vCardVersion == "3.0" ? VCardMapping.version3(of: card) : card))
                case .csv:
                    let cells = columns.map { fields.contains($0) ? record.string($0) : "" }
                    try write(CSVText.row((several ? [kind.soupName] : []) + [record.serverId ?? ""] + cells))
                case .json:
                    try write((count == 0 ? "\n" : ",\n") + JSONWriter.string(Self.json(record, kind: kind), pretty: false))
                }
                count += 1
            }
        }
        if format == .json { try write(count == 0 ? "]\n" : "\n]\n") }
        return count
    }

    /// A record as JSON for scripts (`forceterm list --format json`, `show --json`, exports): its
    /// ids, its soup and state, and every field the org sent, without the sync's bookkeeping.
    public static func json(_ record: LocalRecord, kind: RecordKind) -> JSONValue {
        var object: JSONObject = [
            "id": record.serverId.map(JSONValue.string) ?? .null, "entryId": .int(record.entryId),
            "soup": .string(kind.soupName), "state": .string(record.state.rawValue),
        ]
        for (key, value) in record.document where !ConflictComparison.isBookkeeping(key) && object[key] == nil { object[key] = value }
        return .object(object)
    }
}
