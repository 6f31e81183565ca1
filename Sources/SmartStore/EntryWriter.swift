import ForceJSON
import GRDB

/// Writes documents into one soup's table, index columns and FTS table, with statements prepared once
/// per batch.
struct EntryWriter {
    private let db: Database
    private let soup: SoupInfo
    private let now: Int64
    private let columnSpecs: [IndexSpec]
    private let columnSegments: [[String]]
    private let columnNames: [String]
    private var nextId: Int64
    private let insert: RawStatement
    /// The entry's index columns as stored, to leave unchanged ones (and the FTS row) alone.
    private let currentColumns: RawStatement
    /// An UPDATE for each set of changed index columns met in this batch (bit i: column i).
    private var updateStatements: [UInt64: RawStatement] = [:]
    private let ftsInsert: RawStatement?
    private let ftsDelete: RawStatement?
    /// Reused between rows so serialising a document does not allocate.
    private var json: [UInt8] = []

    init(transaction: StoreTransaction, soup: SoupInfo) throws {
        db = transaction.db
        self.soup = soup
        now = transaction.now
        columnSpecs = soup.columnSpecs
        columnSegments = columnSpecs.map { PathProjection.segments(of: $0.path) }
        let table = soup.tableName
        let columns = columnSpecs.compactMap(\.columnName)
        columnNames = columns
        let insertColumns = (["id", "soup", "created", "lastModified"] + columns).joined(separator: ", ")
        let placeholders = Array(repeating: "?", count: columns.count + 4).joined(separator: ", ")
        insert = try RawStatement(db, sql: "INSERT INTO \(table) (\(insertColumns)) VALUES (\(placeholders))")
        currentColumns = try RawStatement(db, sql: "SELECT \((["id"] + columns).joined(separator: ", ")) FROM \(table) WHERE id = ?")
        if soup.hasFullTextSearch {
            let ftsColumns = soup.fullTextSpecs.compactMap(\.columnName)
            ftsInsert = try RawStatement(
                db,
                sql: """
                    INSERT INTO \(soup.ftsTableName) (rowid, \(ftsColumns.joined(separator: ", "))) \
                    VALUES (?, \(Array(repeating: "?", count: ftsColumns.count).joined(separator: ", ")))
                    """)
            ftsDelete = try RawStatement(db, sql: "DELETE FROM \(soup.ftsTableName) WHERE rowid = ?")
        } else {
            ftsInsert = nil
            ftsDelete = nil
        }
        let sequence = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = ?", arguments: [table])
        nextId = (sequence ?? 0) + 1
    }

    mutating func create(_ document: JSONObject) throws -> JSONObject {
        stamped(document, id: try insert(document))
    }

    mutating func update(_ document: JSONObject, id: Int64) throws -> JSONObject? {
        try replace(document, id: id) ? stamped(document, id: id) : nil
    }

    mutating func upsert(_ document: JSONObject, externalIdPath: String) throws -> JSONObject {
        stamped(document, id: try write(upserting: document, externalIdPath: externalIdPath))
    }

    /// Upserts without building the stored copy, for batches whose caller does not want it back;
    /// returns the entry's id.
    mutating func write(upserting document: JSONObject, externalIdPath: String) throws -> Int64 {
        guard let id = try existingId(of: document, externalIdPath: externalIdPath) else { return try insert(document) }
        guard try replace(document, id: id) else { throw SmartStoreError.entryNotFound(soup: soup.name, id: id) }
        return id
    }

    /// Inserts `document` as a new entry and returns its id. What is stored is `stamped(document)`,
    /// serialised and projected straight from `document`, without the copy that stamping it would
    /// make (every key, value and hash bucket, per record of a batch).
    private mutating func insert(_ document: JSONObject) throws -> Int64 {
        let id = nextId
        let values = projections(of: document, id: id)
        serialize(document, id: id)
        insert.bind(id, at: 1)
        insert.bindText(json, at: 2)
        insert.bind(now, at: 3)
        insert.bind(now, at: 4)
        for (offset, value) in values.enumerated() { insert.bind(value, at: Int32(offset + 5)) }
        try insert.execute()
        nextId += 1
        try writeFullText(id: id, values: values, replacing: false)
        return id
    }

    /// Replaces entry `id` with `stamped(document)`; false when there is no such entry. Only the
    /// index columns whose values change are written, and the full-text row only when one of its
    /// columns changes: a sync rewrites records whose flags change but not their names, and SQLite
    /// would otherwise delete and insert every index entry and every indexed word of each.
    private mutating func replace(_ document: JSONObject, id: Int64) throws -> Bool {
        currentColumns.bind(id, at: 1)
        guard let stored = try currentColumns.firstRow()?.dropFirst() else { return false }
        let values = projections(of: document, id: id)
        let changed = values.indices.filter { index in values[index] != stored[stored.startIndex + index] }
        serialize(document, id: id)
        let (update, bound) = try updateStatement(changing: changed)
        update.bindText(json, at: 1)
        update.bind(now, at: 2)
        for (offset, index) in bound.enumerated() { update.bind(values[index], at: Int32(offset + 3)) }
        update.bind(id, at: Int32(bound.count + 3))
        try update.execute()
        if changed.contains(where: { columnSpecs[$0].type == .fullText }) {
            try writeFullText(id: id, values: values, replacing: true)
        }
        return true
    }

    /// Statements for this many sets of changed columns are kept; others set every column.
    private static let cachedUpdateLimit = 32

