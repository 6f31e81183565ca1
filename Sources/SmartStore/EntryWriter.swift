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
    private var nextId: Int64
    private let insert: RawStatement
    private let updateStatement: RawStatement
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
        let insertColumns = (["id", "soup", "created", "lastModified"] + columns).joined(separator: ", ")
        let placeholders = Array(repeating: "?", count: columns.count + 4).joined(separator: ", ")
        insert = try RawStatement(db, sql: "INSERT INTO \(table) (\(insertColumns)) VALUES (\(placeholders))")
        let assignments = (["soup", "lastModified"] + columns).map { "\($0) = ?" }.joined(separator: ", ")
        updateStatement = try RawStatement(db, sql: "UPDATE \(table) SET \(assignments) WHERE id = ?")
        if soup.hasFullTextSearch {
            let ftsColumns = soup.fullTextSpecs.compactMap(\.columnName)
            ftsInsert = try RawStatement(db, sql: """
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

    /// Replaces entry `id` with `stamped(document)`; false when there is no such entry.
    private mutating func replace(_ document: JSONObject, id: Int64) throws -> Bool {
        let values = projections(of: document, id: id)
        serialize(document, id: id)
        updateStatement.bindText(json, at: 1)
        updateStatement.bind(now, at: 2)
        for (offset, value) in values.enumerated() { updateStatement.bind(value, at: Int32(offset + 3)) }
        updateStatement.bind(id, at: Int32(values.count + 3))
        try updateStatement.execute()
        guard updateStatement.changes > 0 else { return false }
        try writeFullText(id: id, values: values, replacing: true)
        return true
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
            let value: JSONValue? = if let head = segments.first, let stamp = stampedValue(head, id: id) {
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
            ftsInsert.bind(value, at: position)
            position += 1
        }
        try ftsInsert.execute()
    }
}
