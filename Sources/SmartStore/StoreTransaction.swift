import ForceJSON
import Foundation
import GRDB

/// The store's operations inside one SQLite transaction. `SmartStore` runs each of its calls in one;
/// callers that need several steps to commit together (a sync applying a batch of records and its
/// progress) get one from `SmartStore.write`.
public struct StoreTransaction {
    let db: Database
    let catalog: SoupCatalog
    /// Epoch milliseconds used for every `created` / `lastModified` written in this transaction.
    public let now: Int64

    init(db: Database, catalog: SoupCatalog, now: Int64 = SmartStore.currentTimeMillis()) {
        self.db = db
        self.catalog = catalog
        self.now = now
    }

    func soup(_ name: String) throws -> SoupInfo { try catalog.soup(name, db) }

    // MARK: Soups

    public func hasSoup(_ name: String) throws -> Bool { try catalog.soups(db)[name] != nil }

    public func soupNames() throws -> [String] { try catalog.soups(db).keys.sorted() }

    public func soupInfo(_ name: String) throws -> SoupInfo { try soup(name) }

    public func indexSpecs(soup name: String) throws -> [IndexSpec] { try soup(name).indexSpecs }

    public func hasIndex(soup name: String, path: String) throws -> Bool { try soup(name).indexSpec(forPath: path) != nil }

    /// Registers a soup; registering one that exists does nothing (its specs are not compared).
    @discardableResult
    public func registerSoup(_ name: String, indexSpecs: [IndexSpec]) throws -> Bool {
        try SoupSchema.validateSoupName(name)
        try SoupSchema.validate(indexSpecs, soup: name)
        if try hasSoup(name) { return false }
        try db.execute(sql: "INSERT INTO soup_attrs (soupName) VALUES (?)", arguments: [name])
        let table = "TABLE_\(db.lastInsertedRowID)"
        try SoupSchema.createSoupTable(db, soup: name, table: table, specs: SoupSchema.assignColumns(indexSpecs, table: table))
        return true
    }

    public func dropSoup(_ name: String) throws {
        guard let info = try catalog.soups(db)[name] else { return }
        try db.execute(sql: "DROP TABLE IF EXISTS \(info.ftsTableName)")
        try db.execute(sql: "DROP TABLE IF EXISTS \(info.tableName)")
        try db.execute(sql: "DELETE FROM soup_attrs WHERE soupName = ?", arguments: [name])
        try db.execute(sql: "DELETE FROM soup_index_map WHERE soupName = ?", arguments: [name])
    }

    public func dropAllSoups() throws {
        for name in try soupNames() { try dropSoup(name) }
    }

    /// Removes every entry; the soup and its indexes stay.
    public func clearSoup(_ name: String) throws {
        let info = try soup(name)
        try db.execute(sql: "DELETE FROM \(info.tableName)")
        if info.hasFullTextSearch { try db.execute(sql: "DELETE FROM \(info.ftsTableName)") }
    }

    // MARK: Entries

    /// Creates one entry per document; returns them as stored, with `_soupEntryId` and `_soupLastModifiedDate`.
    public func create(_ documents: [JSONObject], in soupName: String) throws -> [JSONObject] {
        var writer = try EntryWriter(transaction: self, soup: soup(soupName))
        return try documents.map { try writer.create($0) }
    }

    /// Replaces the entry `id` wholesale; `nil` when no such entry exists.
    public func update(_ document: JSONObject, id: Int64, in soupName: String) throws -> JSONObject? {
        var writer = try EntryWriter(transaction: self, soup: soup(soupName))
        return try writer.update(document, id: id)
    }

    /// Updates entries matched by `externalIdPath` (`_soupEntryId` by default) and creates the others.
    /// All or nothing: the first failure throws and the caller's transaction rolls back.
    public func upsert(
        _ documents: [JSONObject], in soupName: String, externalIdPath: String = SmartStore.soupEntryId
    ) throws -> [JSONObject] {
        var writer = try EntryWriter(transaction: self, soup: soup(soupName))
        return try documents.map { try writer.upsert($0, externalIdPath: externalIdPath) }
    }

