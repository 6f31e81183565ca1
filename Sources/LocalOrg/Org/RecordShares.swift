import GRDB

/// Records shared with a user beyond what they own: what Salesforce grants through account teams,
/// territory assignment, sharing rules or a manual share. In an org with private sharing a shared
/// record (and, for an account, the contacts it controls) is visible to the user, and editable
/// unless the share is read-only. A share never touches the record: its LastModifiedDate and
/// SystemModstamp stay as they were, as Salesforce keeps them (a sharing change is a row of the
/// object's share table, not an edit), so an incremental query never returns a record that just
/// became visible.
public struct RecordShare: Sendable, Equatable {
    public enum Access: String, Sendable, CaseIterable { case read, edit }
    public var userId: String
    public var recordId: String
    public var access: Access
    /// Why it is shared, as the trainer said: team, territory, rule, manual.
    public var reason: String
}

extension OrgStore {
    static func createShareTable(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE IF NOT EXISTS localorg_share (
                    userId TEXT NOT NULL, recordId TEXT NOT NULL, access TEXT NOT NULL, reason TEXT NOT NULL, PRIMARY KEY (userId, recordId));
                CREATE INDEX IF NOT EXISTS localorg_share_record ON localorg_share(recordId);
                """)
    }

    /// Shares records with a user (a share already there takes the new access and reason).
    /// Every id must name a live record of an object with owners.
    public func share(_ recordIds: [String], withUserId userId: String, access: RecordShare.Access, reason: String) throws {
        try pool.write { db in
            for id in recordIds {
                guard let canonical = SalesforceId.canonical(id), let object = schema.object(keyPrefix: SalesforceId.keyPrefix(of: canonical)),
                    object.hasOwner, let record = try fetchRecord(db, object: object, id: canonical), !record.isDeleted
                else {
                    throw SchemaError(description: "\(id) names no live record that can be shared (an account, a contact…)")
                }
                try db.execute(
                    sql: """
                        INSERT INTO localorg_share (userId, recordId, access, reason) VALUES (?, ?, ?, ?)
                        ON CONFLICT(userId, recordId) DO UPDATE SET access = excluded.access, reason = excluded.reason
                        """, arguments: [userId, canonical, access.rawValue, reason])
            }
        }
    }

    /// Takes shares away; returns how many there were.
    @discardableResult
    public func unshare(_ recordIds: [String], fromUserId userId: String) throws -> Int {
        try pool.write { db in
            var removed = 0
            for id in recordIds {
                try db.execute(sql: "DELETE FROM localorg_share WHERE userId = ? AND recordId = ?", arguments: [userId, SalesforceId.canonical(id) ?? id])
                removed += db.changesCount
            }
            return removed
        }
    }

    /// The shares of one user, or of everyone.
    public func shares(ofUserId userId: String? = nil) throws -> [RecordShare] {
        try pool.read { db in
            let rows = try Row.fetchAll(
                db,
                sql: "SELECT userId, recordId, access, reason FROM localorg_share"
                    + (userId == nil ? "" : " WHERE userId = ?") + " ORDER BY userId, recordId",
                arguments: userId.map { [$0] } ?? [])
            return rows.map { RecordShare(userId: $0[0], recordId: $0[1], access: RecordShare.Access(rawValue: $0[2]) ?? .read, reason: $0[3]) }
        }
    }
}
