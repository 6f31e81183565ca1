import ForceJSON
import Foundation
import GRDB
import SalesforceTime

/// What a user's save through the API brings beside its values: the production rules the org
/// enforces and what the request's headers ask of them. Seeding and the trainer's commands save
/// without (nil), as an administrator's data load does.
struct SaveRules: Sendable {
    var rules: ProductionRules
    /// `Sforce-Duplicate-Rule-Header: allowSave=true` (v52.0+): an alerting duplicate rule lets the save through.
    var allowDuplicateSave = false
    /// `includeRecordDetails=true`: the matching records' fields in `duplicateResut`.
    var includeRecordDetails = false
    /// How long a save waits for a locked record before UNABLE_TO_LOCK_ROW (Salesforce: 10 s).
    var lockWait: Int64 = 10
    /// The saving user's field-level security: a duplicate's details show only what they may read.
    var access: FieldAccess = .administrator
    var apiVersion: String
    /// The request saving, which keeps the ids it saved (taken while its task runs: a write's
    /// closure runs on the database's queue, where the request's task-local is not set).
    var request: RequestContext?

    /// `allowSave=true; includeRecordDetails=true; runAsCurrentUser=true`, spaces and case aside.
    static func duplicateHeader(_ value: String?) -> (allowSave: Bool, includeRecordDetails: Bool) {
        var options: [String: Bool] = [:]
        for part in (value ?? "").split(whereSeparator: { $0 == ";" || $0 == "," }) {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            if pair.count == 2 { options[pair[0]] = pair[1] == "true" }
        }
        return (options["allowsave"] ?? false, options["includerecorddetails"] ?? false)
    }
}

/// Writing records: insert, update and delete in the caller's transaction, each checked against
/// the references, uniqueness and the org's rules before it is stored.
extension OrgStore {