    /// Like `upsert`, for a stream too large to hold: documents are written as they come and not returned.
    @discardableResult
    public func upsert<S: Sequence<JSONObject>>(
        contentsOf documents: S, in soupName: String, externalIdPath: String = SmartStore.soupEntryId
    ) throws -> Int {
        var writer = try EntryWriter(transaction: self, soup: soup(soupName))
        var count = 0
        for document in documents {
            _ = try writer.write(upserting: document, externalIdPath: externalIdPath)
            count += 1
        }
        return count
    }

    /// The entries whose indexed `path` holds one of `values` (text), as stored, in no particular
    /// order. One cached statement whatever the number of values (they go in as one JSON array),
    /// so a sync down looking up each page's ids neither builds nor prepares SQL per page.
    public func entries(whereIndexed path: String, isOneOf values: [String], in soupName: String) throws -> [JSONObject] {
        let info = try soup(soupName)
        guard let spec = info.indexSpec(forPath: path) else { throw SmartStoreError.notIndexed(soup: soupName, path: path) }
        guard !values.isEmpty else { return [] }
        let statement = try db.cachedStatement(
            sql: "SELECT soup FROM \(info.tableName) WHERE \(info.expression(for: spec)) IN (SELECT value FROM json_each(?))")
        let list = JSONWriter.string(.array(values.map(JSONValue.string)))
        return try String.fetchAll(statement, arguments: [list]).map(Self.parseDocument)
    }

    /// The documents with these ids, in id order; missing ids are skipped.
    public func retrieve(_ ids: [Int64], from soupName: String) throws -> [JSONObject] {
        let info = try soup(soupName)
        var documents: [JSONObject] = []
        for chunk in ids.chunked(into: 500) {
            let placeholders = Array(repeating: "?", count: chunk.count).joined(separator: ",")
            let texts = try String.fetchAll(
                db, sql: "SELECT soup FROM \(info.tableName) WHERE id IN (\(placeholders)) ORDER BY id",
                arguments: StatementArguments(chunk))
            documents += try texts.map(Self.parseDocument)
        }
        return documents
    }

    public func delete(_ ids: [Int64], from soupName: String) throws {
        let info = try soup(soupName)
        for chunk in ids.chunked(into: 500) {
            let placeholders = Array(repeating: "?", count: chunk.count).joined(separator: ",")
            try db.execute(sql: "DELETE FROM \(info.tableName) WHERE id IN (\(placeholders))", arguments: StatementArguments(chunk))
            if info.hasFullTextSearch {
                try db.execute(
                    sql: "DELETE FROM \(info.ftsTableName) WHERE rowid IN (\(placeholders))", arguments: StatementArguments(chunk))
            }
        }
    }

    /// Deletes the first `pageSize` entries the spec matches (as the SDK does) and returns their ids.
    @discardableResult
    public func delete(matching spec: QuerySpec, from soupName: String) throws -> [Int64] {
        let (sql, arguments) = try compile(spec.idsSmartSql, spec: spec, arguments: [])
        let ids = try Int64.fetchAll(db, sql: "SELECT * FROM (\(sql)) LIMIT \(spec.pageSize)", arguments: arguments)
        try delete(ids, from: soupName)
        return ids
    }

    /// The `_soupEntryId` of the entry whose indexed `path` equals `value`, if exactly one.
    public func lookupSoupEntryId(soup soupName: String, path: String, value: JSONValue) throws -> Int64? {
        let info = try soup(soupName)
        guard let spec = info.indexSpec(forPath: path) else { throw SmartStoreError.notIndexed(soup: soupName, path: path) }
        let ids = try Int64.fetchAll(
            db, sql: "SELECT id FROM \(info.tableName) WHERE \(info.expression(for: spec)) = ? LIMIT 2",
            arguments: [ColumnValue(projecting: value, as: spec.type).databaseValue])
        guard ids.count <= 1 else {
            throw SmartStoreError.nonUniqueExternalId(soup: soupName, path: path, value: JSONWriter.string(value))
        }
        return ids.first
    }

    // MARK: Queries

    /// One page of results: documents for plain specs, rows (arrays) for smart specs or select paths.
    public func query(_ spec: QuerySpec, pageIndex: Int = 0, arguments: [JSONValue] = []) throws -> [JSONValue] {
        try queryPage(spec, pageIndex: pageIndex, arguments: arguments).values
    }

