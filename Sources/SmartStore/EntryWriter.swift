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
        let id = nextId
        let stored = stamped(document, id: id)
        let values = projections(of: stored)
        serialize(stored)
        insert.bind(id, at: 1)
        insert.bindText(json, at: 2)
        insert.bind(now, at: 3)
        insert.bind(now, at: 4)
        for (offset, value) in values.enumerated() { insert.bind(value, at: Int32(offset + 5)) }
        try insert.execute()
        nextId += 1
        try writeFullText(id: id, values: values, replacing: false)
        return stored
    }

    mutating func update(_ document: JSONObject, id: Int64) throws -> JSONObject? {
        let stored = stamped(document, id: id)
        let values = projections(of: stored)
        serialize(stored)
        updateStatement.bindText(json, at: 1)
        updateStatement.bind(now, at: 2)
        for (offset, value) in values.enumerated() { updateStatement.bind(value, at: Int32(offset + 3)) }
        updateStatement.bind(id, at: Int32(values.count + 3))
        try updateStatement.execute()
        guard updateStatement.changes > 0 else { return nil }
        try writeFullText(id: id, values: values, replacing: true)
        return stored
    }

    mutating func upsert(_ document: JSONObject, externalIdPath: String) throws -> JSONObject {
        guard let id = try existingId(of: document, externalIdPath: externalIdPath) else { return try create(document) }
        guard let stored = try update(document, id: id) else {
            throw SmartStoreError.entryNotFound(soup: soup.name, id: id)
        }
        return stored
    }

    private func stamped(_ document: JSONObject, id: Int64) -> JSONObject {
        var stored = document
        stored[SmartStore.soupEntryId] = .int(id)
        stored[SmartStore.soupLastModifiedDate] = .int(now)
        return stored
    }

    private mutating func serialize(_ document: JSONObject) {
        json.removeAll(keepingCapacity: true)
        JSONWriter.write(.object(document), into: &json)
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

    private func projections(of document: JSONObject) -> [ColumnValue] {
        zip(columnSpecs, columnSegments).map { spec, segments in
            ColumnValue(projecting: PathProjection.project(segments, in: document), as: spec.type)
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
