import ForceJSON
import GRDB

/// Field-level security: what one user may do with each field of each object, from their profile
/// and permission sets, as Salesforce's "Field-Level Security" help describes it. A hidden field
/// does not exist for the user (absent from describe, `No such column` in SOQL and writes); a
/// read-only one is described `createable`/`updateable` false and refused on writes.
public struct FieldAccess: Sendable, Equatable {
    public enum Level: Int, Sendable, Comparable, CaseIterable {
        case hidden = 0, read, edit

        public static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }

        /// The word `localorg profile` takes and shows.
        public var word: String {
            switch self {
            case .hidden: "hidden"
            case .read: "read-only"
            case .edit: "edit"
            }
        }
    }

    /// `object.field` (lowercased) → the profile's level; fields not listed keep the default.
    var profile: [String: Level]
    /// `object.field` (lowercased) → the highest level any of the user's permission sets grants.
    var granted: [String: Level]
    /// Administrators (System Administrator) read and edit every field the schema lets anyone edit.
    var isAdministrator: Bool
    /// `Object.Field` (lowercased) of fields the org does not have at all, whoever asks: the code
    /// fields of State and Country/Territory Picklists while that feature is off.
    var absent: Set<String> = []

    init(profile: [String: Level] = [:], granted: [String: Level] = [:], isAdministrator: Bool) {
        self.profile = profile
        self.granted = granted
        self.isAdministrator = isAdministrator
    }

    public static let administrator = FieldAccess(isAdministrator: true)
    /// Standard User: every field, but those the schema keeps to administrators (`editableBy`) read-only.
    public static let standardUser = FieldAccess(isAdministrator: false)

    /// The same access in an org without State and Country/Territory Picklists: their code fields
    /// do not exist.
    func withoutAddressCodes() -> FieldAccess {
        var copy = self
        for (objectName, prefixes) in AddressPicklists.addresses {
            for prefix in prefixes {
                for suffix in ["CountryCode", "StateCode"] { copy.absent.insert("\(objectName).\(prefix)\(suffix)".lowercased()) }
            }
        }
        return copy
    }

    static func key(_ object: ObjectDefinition, _ field: FieldDefinition) -> String {
        "\(object.name).\(field.name)".lowercased()
    }

    public func level(of field: FieldDefinition, in object: ObjectDefinition) -> Level {
        let key = Self.key(object, field)
        if absent.contains(key) { return .hidden }
        if isAdministrator || !field.isPermissionable { return .edit }
        let base = profile[key] ?? (field.editableByAdminsOnly ? .read : .edit)
        return max(base, granted[key] ?? .hidden)
    }

    public func canRead(_ field: FieldDefinition, in object: ObjectDefinition) -> Bool {
        level(of: field, in: object) != .hidden
    }

    /// Whether the user may set the field when creating (`creating`) or updating a record.
    public func canWrite(_ field: FieldDefinition, in object: ObjectDefinition, creating: Bool) -> Bool {
        (creating ? field.createable : field.updateable) && level(of: field, in: object) == .edit
    }

    /// The fields of `object` the user may read, in the schema's order.
    public func readableFields(of object: ObjectDefinition) -> [FieldDefinition] {
        object.fields.filter { canRead($0, in: object) }
    }
}

extension FieldDefinition {
    /// Salesforce lets a profile restrict a field unless the org needs it: system fields, the
    /// record's name, and fields required on every record (describe's `permissionable`).
    var isPermissionable: Bool { !isSystem && nillable && !nameField }
}

/// A profile or permission set as `localorg profile` keeps it: field-level security by field.
public struct AccessDefinition: Sendable, Equatable {
    public enum Kind: String, Sendable { case profile, permissionSet }
    public var name: String
    public var kind: Kind
    /// `Object.Field` as the schema spells it → level.
    public var fields: [String: FieldAccess.Level]

    public init(name: String, kind: Kind, fields: [String: FieldAccess.Level]) {
        self.name = name
        self.kind = kind
        self.fields = fields
    }

    /// The built-in profiles, which every org has and which cannot be changed.
    public static let systemAdministrator = "System Administrator"
    public static let standardUser = "Standard User"