    /// Runs `body` in one write transaction (rolled back when it throws).
    public func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await pool.write(body)
    }

    /// Runs `body` with a read-only view of the database.
    public func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await pool.read(body)
    }

    /// Synchronous write transaction, for the command-line tools.
    public func writeNow<T>(_ body: (Database) throws -> T) throws -> T {
        try pool.write(body)
    }

    /// Reserves `count` consecutive record numbers for a key prefix and returns the first.
    func reserveNumbers(_ db: Database, keyPrefix: String, count: Int64) throws -> Int64 {
        // Cached: every record created runs these three.
        try db.cachedStatement(sql: "INSERT OR IGNORE INTO localorg_sequence (keyPrefix, lastNumber) VALUES (?, 0)").execute(arguments: [keyPrefix])
        try db.cachedStatement(sql: "UPDATE localorg_sequence SET lastNumber = lastNumber + ? WHERE keyPrefix = ?").execute(arguments: [count, keyPrefix])
        let last = try Int64.fetchOne(db.cachedStatement(sql: "SELECT lastNumber FROM localorg_sequence WHERE keyPrefix = ?"), arguments: [keyPrefix]) ?? count
        return last - count + 1
    }

    /// Inserts a validated record: checks references and unique fields, fills computed and
    /// system fields, and returns the new id.
    func insertRow(
        _ db: Database, object: ObjectDefinition, values: inout [String: DatabaseValue], actingUserId: String,
        now: Int64, presetId: String? = nil, checkReferences: Bool = true, visibleTo ownerId: String? = nil,
        recordHistory: Bool = true, saving: SaveRules? = nil
    ) throws -> String {
        if !object.recordTypes.isEmpty && (values["RecordTypeId"] ?? .null).isNull {
            values["RecordTypeId"] = object.defaultRecordType.id.databaseValue
        }
        // Salesforce's order of a save: system checks (the address picklists), before-save
        // flows, validation rules, duplicate rules, then the write and its locks.
        if let saving {
            if saving.rules.isOn(.stateAndCountryPicklists) {
                try AddressPicklists.standard.settle(object, record: &values, written: values, creating: true)
            }
            if saving.rules.isOn(.fieldUpdatesOnSave) {
                try FieldUpdate.apply(object.fieldUpdates, object: object, record: &values, creating: true)
            }
        }
        if checkReferences {
            try checkReferencesAndUniqueness(db, object: object, values: values, excludingId: nil, visibleTo: ownerId)
            try RecordValidator.checkRecordRules(object: object, written: values, record: values)
        }
        if let saving {
            if saving.rules.isOn(.recordLocking) {
                try checkLocks(db, object: object, id: nil, record: values, now: now, lockWait: saving.lockWait)
            }
            try checkDuplicates(db, object: object, record: values, id: nil, creating: true, visibleTo: ownerId, saving: saving)
        }
        let id = try presetId ?? SalesforceId.make(keyPrefix: object.keyPrefix, number: reserveNumbers(db, keyPrefix: object.keyPrefix, count: 1))
        values["Id"] = id.databaseValue
        values["IsDeleted"] = false.databaseValue
        if object.hasOwner && (values["OwnerId"] ?? .null).isNull { values["OwnerId"] = actingUserId.databaseValue }
        values["CreatedDate"] = now.databaseValue
        values["LastModifiedDate"] = now.databaseValue
        values["SystemModstamp"] = now.databaseValue
        values["CreatedById"] = actingUserId.databaseValue
        values["LastModifiedById"] = actingUserId.databaseValue
        RecordValidator.fillComputedFields(object: object, values: &values)
        // One cached statement per object: seeding inserts many thousand rows through it.
        let arguments = object.fields.map { field in values[field.name] ?? (field.type == .boolean ? false.databaseValue : .null) }
        try db.cachedStatement(sql: object.insertSQL).execute(arguments: StatementArguments(arguments))
        saving?.request?.note(saved: id)
        if recordHistory && Self.tracksHistory(object) {
            try noteHistory(db, object: object, id: id, field: FieldChange.createdField, old: nil, new: nil, userId: actingUserId, now: now)
        }
        // A seed is the org as it was before anyone subscribed: no events.
        if recordHistory { try noteCreated(db, object: object, values: values, userId: actingUserId, now: now, origin: saving?.request?.changeOrigin) }
        return id
    }

    /// Updates a live record. `ifUnmodifiedSince` makes the update conditional (412 when the
    /// record changed after that moment), checked in the same transaction as the write.
    func updateRow(
        _ db: Database, object: ObjectDefinition, id: String, values: [String: DatabaseValue], actingUserId: String,
        now: Int64, ifUnmodifiedSince: Int64? = nil, visibleTo ownerId: String? = nil, saving: SaveRules? = nil
    ) throws {
        guard var existing = try fetchRecord(db, object: object, id: id) else { throw APIError.resourceNotFound }
        guard try isVisible(db, existing, object: object, to: ownerId, writing: true) else { throw APIError.insufficientAccess }
        if existing.isDeleted { throw APIError.entityIsDeleted }
        if let ifUnmodifiedSince { try Self.checkUnmodified(existing, since: ifUnmodifiedSince) }
        try checkReferencesAndUniqueness(db, object: object, values: values, excludingId: id, visibleTo: ownerId)
        let before = existing.values
        for (name, value) in values { existing.values[name] = value }
        if let saving, saving.rules.isOn(.stateAndCountryPicklists) {
            try AddressPicklists.standard.settle(object, record: &existing.values, written: values, creating: false)
        }
        if let saving, saving.rules.isOn(.fieldUpdatesOnSave) {
            try FieldUpdate.apply(object.fieldUpdates, object: object, record: &existing.values, creating: false)
        }
        try RecordValidator.checkRecordRules(object: object, written: values, record: existing.values)
        if let saving, saving.rules.isOn(.recordLocking) {
            try checkLocks(db, object: object, id: id, record: existing.values, now: now, lockWait: saving.lockWait)
        }
        if let saving, values.contains(where: { before[$0.key] != $0.value }) {
            try checkDuplicates(db, object: object, record: existing.values, id: id, creating: false, visibleTo: ownerId, saving: saving)
        }
        existing.values["LastModifiedDate"] = now.databaseValue
        existing.values["SystemModstamp"] = now.databaseValue
        existing.values["LastModifiedById"] = actingUserId.databaseValue
        RecordValidator.fillComputedFields(object: object, values: &existing.values)
        var arguments: [DatabaseValue] = []
        arguments.reserveCapacity(object.fields.count)
        for field in object.fields where field.type != .id { arguments.append(existing.values[field.name] ?? .null) }
        arguments.append(id.databaseValue)
        try db.cachedStatement(sql: object.updateByIdSQL).execute(arguments: StatementArguments(arguments))
        try noteChanges(db, object: object, id: id, before: before, written: values, userId: actingUserId, now: now)
        try noteUpdated(
            db, object: object, id: id, before: before, after: existing.values, userId: actingUserId, now: now,
            origin: saving?.request?.changeOrigin)
    }

    /// Moves a record (and its cascade-deleted children) to the recycle bin. `ifUnmodifiedSince`
    /// makes the delete conditional, as Salesforce does: 412 when the record changed after it.
    func deleteRow(
        _ db: Database, object: ObjectDefinition, id: String, actingUserId: String, now: Int64,
        ifUnmodifiedSince: Int64? = nil, visibleTo ownerId: String? = nil, origin: String? = nil
    ) throws {
        guard let existing = try fetchRecord(db, object: object, id: id) else { throw APIError.resourceNotFound }
        guard try isVisible(db, existing, object: object, to: ownerId, writing: true) else { throw APIError.insufficientAccess }
        // A share grants read or read/write, never delete: that takes the record's owner (or the
        // owner of the parent that controls it), as Salesforce's Full Access does.
        guard try ownsForDeleting(db, existing, object: object, userId: ownerId) else { throw APIError.insufficientAccess }
        if existing.isDeleted { throw APIError.entityIsDeleted }
        if let ifUnmodifiedSince { try Self.checkUnmodified(existing, since: ifUnmodifiedSince) }
        guard object.deletable else {
            throw APIError(status: 400, errorCode: "INSUFFICIENT_ACCESS_OR_READONLY", message: "insufficient access rights on object id", fields: [])
        }
        try db.execute(
            sql: "UPDATE \(quoted(object.tableName)) SET IsDeleted = 1, \(quoted(Self.deletedAtColumn)) = ?, SystemModstamp = ?, LastModifiedById = ? WHERE Id = ?",
            arguments: [now, now, actingUserId, id])
        if Self.tracksHistory(object) {
            try noteHistory(db, object: object, id: id, field: FieldChange.deletedField, old: nil, new: nil, userId: actingUserId, now: now)
        }
        try noteChangeEvent(db, object: object, type: "DELETE", recordIds: [id], userId: actingUserId, now: now, origin: origin)
        for relationship in schema.childRelationships(of: object.name) where relationship.cascadeDelete {
            guard let child = schema.object(named: relationship.childObject), let field = child.field(named: relationship.field) else { continue }
            // The children go in the same transaction: one DELETE event for all of them, as Salesforce merges identical changes.
            let children = try String.fetchAll(
                db, sql: "SELECT Id FROM \(quoted(child.tableName)) WHERE \(quoted(field.columnName)) = ? AND IsDeleted = 0",
                arguments: [id])
            if !children.isEmpty {
                try noteChangeEvent(db, object: child, type: "DELETE", recordIds: children, userId: actingUserId, now: now, origin: origin)
            }
            if Self.tracksHistory(child) {
                try db.execute(
                    sql: """
                        INSERT INTO \(OrgStore.historyTable) (recordId, object, field, userId, time)
                        SELECT Id, ?, ?, ?, ? FROM \(quoted(child.tableName)) WHERE \(quoted(field.columnName)) = ? AND IsDeleted = 0
                        """, arguments: [child.name, FieldChange.deletedField, actingUserId, now, id])
            }
            try db.execute(
                sql:
                    "UPDATE \(quoted(child.tableName)) SET IsDeleted = 1, \(quoted(Self.deletedAtColumn)) = ?, SystemModstamp = ?, LastModifiedById = ? WHERE \(quoted(field.columnName)) = ? AND IsDeleted = 0",
                arguments: [now, now, actingUserId, id])
        }
    }

    /// The object's standard duplicate rule, when the org enforces duplicate rules: a create that
    /// matches is refused (alert, unless the request allows the save; block, always); an edit
    /// only with a rule set to Block, as the standard rules merely report edits.
    func checkDuplicates(
        _ db: Database, object: ObjectDefinition, record: [String: DatabaseValue], id: String?, creating: Bool,
        visibleTo ownerId: String?, saving: SaveRules
    ) throws {
        guard saving.rules.isOn(.duplicateRules), let rule = DuplicateRule.standard[object.name] else { return }
        let action = saving.rules.duplicateActions[object.name] ?? .alert
        if action == .alert && (saving.allowDuplicateSave || !creating) { return }
        var excluding = saving.request?.savedIds ?? []
        if let id { excluding.insert(id) }
        let found = try duplicates(db, object: object, values: record, visibleTo: ownerId, excluding: excluding)
        guard !found.isEmpty else { return }
        throw Self.duplicatesDetected(
            rule, action: action, found: found, object: object, apiVersion: saving.apiVersion,
            recordDetails: saving.includeRecordDetails, access: saving.access)
    }

    /// Whether `userId` (nil: everyone may) owns `record`, or the parent record controlling it.
    func ownsForDeleting(_ db: Database, _ record: StoredRecord, object: ObjectDefinition, userId: String?) throws -> Bool {
        guard let userId, object.hasOwner else { return true }
        if String.fromDatabaseValue(record.values["OwnerId"] ?? .null) == userId { return true }
        for field in object.fields where field.type == .reference && field.cascadeDelete {
            guard let parentId = String.fromDatabaseValue(record.values[field.name] ?? .null),
                let parent = field.referenceTo.flatMap({ schema.object(named: $0) }), parent.hasOwner
            else { continue }
            if try Bool.fetchOne(
                db, sql: "SELECT EXISTS (SELECT 1 FROM \(quoted(parent.tableName)) WHERE Id = ? AND OwnerId = ?)",
                arguments: [parentId, userId]) == true
            {
                return true
            }
        }
        return false
    }

    /// The `If-Unmodified-Since` precondition of an update or delete: 412 when the record changed later.
    static func checkUnmodified(_ record: StoredRecord, since: Int64) throws {
        guard record.lastModifiedDate > since else { return }
        throw APIError(
            status: 412, errorCode: "PRECONDITION_FAILED",
            message: "The requested resource has been modified since the If-Unmodified-Since date: \(SalesforceDate.formatHTTPDate(since))")
    }

    /// References must name a live record of the right object; unique fields must be unique.
    func checkReferencesAndUniqueness(
        _ db: Database, object: ObjectDefinition, values: [String: DatabaseValue], excludingId: String?,
        visibleTo ownerId: String? = nil
    ) throws {
        // RecordTypeId is checked against the object's own record types, in `checkRecordRules`.
        for field in object.fields where field.type == .reference && field.name != "RecordTypeId" {
            guard let value = values[field.name], let id = String.fromDatabaseValue(value),
                let targetName = field.referenceTo, let target = schema.object(named: targetName)
            else { continue }
            guard SalesforceId.keyPrefix(of: id) == target.keyPrefix else { throw RecordValidator.malformedReference(field, id) }
            guard let referenced = try referenceTarget(db, object: target, id: id), !referenced.isDeleted else {
                throw APIError(status: 400, errorCode: "INVALID_CROSS_REFERENCE_KEY", message: "invalid cross reference id", fields: [field.name])
            }
            // Owners may be any user; other references must point at records the user can see.
            if field.name != "OwnerId", try !isVisible(db, referenced, object: target, to: ownerId) {
                throw APIError(
                    status: 400, errorCode: "INSUFFICIENT_ACCESS_ON_CROSS_REFERENCE_ENTITY",
                    message: "insufficient access rights on cross-reference id", fields: [field.name])
            }
        }
        for field in object.fields where field.unique {
            guard let value = values[field.name], !value.isNull else { continue }
            let statement = try db.cachedStatement(
                sql: "SELECT Id FROM \(quoted(object.tableName)) WHERE \(quoted(field.columnName)) = ? AND IsDeleted = 0 AND Id IS NOT ?")
            if let other = try String.fetchOne(statement, arguments: [value, excludingId]) {
                throw APIError(
                    status: 400, errorCode: "DUPLICATE_VALUE",
                    message: "duplicate value found: \(field.name) duplicates value on record with id: \(other)", fields: [field.name])
            }
        }
    }

    /// The referenced record's IsDeleted and OwnerId, all a reference check reads: two columns
    /// through a cached statement instead of the whole row (a sync up's updates name an account each).
    func referenceTarget(_ db: Database, object: ObjectDefinition, id: String) throws -> StoredRecord? {
        let owner = object.hasOwner ? "OwnerId" : "NULL"
        let statement = try db.cachedStatement(sql: "SELECT IsDeleted, \(owner) FROM \(quoted(object.tableName)) WHERE Id = ?")
        guard let row = try Row.fetchOne(statement, arguments: [id]) else { return nil }
        return StoredRecord(object: object.name, values: ["Id": id.databaseValue, "IsDeleted": row[0] as DatabaseValue, "OwnerId": row[1] as DatabaseValue])
    }
}