    /// One page of results with its column names, for displays that show a grid.
    public func queryPage(_ spec: QuerySpec, pageIndex: Int = 0, arguments: [JSONValue] = []) throws -> QueryPage {
        let (sql, bound) = try compile(spec.smartSql, spec: spec, arguments: arguments)
        let offset = max(pageIndex, 0) * spec.pageSize
        let statement = try db.makeStatement(sql: "SELECT * FROM (\(sql)) LIMIT \(offset), \(spec.pageSize)")
        let columns = statement.columnNames
        var rows: [[JSONValue]] = []
        let cursor = try Row.fetchCursor(statement, arguments: bound)
        while let row = try cursor.next() {
            rows.append(try columns.indices.map { try Self.value(of: row[$0] as DatabaseValue, column: columns[$0]) })
        }
        return QueryPage(columns: columns, rows: rows, documents: !spec.returnsRows)
    }

    /// The number of results the spec has across all pages.
    public func count(_ spec: QuerySpec, arguments: [JSONValue] = []) throws -> Int {
        let (sql, bound) = try compile(spec.countSmartSql, spec: spec, arguments: arguments)
        return try Int.fetchOne(db, sql: sql, arguments: bound) ?? 0
    }

    /// Smart SQL translated to the store's SQL, without running it.
    public func convertSmartSql(_ smartSql: String) throws -> String {
        do {
            return try SmartSqlConverter.convert(smartSql, soups: catalog.soups(db)).sql
        } catch let error as SmartSqlError {
            throw SmartStoreError.smartSql(error)
        }
    }

    private func compile(_ smartSql: String, spec: QuerySpec, arguments: [JSONValue]) throws -> (String, StatementArguments) {
        if !arguments.isEmpty && !spec.isSmart { throw SmartStoreError.whereArgsNotAllowed }
        if let soupName = spec.soupName { _ = try soup(soupName) }
        let converted: ConvertedSmartSql
        do {
            converted = try SmartSqlConverter.convert(smartSql, soups: catalog.soups(db))
        } catch let error as SmartSqlError {
            throw SmartStoreError.smartSql(error)
        }
        try SmartSqlConverter.validate(converted, in: db)
        var values: [DatabaseValue] = arguments.map { ColumnValue(binding: $0).databaseValue }
        if let soupName = spec.soupName {
            let info = try soup(soupName)
            values += spec.boundKeys.map { path, key in
                let type = info.indexSpec(forPath: path)?.type ?? .json1
                return ColumnValue(projecting: key, as: type).databaseValue
            }
        }
        return (converted.wrappableSQL, StatementArguments(values))
    }

    static func value(of databaseValue: DatabaseValue, column: String) throws -> JSONValue {
        switch databaseValue.storage {
        case .null: return .null
        case let .int64(i): return .int(i)
        case let .double(d): return .double(d)
        case let .string(s):
            if column == "soup" || column.hasPrefix("soup:"), let parsed = try? JSONParser.parse(s), parsed.objectValue != nil {
                return parsed
            }
            return .string(s)
        case let .blob(data): return .string(data.base64EncodedString())
        }
    }

    static func parseDocument(_ text: String) throws -> JSONObject {
        do {
            return try JSONParser.parseObject(text)
        } catch {
            throw SmartStoreError.invalidDocument("a stored entry is not a JSON object (\(error))")
        }
    }
}

/// A page of query results.
public struct QueryPage: Sendable, Equatable {
    public let columns: [String]
    public let rows: [[JSONValue]]
    /// True when each row holds one whole document (plain query specs without select paths).
    public let documents: Bool

    /// Documents as objects, or rows as arrays: the SDK's result shape.
    public var values: [JSONValue] {
        documents ? rows.map { $0.first ?? .null } : rows.map { .array($0) }
    }
}

extension ColumnValue {
    var databaseValue: DatabaseValue {
        switch self {
        case .null: .null
        case let .integer(i): i.databaseValue
        case let .real(d): d.databaseValue
        case let .text(s): s.databaseValue
        }
    }
}

extension Array {
    /// Consecutive slices of at most `size` elements (SQLite's bound-parameter limit, request sizes).
    public func chunked(into size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}