    var fieldsJSON: String {
        JSONWriter.string(.object(JSONObject(uniqueKeysWithValues: fields.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value.word)) })))
    }

    static func levels(_ json: String?) -> [String: FieldAccess.Level] {
        guard let json, let object = (try? JSONParser.parse(Array(json.utf8)))?.objectValue else { return [:] }
        var levels: [String: FieldAccess.Level] = [:]
        for (key, value) in object {
            if let level = FieldAccess.Level.allCases.first(where: { $0.word == value.stringValue }) { levels[key.lowercased()] = level }
        }
        return levels
    }
}

extension OrgStore {
    static func createAccessTables(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE IF NOT EXISTS localorg_access (
                    name TEXT PRIMARY KEY NOT NULL COLLATE NOCASE, kind TEXT NOT NULL, fields TEXT NOT NULL);
                CREATE TABLE IF NOT EXISTS localorg_permission_set_assignment (
                    userId TEXT NOT NULL, name TEXT NOT NULL COLLATE NOCASE, PRIMARY KEY (userId, name));
                """)
        let columns = Set(try Row.fetchAll(db, sql: "PRAGMA table_info(localorg_credential)").map { $0["name"] as String })
        if !columns.contains("profile") { try db.execute(sql: "ALTER TABLE localorg_credential ADD COLUMN profile TEXT") }
    }

    /// The field access of a user (an administrator's is unrestricted), read in `db`.
    static func fieldAccess(_ db: Database, userId: String, isAdmin: Bool) throws -> FieldAccess {
        guard !isAdmin else { return .administrator }
        let row = try Row.fetchOne(
            db,
            sql: """
                SELECT p.fields, (SELECT json_group_array(s.fields) FROM localorg_permission_set_assignment a
                                  JOIN localorg_access s ON s.name = a.name AND s.kind = 'permissionSet' WHERE a.userId = c.userId)
                FROM localorg_credential c LEFT JOIN localorg_access p ON p.name = c.profile AND p.kind = 'profile'
                WHERE c.userId = ?
                """, arguments: [userId])
        var access = FieldAccess.standardUser
        access.profile = AccessDefinition.levels(row?[0])
        let sets = (try? JSONParser.parse(Array(((row?[1] as String?) ?? "[]").utf8)))?.arrayValue ?? []
        for set in sets {
            for (key, level) in AccessDefinition.levels(set.stringValue) { access.granted[key] = max(access.granted[key] ?? .hidden, level) }
        }
        return access
    }

    /// Every profile and permission set besides the built-in ones, by name.
    public func accessDefinitions() throws -> [AccessDefinition] {
        try pool.read { db in
            try Row.fetchAll(db, sql: "SELECT name, kind, fields FROM localorg_access ORDER BY kind, name").compactMap { row in
                guard let kind = AccessDefinition.Kind(rawValue: row[1]) else { return nil }
                var fields: [String: FieldAccess.Level] = [:]
                // Stored lowercased keys are shown in the schema's spelling.
                for (key, level) in AccessDefinition.levels(row[2]) { fields[self.schemaSpelling(of: key) ?? key] = level }
                return AccessDefinition(name: row[0], kind: kind, fields: fields)
            }
        }
    }

    private func schemaSpelling(of key: String) -> String? {
        let parts = key.split(separator: ".", maxSplits: 1)
        guard parts.count == 2, let object = schema.object(named: parts[0]), let field = object.field(named: parts[1]) else { return nil }
        return "\(object.name).\(field.name)"
    }

    /// Creates or replaces a profile or permission set, checking every field it names.
    public func saveAccessDefinition(_ definition: AccessDefinition) throws {
        let builtIn = [AccessDefinition.systemAdministrator, AccessDefinition.standardUser]
        guard !builtIn.contains(where: { $0.caseInsensitiveCompare(definition.name) == .orderedSame }) else {
            throw SchemaError(description: "\(definition.name) is a built-in profile and cannot be changed; add a profile of another name")
        }
        var fields: [String: FieldAccess.Level] = [:]
        for (name, level) in definition.fields {
            let parts = name.split(separator: ".", maxSplits: 1)
            guard parts.count == 2, let object = schema.object(named: parts[0]) else {
                throw SchemaError(description: "\(name): name a field as Object.Field, e.g. Contact.Department")
            }
            guard let field = object.field(named: parts[1]) else {
                throw SchemaError(description: "\(name): \(object.name) has no field \(parts[1])")
            }
            guard field.isPermissionable else {
                throw SchemaError(description: "\(object.name).\(field.name) is required or a system field; Salesforce lets no profile restrict it")
            }
            fields["\(object.name).\(field.name)"] = level
        }
        var stored = definition
        stored.fields = fields
        try pool.write { db in
            if let other = try String.fetchOne(
                db, sql: "SELECT kind FROM localorg_access WHERE name = ? AND kind <> ?",
                arguments: [definition.name, definition.kind.rawValue])
            {
                throw SchemaError(description: "\(definition.name) is already a \(other == "profile" ? "profile" : "permission set"); choose another name")
            }
            try db.execute(
                sql: "INSERT INTO localorg_access (name, kind, fields) VALUES (?, ?, ?) ON CONFLICT(name) DO UPDATE SET fields = excluded.fields",
                arguments: [stored.name, stored.kind.rawValue, stored.fieldsJSON])
            try Self.noteAccessChange(db)
        }
    }

    /// Removes a profile (its users fall back to Standard User) or permission set (unassigned).
    public func removeAccessDefinition(named name: String) throws {
        try pool.write { db in
            guard let kind = try String.fetchOne(db, sql: "SELECT kind FROM localorg_access WHERE name = ?", arguments: [name]) else {
                throw SchemaError(description: "no profile or permission set named \(name); localorg profile list shows them")
            }
            try db.execute(sql: "DELETE FROM localorg_access WHERE name = ?", arguments: [name])
            try Self.noteAccessChange(db)
            if kind == AccessDefinition.Kind.profile.rawValue {
                try db.execute(sql: "UPDATE localorg_credential SET profile = NULL WHERE profile = ? COLLATE NOCASE", arguments: [name])
            } else {
                try db.execute(sql: "DELETE FROM localorg_permission_set_assignment WHERE name = ?", arguments: [name])
            }
        }
    }

    /// Gives users a profile (nil: the default, Standard User or System Administrator).
    public func assignProfile(_ name: String?, toUserIds userIds: [String], in db: Database) throws {
        if let name, ![AccessDefinition.standardUser, AccessDefinition.systemAdministrator].contains(where: { $0.caseInsensitiveCompare(name) == .orderedSame }) {
            guard try String.fetchOne(db, sql: "SELECT name FROM localorg_access WHERE name = ? AND kind = 'profile'", arguments: [name]) != nil else {
                throw SchemaError(description: "no profile named \(name); add it with localorg profile add \"\(name)\" --hidden Object.Field …")
            }
        }
        let stored = name.flatMap { [AccessDefinition.standardUser, AccessDefinition.systemAdministrator].contains($0) ? nil : $0 }
        for userId in userIds {
            try db.execute(sql: "UPDATE localorg_credential SET profile = ? WHERE userId = ?", arguments: [stored, userId])
        }
        try Self.noteAccessChange(db)
    }

    public func assignProfile(_ name: String?, toUserId userId: String) throws {
        try pool.write { try assignProfile(name, toUserIds: [userId], in: $0) }
    }

    /// Assigns a permission set to a user, or takes it away.
    public func assignPermissionSet(_ name: String, toUserId userId: String, remove: Bool) throws {
        try pool.write { db in
            guard try String.fetchOne(db, sql: "SELECT name FROM localorg_access WHERE name = ? AND kind = 'permissionSet'", arguments: [name]) != nil else {
                throw SchemaError(description: "no permission set named \(name); add it with localorg profile add \"\(name)\" --permission-set --edit Object.Field …")
            }
            try Self.noteAccessChange(db)
            if remove {
                try db.execute(sql: "DELETE FROM localorg_permission_set_assignment WHERE userId = ? AND name = ?", arguments: [userId, name])
            } else {
                try db.execute(sql: "INSERT OR IGNORE INTO localorg_permission_set_assignment (userId, name) VALUES (?, ?)", arguments: [userId, name])
            }
        }
    }

    /// Each user's profile and permission sets, for `localorg user list`.
    public func accessAssignments() throws -> [String: (profile: String, permissionSets: [String])] {
        try pool.read { db in
            var result: [String: (profile: String, permissionSets: [String])] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT userId, isAdmin, profile FROM localorg_credential") {
                let isAdmin: Bool = row[1]
                let profile: String? = row[2]
                result[row[0]] = (profile ?? (isAdmin ? AccessDefinition.systemAdministrator : AccessDefinition.standardUser), [])
            }
            for row in try Row.fetchAll(db, sql: "SELECT userId, name FROM localorg_permission_set_assignment ORDER BY name") {
                result[row[0] as String]?.permissionSets.append(row[1])
            }
            return result
        }
    }
}