    /// The UPDATE that sets `soup`, `lastModified` and the `changed` index columns, with the
    /// indices of the columns it binds: all of them when the columns do not fit a 64-bit mask or
    /// the batch has met too many different sets.
    private mutating func updateStatement(changing changed: [Int]) throws -> (RawStatement, [Int]) {
        let all = Array(columnNames.indices)
        let every = UInt64.max
        let key = columnNames.count < 64 ? changed.reduce(UInt64(0)) { $0 | (1 << UInt64($1)) } : every
        if let statement = updateStatements[key] { return (statement, key == every ? all : changed) }
        if key == every || updateStatements.count >= Self.cachedUpdateLimit {
            return (try cachedUpdate(key: every, binding: all), all)
        }
        return (try cachedUpdate(key: key, binding: changed), changed)
    }

    private mutating func cachedUpdate(key: UInt64, binding columns: [Int]) throws -> RawStatement {
        if let statement = updateStatements[key] { return statement }
        let assignments = (["soup", "lastModified"] + columns.map { columnNames[$0] }).map { "\($0) = ?" }.joined(separator: ", ")
        let statement = try RawStatement(db, sql: "UPDATE \(soup.tableName) SET \(assignments) WHERE id = ?")
        updateStatements[key] = statement
        return statement
    }

    /// The document as stored: its `_soupEntryId` and `_soupLastModifiedDate` set.
    private func stamped(_ document: JSONObject, id: Int64) -> JSONObject {
        var stored = document
        stored[SmartStore.soupEntryId] = .int(id)
        stored[SmartStore.soupLastModifiedDate] = .int(now)
        return stored
    }

    /// The value `stamped(document, id:)` holds at `key`.
    private func stampedValue(_ key: String, id: Int64) -> JSONValue? {
        switch key {
        case SmartStore.soupEntryId: .int(id)
        case SmartStore.soupLastModifiedDate: .int(now)
        default: nil
        }
    }

    /// Serialises `stamped(document, id:)` into `json`, byte for byte as `JSONWriter` writes it:
    /// the stamps in place of the document's own, or after its last key when it has none.
    private mutating func serialize(_ document: JSONObject, id: Int64) {
        json.removeAll(keepingCapacity: true)
        json.append(UInt8(ascii: "{"))
        var first = true
        func writeMember(_ key: String, _ value: JSONValue) {
            if !first { json.append(UInt8(ascii: ",")) }
            first = false
            JSONWriter.write(.string(key), into: &json)
            json.append(UInt8(ascii: ":"))
            JSONWriter.write(value, into: &json)
        }
        for (key, value) in document { writeMember(key, stampedValue(key, id: id) ?? value) }
        for key in [SmartStore.soupEntryId, SmartStore.soupLastModifiedDate] where document[key] == nil {
            writeMember(key, stampedValue(key, id: id) ?? .null)
        }
        json.append(UInt8(ascii: "}"))
    }

    private func existingId(of document: JSONObject, externalIdPath: String) throws -> Int64? {
        if externalIdPath == SmartStore.soupEntryId {
            guard let value = document[SmartStore.soupEntryId], !value.isNull else { return nil }
            guard let id = value.int64Value else {
                throw SmartStoreError.invalidDocument("_soupEntryId must be an integer, not \(value)")
            }
            return id
        }
        guard let spec = soup.indexSpec(forPath: externalIdPath) else {
            throw SmartStoreError.notIndexed(soup: soup.name, path: externalIdPath)
        }
        let value = PathProjection.project(externalIdPath, in: document)
        if value == nil || value == .string("") { throw SmartStoreError.emptyExternalIdValue(path: externalIdPath) }
        let lookup = try db.cachedStatement(
            sql: "SELECT id FROM \(soup.tableName) WHERE \(soup.expression(for: spec)) = ? LIMIT 2")
        let ids = try Int64.fetchAll(lookup, arguments: [ColumnValue(projecting: value, as: spec.type).databaseValue])
        guard ids.count <= 1 else {
            throw SmartStoreError.nonUniqueExternalId(
                soup: soup.name, path: externalIdPath, value: value.map { JSONWriter.string($0) } ?? "null")
        }
        return ids.first
    }

    /// The index columns' values for `stamped(document, id:)`.
    private func projections(of document: JSONObject, id: Int64) -> [ColumnValue] {
        zip(columnSpecs, columnSegments).map { spec, segments in
            let value: JSONValue? =
                if let head = segments.first, let stamp = stampedValue(head, id: id) {
                    segments.count == 1 ? stamp : nil  // a stamp is a number: nothing lies below it
                } else {
                    PathProjection.project(segments, in: document)
                }
            return ColumnValue(projecting: value, as: spec.type)
        }
    }

    private func writeFullText(id: Int64, values: [ColumnValue], replacing: Bool) throws {
        guard let ftsInsert else { return }
        if replacing, let ftsDelete {
            ftsDelete.bind(id, at: 1)
            try ftsDelete.execute()
        }
        ftsInsert.bind(id, at: 1)
        var position: Int32 = 2
        for (spec, value) in zip(columnSpecs, values) where spec.type == .fullText {
            if case let .text(text) = value {
                ftsInsert.bind(.text(FullTextExtras.indexed(text)), at: position)
            } else {
                ftsInsert.bind(value, at: position)
            }
            position += 1
        }
        try ftsInsert.execute()
    }
}
