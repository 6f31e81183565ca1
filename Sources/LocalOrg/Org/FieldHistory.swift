import ForceJSON
import Foundation
import GRDB

/// One change to one field of a record, as Salesforce's field history keeps it (`ContactHistory`):
/// who, when, old and new value. A record's creation is a `created` row and its move to the
/// recycle bin a `deleted` row, neither with values.
public struct FieldChange: Sendable, Equatable {
    public var time: Int64
    public var recordId: String
    public var object: String
    public var field: String
    public var oldValue: String?
    public var newValue: String?
    public var userId: String
    public var username: String

    public static let createdField = "created"
    public static let deletedField = "deleted"
}

extension OrgStore {
    static let historyTable = "localorg_field_history"

    static func createHistoryTable(_ db: Database) throws {
        // oldValue and newValue are the values as the API shows them, kept as text so a history
        // reads the same after the schema changes.
        try db.execute(
            sql: """
                CREATE TABLE IF NOT EXISTS \(historyTable) (
                    sequence INTEGER PRIMARY KEY AUTOINCREMENT, recordId TEXT NOT NULL, object TEXT NOT NULL, field TEXT NOT NULL,
                    oldValue TEXT, newValue TEXT, userId TEXT NOT NULL, time INTEGER NOT NULL);
                CREATE INDEX IF NOT EXISTS localorg_field_history_record ON \(historyTable)(recordId, sequence);
                CREATE INDEX IF NOT EXISTS localorg_field_history_user ON \(historyTable)(userId);
                """)
    }

    /// Users, the organization and record types are set up by localorg itself, not edited by a class.
    static func tracksHistory(_ object: ObjectDefinition) -> Bool {
        !["User", "Organization", "RecordType"].contains(object.name)
    }

    /// Fields whose changes are worth a history row: what a person writes, not what the
    /// server stamps or computes from it.
    private static func isTracked(_ field: FieldDefinition) -> Bool {
        !field.isSystem && field.concatenationOf.isEmpty && field.type != .id
            && !["CreatedDate", "CreatedById", "LastModifiedDate", "LastModifiedById", "SystemModstamp", "IsDeleted"].contains(field.name)
    }

    func noteHistory(
        _ db: Database, object: ObjectDefinition, id: String, field: String, old: String?, new: String?,
        userId: String, now: Int64
    ) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO \(Self.historyTable) (recordId, object, field, oldValue, newValue, userId, time) VALUES (?, ?, ?, ?, ?, ?, ?)
                """
        ).execute(arguments: [id, object.name, field, old, new, userId, now])
    }

    /// One row per field whose value `written` changed from `before`.
    func noteChanges(
        _ db: Database, object: ObjectDefinition, id: String, before: [String: DatabaseValue],
        written: [String: DatabaseValue], userId: String, now: Int64
    ) throws {
        guard Self.tracksHistory(object) else { return }
        for field in object.fields where Self.isTracked(field) {
            guard let new = written[field.name] else { continue }
            let old = before[field.name] ?? .null
            let oldText = Self.historyText(old, field: field)
            let newText = Self.historyText(new, field: field)
            guard oldText != newText else { continue }
            try noteHistory(db, object: object, id: id, field: field.name, old: oldText, new: newText, userId: userId, now: now)
        }
    }

    static func historyText(_ value: DatabaseValue, field: FieldDefinition) -> String? {
        RecordInspector.displayText(RecordRenderer.json(value, for: field))
    }

    /// Whether any object has a record (live or in the recycle bin) with this id.
    public func recordExists(id: String) async throws -> Bool {
        guard let object = schema.objects.first(where: { $0.keyPrefix == SalesforceId.keyPrefix(of: id) }) else { return false }
        return try await pool.read { db in
            try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM \(quoted(object.tableName)) WHERE Id = ?)", arguments: [id]) ?? false
        }
    }

    /// Every change of the record, oldest first.
    public func history(of id: String) async throws -> [FieldChange] {
        let userTable = quoted(schema.object(named: "User")?.tableName ?? "User")
        return try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT h.time, h.recordId, h.object, h.field, h.oldValue, h.newValue, h.userId, COALESCE(u.Username, h.userId)
                    FROM \(Self.historyTable) h LEFT JOIN \(userTable) u ON u.Id = h.userId
                    WHERE h.recordId = ? ORDER BY h.sequence
                    """, arguments: [id]
            ).map { row in
                FieldChange(
                    time: row[0], recordId: row[1], object: row[2], field: row[3], oldValue: row[4], newValue: row[5],
                    userId: row[6], username: row[7])
            }
        }
    }
}
