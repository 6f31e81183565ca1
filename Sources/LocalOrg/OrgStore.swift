import ForceJSON
import Foundation
import GRDB

/// One record as stored: canonical field name → column value.
public struct StoredRecord: Sendable {
    public var object: String
    public var values: [String: DatabaseValue]

    public var id: String { String.fromDatabaseValue(values["Id"] ?? .null) ?? "" }
    public var isDeleted: Bool { Bool.fromDatabaseValue(values["IsDeleted"] ?? .null) ?? false }
    public var lastModifiedDate: Int64 { Int64.fromDatabaseValue(values["LastModifiedDate"] ?? .null) ?? 0 }
}

/// The org's SQLite database (WAL mode, every write in one transaction): one table per object,
/// soft deletes (the recycle bin is `IsDeleted = 1`), id sequences, credentials and tokens.
public final class OrgStore: Sendable {
    public let schema: OrgSchema
    let pool: DatabasePool
    /// Name of the SQL function that lowercases every letter, not only ASCII as NOCASE does.
    static let foldFunction = "localorg_fold"
    static let fold = DatabaseFunction(foldFunction, argumentCount: 1, pure: true) { values in
        String.fromDatabaseValue(values[0])?.lowercased()
    }

    /// Column name of the moment a record went to the recycle bin.
    static let deletedAtColumn = "localorg_deleted_at"

