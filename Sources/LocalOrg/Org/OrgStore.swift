import ForceJSON
import Foundation
import GRDB
import SalesforceTime
import Synchronization

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

    /// Who a new org starts with. `demo`: the demo users with the passwords the docs publish
    /// (forceterm --demo, tests). `administrator`: one administrator with a made-up password,
    /// handed back once in `createdAdministrator`, so no org has an admin anyone can look up.
    public enum FirstUsers: Sendable { case demo, administrator }

    /// The administrator of an org this open created with `.administrator`; nil otherwise.
    public var createdAdministrator: NewOrgAdministrator? { created.withLock { $0 } }
    private let created = Mutex<NewOrgAdministrator?>(nil)
    /// The change events' transaction key and last sequence number in the writer's open transaction.
    let changeTransaction = Mutex<(key: String, sequence: Int64)?>(nil)
    /// The filter indexes already made or found (`indexFilteredColumns`), by name.
    let decidedFilterIndexes = Mutex<Set<String>>([])
    let filterIndexThreshold: Int64

    /// `filterIndexMinimumRows`: how large a table must be before a query's filter gets an index
    /// (`FilterIndexes`); tests lower it.
    public init(path: String, schema: OrgSchema, firstUsers: FirstUsers = .demo, filterIndexMinimumRows: Int64 = OrgStore.filterIndexMinimumRows) throws {
        self.schema = schema
        self.filterIndexThreshold = filterIndexMinimumRows
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            // WAL is DatabasePool's default; synchronous=FULL makes every acknowledged commit durable.
            try db.execute(sql: "PRAGMA synchronous = FULL")
            db.add(function: Self.fold)
        }
        pool = try DatabasePool(path: path, configuration: configuration)
        try migrate(firstUsers: firstUsers)
    }

    /// Creates the tables, adds columns for fields new to the schema file, and on first open
    /// creates the organization and its demo users.
    private func migrate(firstUsers: FirstUsers) throws {
        try pool.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE IF NOT EXISTS localorg_sequence (keyPrefix TEXT PRIMARY KEY NOT NULL, lastNumber INTEGER NOT NULL);
                    CREATE TABLE IF NOT EXISTS localorg_credential (
                        userId TEXT PRIMARY KEY NOT NULL, passwordHash TEXT NOT NULL, isAdmin INTEGER NOT NULL);
                    CREATE TABLE IF NOT EXISTS localorg_token (
                        selector TEXT PRIMARY KEY NOT NULL, verifierHash BLOB NOT NULL, kind TEXT NOT NULL,
                        userId TEXT NOT NULL, clientId TEXT NOT NULL, issuedAt INTEGER NOT NULL,
                        expiresAt INTEGER, refreshSelector TEXT, revoked INTEGER NOT NULL DEFAULT 0);
                    CREATE INDEX IF NOT EXISTS localorg_token_refresh ON localorg_token(refreshSelector);
                    """)
            try Self.addSignInColumns(db)
            try Self.createAccessTables(db)
            try DeviceAuthorization.ensureTable(db)
            try Self.createHistoryTable(db)
            try Self.createEventTable(db)
            try Self.createChangeEventTable(db)
            try Self.createSettingTable(db)
            try Self.createShareTable(db)
            try Self.createLockTable(db)
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
                for field in object.fields
                where field.type == .reference || field.externalId || field.unique
                    || field.nameField || field.name == "SystemModstamp" || field.name == "LastModifiedDate"
                    || DuplicateRule.candidateFields.contains("\(object.name).\(field.name)")
                {
                    try db.execute(sql: "CREATE INDEX IF NOT EXISTS \(quoted("\(table)_\(field.name)")) ON \(quoted(table))(\(quoted(field.columnName)))")
                }
            }
        }
        let administrator = try bootstrapIfEmpty(firstUsers: firstUsers)
        created.withLock { $0 = administrator }
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
                    _ = try insertRow(
                        db, object: recordTypeObject, values: &values, actingUserId: adminId, now: Self.now(),
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

    private func bootstrapIfEmpty(firstUsers: FirstUsers) throws -> NewOrgAdministrator? {
        guard let organization = schema.object(named: "Organization"), let user = schema.object(named: "User") else {
            throw SchemaError(description: "the schema needs Organization and User objects")
        }
        let hasOrganization = try pool.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(quoted(organization.tableName))") ?? 0 > 0
        }
        if hasOrganization { return nil }
        let administrator = NewOrgAdministrator(username: NewOrgAdministrator.defaultUsername, password: Self.generatedPassword())
        let firstUsers: [(username: String, password: String, first: String, last: String, admin: Bool)] =
            switch firstUsers {
            case .demo: Self.demoUsers
            case .administrator: [(administrator.username, administrator.password, "Org", "Administrator", true)]
            }
        // Hash outside the transaction: each hash takes a noticeable fraction of a second.
        let hashes = try firstUsers.map { try PasswordHasher.hash($0.password) }
        let now = Self.now()
        try pool.write { db in
            let firstUserId = SalesforceId.make(keyPrefix: user.keyPrefix, number: try reserveNumbers(db, keyPrefix: user.keyPrefix, count: 1))
            var orgValues: [String: DatabaseValue] = [
                "Name": "LocalOrg Demo Company".databaseValue, "OrganizationType": "Developer Edition".databaseValue,
                "InstanceName": "LO1".databaseValue, "IsSandbox": true.databaseValue,
                "DefaultLocaleSidKey": "en_US".databaseValue, "TimeZoneSidKey": "GMT".databaseValue,
            ]
            _ = try insertRow(
                db, object: organization, values: &orgValues, actingUserId: firstUserId, now: now,
                presetId: Self.newOrganizationId())
            for (index, first) in firstUsers.enumerated() {
                var values: [String: DatabaseValue] = [
                    "Username": first.username.databaseValue, "FirstName": first.first.databaseValue,
                    "LastName": first.last.databaseValue, "Email": first.username.databaseValue,
                    "Alias": String((first.first.prefix(1) + first.last).prefix(8)).lowercased().databaseValue,
                    "IsActive": true.databaseValue, "TimeZoneSidKey": "GMT".databaseValue,
                    "LanguageLocaleKey": "en_US".databaseValue,
                ]
                let id = try insertRow(
                    db, object: user, values: &values, actingUserId: firstUserId, now: now,
                    presetId: index == 0 ? firstUserId : nil)
                try db.execute(
                    sql: "INSERT INTO localorg_credential (userId, passwordHash, isAdmin) VALUES (?, ?, ?)",
                    arguments: [id, hashes[index], first.admin])
            }
        }
        return firstUsers.count == 1 ? administrator : nil
    }

    /// The organization's id, read without blocking a thread of Swift's concurrency pool: what
    /// request handlers use (a blocked pool thread can hold up the very reads it waits for).
    public func currentOrganizationId() async throws -> String {
        guard let organization = schema.object(named: "Organization") else { return "" }
        return try await pool.read { db in
            try String.fetchOne(db, sql: "SELECT Id FROM \(quoted(organization.tableName)) LIMIT 1") ?? ""
        }
    }

    /// The organization's id (`00D…`), for the command-line tools.
    public func organizationId() throws -> String {
        guard let organization = schema.object(named: "Organization") else { return "" }
        return try pool.read { db in
            try String.fetchOne(db, sql: "SELECT Id FROM \(quoted(organization.tableName)) LIMIT 1") ?? ""
        }
    }

    /// Adds a user who can sign in.
    public func addUser(
        username: String, password: String, firstName: String?, lastName: String, email: String?,
        isAdmin: Bool
    ) throws -> String {
        let ids = try addUsers([NewOrgUser(username: username, password: password, firstName: firstName, lastName: lastName, isAdmin: isAdmin)])
        guard let id = ids.first else { throw SchemaError(description: "\(username) was not added") }
        return id
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

    /// The current time in whole seconds, the precision Salesforce keeps.
    public static func now() -> Int64 { Int64(Date().timeIntervalSince1970.rounded(.down)) }
}

/// Double-quotes an SQL identifier. Only names from the schema file reach this, never request input.
func quoted(_ identifier: String) -> String {
    // Fast path: schema names never contain quotes, and seeding calls this for every column.
    guard identifier.utf8.contains(UInt8(ascii: "\"")) else { return "\"" + identifier + "\"" }
    return "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}
