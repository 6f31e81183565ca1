import ForceJSON
import Foundation
import GRDB
import SalesforceTime

/// Reading records: by id, by a field's value, changed or deleted in a window.
extension OrgStore {

    /// One record by canonical id, deleted or not; nil when it does not exist or, with private
    /// sharing (`visibleTo` set), belongs to someone else.
    public func record(_ object: ObjectDefinition, id: String, visibleTo ownerId: String? = nil) async throws -> StoredRecord? {
        try await pool.read { db in
            guard let record = try self.fetchRecord(db, object: object, id: id), try self.isVisible(db, record, object: object, to: ownerId) else { return nil }
            return record
        }
    }

    /// Several records by canonical id in one read (deleted ones included), by id; ids that do
    /// not exist or, with private sharing, belong to someone else are missing. One read instead of
    /// one per id: a 2,000-id retrieve took ten times a query of the same records.
    public func records(_ object: ObjectDefinition, ids: [String], visibleTo ownerId: String? = nil) async throws -> [String: StoredRecord] {
        try await pool.read { db in
            var found: [String: StoredRecord] = [:]
            var others: [String] = []
            for id in ids where found[id] == nil {
                guard let record = try self.fetchRecord(db, object: object, id: id) else { continue }
                found[id] = record
                if let ownerId, object.hasOwner, String.fromDatabaseValue(record.values["OwnerId"] ?? .null) != ownerId { others.append(id) }
            }
            // Records of other owners: which of them the user sees, one query a chunk.
            guard let ownerId, !others.isEmpty else { return found }
            let condition = Self.ownerCondition(object, alias: "t", ownerId: ownerId, schema: self.schema)
            var visible = Set<String>()
            for start in stride(from: 0, to: others.count, by: 500) {
                let chunk = others[start..<min(start + 500, others.count)]
                let placeholders = Array(repeating: "?", count: chunk.count).joined(separator: ",")
                visible.formUnion(
                    try String.fetchAll(
                        db, sql: "SELECT t.Id FROM \(quoted(object.tableName)) t WHERE t.Id IN (\(placeholders))\(condition.sql)",
                        arguments: StatementArguments(chunk.map(\.databaseValue) + condition.arguments)))
            }
            for id in others where !visible.contains(id) { found[id] = nil }
            return found
        }
    }