    public init(path: String, schema: OrgSchema) throws {
        self.schema = schema
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            // WAL is DatabasePool's default; synchronous=FULL makes every acknowledged commit durable.
            try db.execute(sql: "PRAGMA synchronous = FULL")
            db.add(function: Self.fold)
        }
        pool = try DatabasePool(path: path, configuration: configuration)
        try migrate()
    }

    /// Creates the tables, adds columns for fields new to the schema file, and on first open
    /// creates the organization and its demo users.
    private func migrate() throws {
        try pool.write { db in
            try db.execute(sql: """
                CREATE TABLE IF NOT EXISTS localorg_sequence (keyPrefix TEXT PRIMARY KEY NOT NULL, lastNumber INTEGER NOT NULL);
                CREATE TABLE IF NOT EXISTS localorg_credential (
                    userId TEXT PRIMARY KEY NOT NULL, passwordHash TEXT NOT NULL, isAdmin INTEGER NOT NULL);
                CREATE TABLE IF NOT EXISTS localorg_token (
                    selector TEXT PRIMARY KEY NOT NULL, verifierHash BLOB NOT NULL, kind TEXT NOT NULL,
                    userId TEXT NOT NULL, clientId TEXT NOT NULL, issuedAt INTEGER NOT NULL,
                    expiresAt INTEGER, refreshSelector TEXT, revoked INTEGER NOT NULL DEFAULT 0);
                CREATE INDEX IF NOT EXISTS localorg_token_refresh ON localorg_token(refreshSelector);
                """)
            try DeviceAuthorization.ensureTable(db)
            for object in schema.objects {
                let table = object.tableName
                if try db.tableExists(table) {
                    let existing = Set(try db.columns(in: table).map { $0.name.lowercased() })
                    for field in object.fields where !existing.contains(field.columnName.lowercased()) {
                        try db.execute(sql: "ALTER TABLE \(quoted(table)) ADD COLUMN \(Self.columnDefinition(field))")
                    }
                } else {
                    let columns = object.fields.map(Self.columnDefinition) + ["\(quoted(Self.deletedAtColumn)) INTEGER"]
                    try db.execute(sql: "CREATE TABLE \(quoted(table)) (\(columns.joined(separator: ", ")))")
                }
                for field in object.fields where field.type == .reference || field.externalId || field.unique
                    || field.nameField || field.name == "SystemModstamp" || field.name == "LastModifiedDate" {
                    try db.execute(sql: "CREATE INDEX IF NOT EXISTS \(quoted("\(table)_\(field.name)")) ON \(quoted(table))(\(quoted(field.columnName)))")
                }
            }
        }
        try bootstrapIfEmpty()
        try addRecordTypeRows()
    }

    /// Makes every record type of the schema a RecordType row (SOQL reads them there), once.
    private func addRecordTypeRows() throws {
        guard let recordTypeObject = schema.object(named: "RecordType"), schema.objects.contains(where: { !$0.recordTypes.isEmpty }) else { return }
        try pool.write { db in
            let adminId = try String.fetchOne(db, sql: "SELECT userId FROM localorg_credential WHERE isAdmin = 1 LIMIT 1") ?? ""
            for object in schema.objects {
                for recordType in object.recordTypes where try fetchRecord(db, object: recordTypeObject, id: recordType.id) == nil {
                    var values: [String: DatabaseValue] = [
                        "Name": recordType.label.databaseValue, "DeveloperName": recordType.developerName.databaseValue,
                        "SobjectType": object.name.databaseValue, "IsActive": true.databaseValue,
                    ]
                    _ = try insertRow(db, object: recordTypeObject, values: &values, actingUserId: adminId, now: Self.now(),
                                      presetId: recordType.id, checkReferences: false)
                }
            }
        }
    }

    static func columnDefinition(_ field: FieldDefinition) -> String {
        let name = quoted(field.columnName)
        switch field.type {
        case .id: return "\(name) TEXT PRIMARY KEY NOT NULL"
        case .reference: return "\(name) TEXT"
        case .boolean: return "\(name) INTEGER NOT NULL DEFAULT 0"
        case .int, .datetime: return "\(name) INTEGER"
        case .double, .currency, .percent: return "\(name) REAL"
        case .date: return "\(name) TEXT"
        default: return "\(name) TEXT COLLATE NOCASE"
        }
    }

    // MARK: Organization and users

    /// The demo users every new org has; `localorg serve` prints their credentials.
    public static let demoUsers: [(username: String, password: String, first: String, last: String, admin: Bool)] = [
        ("demo@localorg.test", "localorg-demo", "Dana", "Demo", true),
        ("trainer@localorg.test", "localorg-trainer", "Taylor", "Trainer", false),
    ]

    private func bootstrapIfEmpty() throws {
        guard let organization = schema.object(named: "Organization"), let user = schema.object(named: "User") else {
            throw SchemaError(description: "the schema needs Organization and User objects")
        }
        let hasOrganization = try pool.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(quoted(organization.tableName))") ?? 0 > 0
        }
        if hasOrganization { return }
        // Hash outside the transaction: each hash takes a noticeable fraction of a second.
        let hashes = try Self.demoUsers.map { try PasswordHasher.hash($0.password) }
        let now = Self.now()
        try pool.write { db in
            let firstUserId = SalesforceId.make(keyPrefix: user.keyPrefix, number: try reserveNumbers(db, keyPrefix: user.keyPrefix, count: 1))
            var orgValues: [String: DatabaseValue] = [
                "Name": "LocalOrg Demo Company".databaseValue, "OrganizationType": "Developer Edition".databaseValue,
                "InstanceName": "LO1".databaseValue, "IsSandbox": true.databaseValue,
                "DefaultLocaleSidKey": "en_US".databaseValue, "TimeZoneSidKey": "GMT".databaseValue,
            ]
            _ = try insertRow(db, object: organization, values: &orgValues, actingUserId: firstUserId, now: now)
            for (index, demo) in Self.demoUsers.enumerated() {
                var values: [String: DatabaseValue] = [
                    "Username": demo.username.databaseValue, "FirstName": demo.first.databaseValue,
                    "LastName": demo.last.databaseValue, "Email": demo.username.databaseValue,
                    "Alias": String((demo.first.prefix(1) + demo.last).prefix(8)).lowercased().databaseValue,
                    "IsActive": true.databaseValue, "TimeZoneSidKey": "GMT".databaseValue,
                    "LanguageLocaleKey": "en_US".databaseValue,
                ]
                let id = try insertRow(db, object: user, values: &values, actingUserId: firstUserId, now: now,
                                       presetId: index == 0 ? firstUserId : nil)
                try db.execute(sql: "INSERT INTO localorg_credential (userId, passwordHash, isAdmin) VALUES (?, ?, ?)",
                               arguments: [id, hashes[index], demo.admin])
            }
        }
    }

    /// The organization's id (`00D…`).
    public func organizationId() throws -> String {
        guard let organization = schema.object(named: "Organization") else { return "" }
        return try pool.read { db in
            try String.fetchOne(db, sql: "SELECT Id FROM \(quoted(organization.tableName)) LIMIT 1") ?? ""
        }
    }

    /// Adds a user who can sign in.
    public func addUser(username: String, password: String, firstName: String?, lastName: String, email: String?,
                        isAdmin: Bool) throws -> String {
        guard let user = schema.object(named: "User") else { throw SchemaError(description: "no User object") }
        let hash = try PasswordHasher.hash(password)
        let body: JSONObject = [
            "Username": .string(username), "FirstName": firstName.map(JSONValue.string) ?? .null,
            "LastName": .string(lastName), "Email": .string(email ?? username), "IsActive": true,
            "Alias": .string(String(username.prefix(8))), "TimeZoneSidKey": "GMT", "LanguageLocaleKey": "en_US",
        ]
        var values = try RecordValidator.values(for: user, body: body, mode: .create)
        let now = Self.now()
        return try pool.write { db in
            let adminId = try String.fetchOne(db, sql: "SELECT userId FROM localorg_credential WHERE isAdmin = 1 LIMIT 1") ?? ""
            let id = try insertRow(db, object: user, values: &values, actingUserId: adminId, now: now)
            try db.execute(sql: "INSERT INTO localorg_credential (userId, passwordHash, isAdmin) VALUES (?, ?, ?)",
                           arguments: [id, hash, isAdmin])
            return id
        }
    }

    /// The active user with this username (case-insensitive) and its stored password hash.
    func credential(username: String) async throws -> (userId: String, passwordHash: String, isAdmin: Bool)? {
        guard let user = schema.object(named: "User") else { return nil }
        return try await pool.read { db in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT u.Id, c.passwordHash, c.isAdmin FROM \(quoted(user.tableName)) u
                JOIN localorg_credential c ON c.userId = u.Id
                WHERE u.Username = ? COLLATE NOCASE AND u.IsActive = 1 AND u.IsDeleted = 0
                """, arguments: [username]) else { return nil }
            return (row[0], row[1], row[2])
        }
    }

    /// Replaces a user's password (hashed); the user's existing tokens stay valid, as in Salesforce.
    public func setPassword(userId: String, password: String) async throws {
        let hash = try PasswordHasher.hash(password)
        try await pool.write { db in
            try db.execute(sql: "UPDATE localorg_credential SET passwordHash = ? WHERE userId = ?", arguments: [hash, userId])
        }
    }

    /// Every user who can sign in, for `localorg info`.
    public func users() throws -> [(username: String, isAdmin: Bool, isActive: Bool)] {
        guard let user = schema.object(named: "User") else { return [] }
        return try pool.read { db in
            try Row.fetchAll(db, sql: "SELECT u.Username, c.isAdmin, u.IsActive FROM \(quoted(user.tableName)) u JOIN localorg_credential c ON c.userId = u.Id ORDER BY u.Username")
                .map { ($0[0], $0[1], $0[2]) }
        }
    }

    /// The user a `--as USERNAME` option names, or the first non-admin demo user.
    public func userId(username: String?) throws -> String? {
        guard let user = schema.object(named: "User") else { return nil }
        return try pool.read { db in
            if let username {
                return try String.fetchOne(db, sql: "SELECT Id FROM \(quoted(user.tableName)) WHERE Username = ? COLLATE NOCASE", arguments: [username])
            }
            return try String.fetchOne(db, sql: "SELECT userId FROM localorg_credential WHERE isAdmin = 0 ORDER BY userId LIMIT 1")
        }
    }

    // MARK: Reading records

    /// One record by canonical id, deleted or not; nil when it does not exist or, with private
    /// sharing (`visibleTo` set), belongs to someone else.
    public func record(_ object: ObjectDefinition, id: String, visibleTo ownerId: String? = nil) async throws -> StoredRecord? {
        try await pool.read { db in
            guard let record = try self.fetchRecord(db, object: object, id: id), Self.isVisible(record, object: object, to: ownerId) else { return nil }
            return record
        }
    }

    /// Several records by canonical id in one read (deleted ones included), by id; ids that do
    /// not exist or, with private sharing, belong to someone else are missing. One read instead of
    /// one per id: a 2,000-id retrieve took ten times a query of the same records.
    public func records(_ object: ObjectDefinition, ids: [String], visibleTo ownerId: String? = nil) async throws -> [String: StoredRecord] {
        try await pool.read { db in
            var found: [String: StoredRecord] = [:]
            for id in ids where found[id] == nil {
                guard let record = try self.fetchRecord(db, object: object, id: id), Self.isVisible(record, object: object, to: ownerId) else { continue }
                found[id] = record
            }
            return found
        }
    }

    /// Private sharing: a record of an object with owners is visible only to its owner.
    static func isVisible(_ record: StoredRecord, object: ObjectDefinition, to ownerId: String?) -> Bool {
        guard let ownerId, object.hasOwner else { return true }
        return String.fromDatabaseValue(record.values["OwnerId"] ?? .null) == ownerId
    }

    /// SQL condition (and its argument) restricting `alias` to records `ownerId` may see.
    static func ownerCondition(_ object: ObjectDefinition, alias: String, ownerId: String?) -> (sql: String, arguments: [DatabaseValue]) {
        guard let ownerId, object.hasOwner else { return ("", []) }
        return (" AND \(alias).\"OwnerId\" = ?", [ownerId.databaseValue])
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
        let owner = Self.ownerCondition(object, alias: "t", ownerId: ownerId)
        return try await pool.read { db in
            try String.fetchAll(db, sql: "SELECT Id FROM \(quoted(object.tableName)) t WHERE \(quoted(field.columnName)) = ? AND IsDeleted = 0\(owner.sql) ORDER BY Id LIMIT 10",
                                arguments: StatementArguments([value] + owner.arguments))
        }
    }

    /// Ids of live records whose SystemModstamp lies in [start, end].
    public func updatedIds(_ object: ObjectDefinition, start: Int64, end: Int64, visibleTo ownerId: String? = nil) async throws -> [String] {
        let owner = Self.ownerCondition(object, alias: "t", ownerId: ownerId)
        return try await pool.read { db in
            try String.fetchAll(db, sql: "SELECT Id FROM \(quoted(object.tableName)) t WHERE IsDeleted = 0 AND SystemModstamp >= ? AND SystemModstamp <= ?\(owner.sql) ORDER BY SystemModstamp, Id",
                                arguments: StatementArguments([start.databaseValue, end.databaseValue] + owner.arguments))
        }
    }

    /// Records that went to the recycle bin in [start, end], with when.
    public func deletedRecords(_ object: ObjectDefinition, start: Int64, end: Int64, visibleTo ownerId: String? = nil) async throws -> [(id: String, deletedAt: Int64)] {
        let owner = Self.ownerCondition(object, alias: "t", ownerId: ownerId)
        return try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT Id, \(quoted(Self.deletedAtColumn)) FROM \(quoted(object.tableName)) t WHERE IsDeleted = 1 AND \(quoted(Self.deletedAtColumn)) >= ? AND \(quoted(Self.deletedAtColumn)) <= ?\(owner.sql) ORDER BY 2, 1",
                             arguments: StatementArguments([start.databaseValue, end.databaseValue] + owner.arguments)).map { ($0[0], $0[1]) }
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
        try pool.read { db in
            try schema.objects.map { object in
                let row = try Row.fetchOne(db, sql: "SELECT COUNT(*) - COALESCE(SUM(IsDeleted), 0), COALESCE(SUM(IsDeleted), 0) FROM \(quoted(object.tableName))")
                return (object.name, row?[0] ?? 0, row?[1] ?? 0)
            }
        }
    }

    // MARK: Writing records

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
    func insertRow(_ db: Database, object: ObjectDefinition, values: inout [String: DatabaseValue], actingUserId: String,
                   now: Int64, presetId: String? = nil, checkReferences: Bool = true, visibleTo ownerId: String? = nil) throws -> String {
        if !object.recordTypes.isEmpty && (values["RecordTypeId"] ?? .null).isNull {
            values["RecordTypeId"] = object.defaultRecordType.id.databaseValue
        }
        if checkReferences {
            try checkReferencesAndUniqueness(db, object: object, values: values, excludingId: nil, visibleTo: ownerId)
            try checkRecordRules(object: object, written: values, record: values)
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
        Self.fillComputedFields(object: object, values: &values)
        // One cached statement per object: seeding inserts many thousand rows through it.
        let arguments = object.fields.map { field in values[field.name] ?? (field.type == .boolean ? false.databaseValue : .null) }
        try db.cachedStatement(sql: object.insertSQL).execute(arguments: StatementArguments(arguments))
        return id
    }

    /// Updates a live record. `ifUnmodifiedSince` makes the update conditional (412 when the
    /// record changed after that moment), checked in the same transaction as the write.
    func updateRow(_ db: Database, object: ObjectDefinition, id: String, values: [String: DatabaseValue], actingUserId: String,
                   now: Int64, ifUnmodifiedSince: Int64? = nil, visibleTo ownerId: String? = nil) throws {
        guard var existing = try fetchRecord(db, object: object, id: id) else { throw APIError.resourceNotFound }
        guard Self.isVisible(existing, object: object, to: ownerId) else { throw APIError.insufficientAccess }
        if existing.isDeleted { throw APIError.entityIsDeleted }
        if let ifUnmodifiedSince { try Self.checkUnmodified(existing, since: ifUnmodifiedSince) }
        try checkReferencesAndUniqueness(db, object: object, values: values, excludingId: id, visibleTo: ownerId)
        for (name, value) in values { existing.values[name] = value }
        try checkRecordRules(object: object, written: values, record: existing.values)
        existing.values["LastModifiedDate"] = now.databaseValue
        existing.values["SystemModstamp"] = now.databaseValue
        existing.values["LastModifiedById"] = actingUserId.databaseValue
        Self.fillComputedFields(object: object, values: &existing.values)
        var arguments: [DatabaseValue] = []
        arguments.reserveCapacity(object.fields.count)
        for field in object.fields where field.type != .id { arguments.append(existing.values[field.name] ?? .null) }
        arguments.append(id.databaseValue)
        try db.cachedStatement(sql: object.updateByIdSQL).execute(arguments: StatementArguments(arguments))
    }

    /// Moves a record (and its cascade-deleted children) to the recycle bin. `ifUnmodifiedSince`
    /// makes the delete conditional, as Salesforce does: 412 when the record changed after it.
    func deleteRow(_ db: Database, object: ObjectDefinition, id: String, actingUserId: String, now: Int64,
                   ifUnmodifiedSince: Int64? = nil, visibleTo ownerId: String? = nil) throws {
        guard let existing = try fetchRecord(db, object: object, id: id) else { throw APIError.resourceNotFound }
        guard Self.isVisible(existing, object: object, to: ownerId) else { throw APIError.insufficientAccess }
        if existing.isDeleted { throw APIError.entityIsDeleted }
        if let ifUnmodifiedSince { try Self.checkUnmodified(existing, since: ifUnmodifiedSince) }
        guard object.deletable else {
            throw APIError(status: 400, errorCode: "INSUFFICIENT_ACCESS_OR_READONLY", message: "insufficient access rights on object id", fields: [])
        }
        try db.execute(sql: "UPDATE \(quoted(object.tableName)) SET IsDeleted = 1, \(quoted(Self.deletedAtColumn)) = ?, SystemModstamp = ?, LastModifiedById = ? WHERE Id = ?",
                       arguments: [now, now, actingUserId, id])
        for relationship in schema.childRelationships(of: object.name) where relationship.cascadeDelete {
            guard let child = schema.object(named: relationship.childObject), let field = child.field(named: relationship.field) else { continue }
            try db.execute(sql: "UPDATE \(quoted(child.tableName)) SET IsDeleted = 1, \(quoted(Self.deletedAtColumn)) = ?, SystemModstamp = ?, LastModifiedById = ? WHERE \(quoted(field.columnName)) = ? AND IsDeleted = 0",
                           arguments: [now, now, actingUserId, id])
        }
    }

    /// The `If-Unmodified-Since` precondition of an update or delete: 412 when the record changed later.
    static func checkUnmodified(_ record: StoredRecord, since: Int64) throws {
        guard record.lastModifiedDate > since else { return }
        throw APIError(status: 412, errorCode: "PRECONDITION_FAILED",
                       message: "The requested resource has been modified since the If-Unmodified-Since date: \(SalesforceDate.formatHTTPDate(since))")
    }

    /// References must name a live record of the right object; unique fields must be unique.
    func checkReferencesAndUniqueness(_ db: Database, object: ObjectDefinition, values: [String: DatabaseValue], excludingId: String?,
                                      visibleTo ownerId: String? = nil) throws {
        // RecordTypeId is checked against the object's own record types, in `checkRecordRules`.
        for field in object.fields where field.type == .reference && field.name != "RecordTypeId" {
            guard let value = values[field.name], let id = String.fromDatabaseValue(value),
                  let targetName = field.referenceTo, let target = schema.object(named: targetName) else { continue }
            guard SalesforceId.keyPrefix(of: id) == target.keyPrefix else { throw RecordValidator.malformedReference(field, id) }
            guard let referenced = try referenceTarget(db, object: target, id: id), !referenced.isDeleted else {
                throw APIError(status: 400, errorCode: "INVALID_CROSS_REFERENCE_KEY", message: "invalid cross reference id", fields: [field.name])
            }
            // Owners may be any user; other references must point at records the user can see.
            if field.name != "OwnerId", !Self.isVisible(referenced, object: target, to: ownerId) {
                throw APIError(status: 400, errorCode: "INSUFFICIENT_ACCESS_ON_CROSS_REFERENCE_ENTITY",
                               message: "insufficient access rights on cross-reference id", fields: [field.name])
            }
        }
        for field in object.fields where field.unique {
            guard let value = values[field.name], !value.isNull else { continue }
            let statement = try db.cachedStatement(
                sql: "SELECT Id FROM \(quoted(object.tableName)) WHERE \(quoted(field.columnName)) = ? AND IsDeleted = 0 AND Id IS NOT ?")
            if let other = try String.fetchOne(statement, arguments: [value, excludingId]) {
                throw APIError(status: 400, errorCode: "DUPLICATE_VALUE",
                               message: "duplicate value found: \(field.name) duplicates value on record with id: \(other)", fields: [field.name])
            }
        }
    }

    /// What an org's configuration adds to a save, checked on the record as it will be stored:
    /// its record type is one of the object's, restricted picklists hold a value the record type
    /// offers (the fields `written` sets, or all when the record type changes), and no validation
    /// rule fails.
    func checkRecordRules(object: ObjectDefinition, written: [String: DatabaseValue], record: [String: DatabaseValue]) throws {
        var recordType: RecordTypeDefinition?
        if !object.recordTypes.isEmpty {
            if let id = record["RecordTypeId"].flatMap(String.fromDatabaseValue) {
                guard let found = object.recordType(id: id) else {
                    throw APIError(status: 400, errorCode: "INVALID_CROSS_REFERENCE_KEY",
                                   message: "Record Type ID: this ID value isn't valid for the user: \(id)", fields: ["RecordTypeId"])
                }
                recordType = found
            } else {
                recordType = object.defaultRecordType
            }
        }
        let recordTypeChanged = written["RecordTypeId"] != nil
        for field in object.fields where field.restrictedPicklist && (recordTypeChanged || written[field.name] != nil) {
            guard let stored = record[field.name].flatMap(String.fromDatabaseValue) else { continue }
            let offered = object.picklistValues(of: field, recordType: recordType)
            let values = field.type == .multipicklist ? stored.split(separator: ";").map(String.init) : [stored]
            if let value = values.first(where: { !offered.contains($0) }) {
                throw APIError(status: 400, errorCode: "INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST",
                               message: "\(field.label): bad value for restricted picklist field: \(value)", fields: [field.name])
            }
        }
        let recordTypeName = recordType?.developerName ?? "Master"
        for rule in object.validationRules {
            var holds = true
            for condition in rule.conditions where holds {
                holds = Self.holds(condition, object: object, record: record, recordTypeName: recordTypeName)
            }
            var missing = false
            for name in rule.requires where !missing {
                missing = Self.isBlank(object.field(named: name).flatMap { record[$0.name] })
            }
            if holds && missing {
                throw APIError(status: 400, errorCode: "FIELD_CUSTOM_VALIDATION_EXCEPTION", message: rule.errorMessage,
                               fields: rule.errorField.map { [$0] } ?? [])
            }
        }
    }

    private static func holds(_ condition: ValidationRule.Condition, object: ObjectDefinition, record: [String: DatabaseValue],
                              recordTypeName: String) -> Bool {
        if condition.field == "RecordType" { return recordTypeName == condition.value }
        guard let field = object.field(named: condition.field) else { return false }
        let text: String
        switch record[field.name]?.storage {
        case let .string(string)?: text = string
        case let .int64(number)? where field.type == .boolean: text = number == 0 ? "false" : "true"
        case let .int64(number)?: text = String(number)
        case let .double(number)?: text = String(number)
        default: return false
        }
        return text.caseInsensitiveCompare(condition.value) == .orderedSame
    }

    private static func isBlank(_ value: DatabaseValue?) -> Bool {
        guard let value, !value.isNull else { return true }
        return String.fromDatabaseValue(value)?.isEmpty == true
    }

    /// The referenced record's IsDeleted and OwnerId, all a reference check reads: two columns
    /// through a cached statement instead of the whole row (a sync up's updates name an account each).
    func referenceTarget(_ db: Database, object: ObjectDefinition, id: String) throws -> StoredRecord? {
        let owner = object.hasOwner ? "OwnerId" : "NULL"
        let statement = try db.cachedStatement(sql: "SELECT IsDeleted, \(owner) FROM \(quoted(object.tableName)) WHERE Id = ?")
        guard let row = try Row.fetchOne(statement, arguments: [id]) else { return nil }
        return StoredRecord(object: object.name, values: ["IsDeleted": row[0] as DatabaseValue, "OwnerId": row[1] as DatabaseValue])
    }

    /// Fills fields such as Contact.Name from the fields they concatenate.
    static func fillComputedFields(object: ObjectDefinition, values: inout [String: DatabaseValue]) {
        for field in object.fields where !field.concatenationOf.isEmpty {
            let parts = field.concatenationOf.compactMap { values[$0].flatMap(String.fromDatabaseValue) }.filter { !$0.isEmpty }
            values[field.name] = parts.isEmpty ? .null : parts.joined(separator: " ").databaseValue
        }
    }

    /// The current time in whole seconds, the precision Salesforce keeps.
    public static func now() -> Int64 { Int64(Date().timeIntervalSince1970.rounded(.down)) }
}

/// Double-quotes an SQL identifier. Only names from the schema file reach this, never request input.
func quoted(_ identifier: String) -> String {
    // Fast path: schema names never contain quotes, and seeding calls this for every column.
    guard identifier.utf8.contains(UInt8(ascii: "\"")) else { return "\"" + identifier + "\"" }
    return "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}
