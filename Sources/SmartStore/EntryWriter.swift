import ForceJSON
import GRDB

/// Writes documents into one soup's table, index columns and FTS table, with statements prepared once
/// per batch.
struct EntryWriter {
    private let db: Database
    private let soup: SoupInfo
    private let now: Int64
    private let columnSpecs: [IndexSpec]
    private let fullTextSpecs: [IndexSpec]
    private var nextId: Int64
    private let insert: Statement
    private let updateStatement: Statement
    private let ftsInsert: Statement?
    private let ftsDelete: Statement?

    init(transaction: StoreTransaction, soup: SoupInfo) throws {
        db = transaction.db
        self.soup = soup
        now = transaction.now
        columnSpecs = soup.columnSpecs
        fullTextSpecs = soup.fullTextSpecs
        let table = soup.tableName
        let columns = columnSpecs.compactMap(\.columnName)
        let insertColumns = (["id", "soup", "created", "lastModified"] + columns).joined(separator: ", ")
        let placeholders = Array(repeating: "?", count: columns.count + 4).joined(separator: ", ")
        insert = try db.cachedStatement(sql: "INSERT INTO \(table) (\(insertColumns)) VALUES (\(placeholders))")
        let assignments = (["soup", "lastModified"] + columns).map { "\($0) = ?" }.joined(separator: ", ")
        updateStatement = try db.cachedStatement(sql: "UPDATE \(table) SET \(assignments) WHERE id = ?")
        if soup.hasFullTextSearch {
            let ftsColumns = fullTextSpecs.compactMap(\.columnName)
            ftsInsert = try db.cachedStatement(sql: """
                INSERT INTO \(soup.ftsTableName) (rowid, \(ftsColumns.joined(separator: ", "))) \
                VALUES (?, \(Array(repeating: "?", count: ftsColumns.count).joined(separator: ", ")))
                """)
            ftsDelete = try db.cachedStatement(sql: "DELETE FROM \(soup.ftsTableName) WHERE rowid = ?")
        } else {
            ftsInsert = nil
            ftsDelete = nil
        }
        let sequence = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = ?", arguments: [table])
        nextId = (sequence ?? 0) + 1
    }

    mutating func create(_ document: JSONObject) throws -> JSONObject {
        let id = nextId
        var stored = document
        stored[SmartStore.soupEntryId] = .int(id)
        stored[SmartStore.soupLastModifiedDate] = .int(now)
        let values = projections(of: stored)
        var arguments: [DatabaseValue] = [id.databaseValue, JSONWriter.string(.object(stored)).databaseValue,
                                          now.databaseValue, now.databaseValue]
        arguments += values.map(\.databaseValue)
        try insert.execute(arguments: StatementArguments(arguments))
        nextId += 1
        try writeFullText(id: id, values: values, replacing: false)
        return stored
    }

    func update(_ document: JSONObject, id: Int64) throws -> JSONObject? {
        var stored = document
        stored[SmartStore.soupEntryId] = .int(id)
        stored[SmartStore.soupLastModifiedDate] = .int(now)
        let values = projections(of: stored)
        var arguments: [DatabaseValue] = [JSONWriter.string(.object(stored)).databaseValue, now.databaseValue]
        arguments += values.map(\.databaseValue)
        arguments.append(id.databaseValue)
        try updateStatement.execute(arguments: StatementArguments(arguments))
        guard db.changesCount > 0 else { return nil }
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
        columnSpecs.map { ColumnValue(projecting: PathProjection.project($0.path, in: document), as: $0.type) }
    }

    private func writeFullText(id: Int64, values: [ColumnValue], replacing: Bool) throws {
        guard let ftsInsert else { return }
        if replacing { try ftsDelete?.execute(arguments: [id]) }
        var arguments: [DatabaseValue] = [id.databaseValue]
        for (spec, value) in zip(columnSpecs, values) where spec.type == .fullText {
            arguments.append(value.databaseValue)
        }
        try ftsInsert.execute(arguments: StatementArguments(arguments))
    }
}