    /// Private sharing: a record of an object with owners is visible to its owner, to the users
    /// it is shared with (`localorg share`: an account team or a territory), and, for a record
    /// controlled by its parent (Contact under its Account, a cascade-deleted reference), to
    /// whoever sees the parent. `writing`: a read-only share does not let its user change it.
    func isVisible(
        _ db: Database, _ record: StoredRecord, object: ObjectDefinition, to ownerId: String?,
        writing: Bool = false
    ) throws -> Bool {
        guard let ownerId, object.hasOwner else { return true }
        if String.fromDatabaseValue(record.values["OwnerId"] ?? .null) == ownerId { return true }
        let condition = Self.ownerCondition(object, alias: "t", ownerId: ownerId, schema: schema, writing: writing)
        let statement = try db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM \(quoted(object.tableName)) t WHERE t.Id = ?\(condition.sql))")
        return try Bool.fetchOne(statement, arguments: StatementArguments([record.id.databaseValue] + condition.arguments)) ?? false
    }

    /// SQL condition (and its arguments) restricting `alias` to records `ownerId` may see (or,
    /// `writing`, change), the same rule as `isVisible`.
    static func ownerCondition(
        _ object: ObjectDefinition, alias: String, ownerId: String?, schema: OrgSchema,
        writing: Bool = false
    ) -> (sql: String, arguments: [DatabaseValue]) {
        guard let ownerId, object.hasOwner else { return ("", []) }
        let access = writing ? " AND access = 'edit'" : ""
        var parts = ["\(alias).\"OwnerId\" = ?", "\(alias).\"Id\" IN (SELECT recordId FROM localorg_share WHERE userId = ?\(access))"]
        var arguments = [ownerId.databaseValue, ownerId.databaseValue]
        for field in object.fields where field.type == .reference && field.cascadeDelete {
            guard let parent = field.referenceTo.flatMap({ schema.object(named: $0) }), parent.hasOwner else { continue }
            let column = "\(alias).\(quoted(field.columnName))"
            parts.append("\(column) IN (SELECT Id FROM \(quoted(parent.tableName)) WHERE OwnerId = ?)")
            parts.append("\(column) IN (SELECT recordId FROM localorg_share WHERE userId = ?\(access))")
            arguments += [ownerId.databaseValue, ownerId.databaseValue]
        }
        return (" AND (" + parts.joined(separator: " OR ") + ")", arguments)
    }

    func fetchRecord(_ db: Database, object: ObjectDefinition, id: String) throws -> StoredRecord? {
        // Cached: preparing a statement (GRDB authorizes every column it reads) cost more than the
        // read itself, and a sync up's composites read each record they update.
        let statement = try db.cachedStatement(sql: object.selectByIdSQL)
        guard let row = try Row.fetchOne(statement, arguments: [id]) else { return nil }
        return Self.record(from: row, object: object)
    }

    /// A row of `object.selectByIdSQL` (every field, in field order) as a record.
    static func record(from row: Row, object: ObjectDefinition) -> StoredRecord {
        var values: [String: DatabaseValue] = Dictionary(minimumCapacity: object.fields.count)
        for (index, field) in object.fields.enumerated() { values[field.name] = row[index] as DatabaseValue }
        return StoredRecord(object: object.name, values: values)
    }

    /// Ids of live records whose `field` equals `value` (external-id lookups).
    public func ids(_ object: ObjectDefinition, whereField field: FieldDefinition, equals value: DatabaseValue, visibleTo ownerId: String? = nil) async throws -> [String] {
        let owner = Self.ownerCondition(object, alias: "t", ownerId: ownerId, schema: schema)
        return try await pool.read { db in
            try String.fetchAll(
                db, sql: "SELECT Id FROM \(quoted(object.tableName)) t WHERE \(quoted(field.columnName)) = ? AND IsDeleted = 0\(owner.sql) ORDER BY Id LIMIT 10",
                arguments: StatementArguments([value] + owner.arguments))
        }
    }

    /// Ids of live records whose SystemModstamp lies in [start, end].
    public func updatedIds(_ object: ObjectDefinition, start: Int64, end: Int64, visibleTo ownerId: String? = nil) async throws -> [String] {
        let owner = Self.ownerCondition(object, alias: "t", ownerId: ownerId, schema: schema)
        return try await pool.read { db in
            try String.fetchAll(
                db, sql: "SELECT Id FROM \(quoted(object.tableName)) t WHERE IsDeleted = 0 AND SystemModstamp >= ? AND SystemModstamp <= ?\(owner.sql) ORDER BY SystemModstamp, Id",
                arguments: StatementArguments([start.databaseValue, end.databaseValue] + owner.arguments))
        }
    }

    /// Records that went to the recycle bin in [start, end], with when.
    public func deletedRecords(_ object: ObjectDefinition, start: Int64, end: Int64, visibleTo ownerId: String? = nil) async throws -> [(id: String, deletedAt: Int64)] {
        let owner = Self.ownerCondition(object, alias: "t", ownerId: ownerId, schema: schema)
        return try await pool.read { db in
            try Row.fetchAll(
                db,
                sql:
                    "SELECT Id, \(quoted(Self.deletedAtColumn)) FROM \(quoted(object.tableName)) t WHERE IsDeleted = 1 AND \(quoted(Self.deletedAtColumn)) >= ? AND \(quoted(Self.deletedAtColumn)) <= ?\(owner.sql) ORDER BY 2, 1",
                arguments: StatementArguments([start.databaseValue, end.databaseValue] + owner.arguments)
            ).map { ($0[0], $0[1]) }
        }
    }

    /// Rows of a compiled, parameterised query.
    func rows(sql: String, arguments: [DatabaseValue]) async throws -> [[DatabaseValue]] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: sql, arguments: StatementArguments(arguments)).map { row in
                (0..<row.count).map { row[$0] as DatabaseValue }
            }
        }
    }

    /// Counts live records per object, for `localorg info`.
    public func counts() throws -> [(object: String, live: Int, deleted: Int)] {
        let schema = self.schema
        return try pool.read { db in try Self.counts(db, schema: schema) }
    }

    static func counts(_ db: Database, schema: OrgSchema) throws -> [(object: String, live: Int, deleted: Int)] {
        try schema.objects.map { object in
            let row = try Row.fetchOne(db, sql: "SELECT COUNT(*) - COALESCE(SUM(IsDeleted), 0), COALESCE(SUM(IsDeleted), 0) FROM \(quoted(object.tableName))")
            return (object.name, row?[0] ?? 0, row?[1] ?? 0)
        }
    }

    /// The ids of the records whose external-id `field` holds `key`, visible to `owner`, oldest id
    /// first: more than one is a conflict the caller reports (300 or DUPLICATE_EXTERNAL_ID).
    func ids(
        _ db: Database, _ object: ObjectDefinition, externalId field: FieldDefinition, equals key: DatabaseValue,
        visibleTo owner: String?, limit: Int
    ) throws -> [String] {
        guard !key.isNull else { return [] }
        let ownerFilter = Self.ownerCondition(object, alias: "t", ownerId: owner, schema: schema)
        return try String.fetchAll(
            db, sql: "SELECT Id FROM \(quoted(object.tableName)) t WHERE \(quoted(field.columnName)) = ? AND IsDeleted = 0\(ownerFilter.sql) ORDER BY Id LIMIT ?",
            arguments: StatementArguments([key] + ownerFilter.arguments + [Int64(limit).databaseValue]))
    }

    /// The records of `object` last changed by `userId`, newest first: their id, when, and the
    /// name field's value when the object has one.
    func recentlyChanged(_ object: ObjectDefinition, byUser userId: String, limit: Int) async throws -> [(id: String, modified: Int64, name: String?)] {
        let nameField = object.nameFieldName
        let sql =
            "SELECT Id, LastModifiedDate\(nameField.map { ", \(quoted($0))" } ?? "") FROM \(quoted(object.tableName)) "
            + "WHERE IsDeleted = 0 AND LastModifiedById = ? ORDER BY LastModifiedDate DESC, Id DESC LIMIT ?"
        return try await rows(sql: sql, arguments: [userId.databaseValue, Int64(limit).databaseValue]).map { row in
            (String.fromDatabaseValue(row[0]) ?? "", Int64.fromDatabaseValue(row[1]) ?? 0, row.count > 2 ? String.fromDatabaseValue(row[2]) : nil)
        }
    }
}
