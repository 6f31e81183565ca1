import GRDB

/// Record locking ("Record-Level Locking" in Salesforce's docs): writing a record locks the
/// records it looks up, its parent account for a contact, for the length of the transaction, and
/// a writer that cannot get a lock within 10 seconds fails with `UNABLE_TO_LOCK_ROW`, which
/// Salesforce tells clients to retry. localorg writes one transaction at a time, so its own saves
/// never contend; a lock taken by `localorg lock` stands for another job holding the parent (a
/// data load, a batch of children under one account): a save that would wait longer than
/// `lockWait` for it is refused as Salesforce refuses it.
extension OrgStore {
    static func createLockTable(_ db: Database) throws {
        try db.execute(sql: "CREATE TABLE IF NOT EXISTS localorg_lock (recordId TEXT PRIMARY KEY NOT NULL, until INTEGER NOT NULL)")
    }

    /// Holds `recordIds` locked until `until` (epoch seconds), as a long job would.
    public func lock(_ recordIds: [String], until: Int64) throws {
        try pool.write { db in
            for id in recordIds {
                guard let canonical = SalesforceId.canonical(id) else { throw SchemaError(description: "\(id) is not a record id") }
                try db.execute(
                    sql: "INSERT INTO localorg_lock (recordId, until) VALUES (?, ?) ON CONFLICT(recordId) DO UPDATE SET until = excluded.until",
                    arguments: [canonical, until])
            }
        }
    }

    public func unlockAll() throws {
        try pool.write { try $0.execute(sql: "DELETE FROM localorg_lock") }
    }

    /// Refuses a save of `object` whose lookups (in `record`) or the record itself are locked
    /// for longer than `lockWait` seconds from `now`.
    func checkLocks(_ db: Database, object: ObjectDefinition, id: String?, record: [String: DatabaseValue], now: Int64, lockWait: Int64) throws {
        let anyLocked = try db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM localorg_lock WHERE until > ?)")
        guard try Bool.fetchOne(anyLocked, arguments: [now + lockWait]) == true else { return }
        var ids = object.fields.filter { $0.type == .reference && $0.name != "OwnerId" && $0.name != "RecordTypeId" }
            .compactMap { record[$0.name].flatMap { String.fromDatabaseValue($0) } }
        if let id { ids.append(id) }
        guard !ids.isEmpty else { return }
        let placeholders = Array(repeating: "?", count: ids.count).joined(separator: ",")
        let locked = try String.fetchAll(
            db, sql: "SELECT recordId FROM localorg_lock WHERE until > ? AND recordId IN (\(placeholders)) ORDER BY recordId",
            arguments: StatementArguments([(now + lockWait).databaseValue] + ids.map(\.databaseValue)))
        guard !locked.isEmpty else { return }
        throw APIError(
            status: 400, errorCode: "UNABLE_TO_LOCK_ROW",
            message: "unable to obtain exclusive access to this record or \(locked.count) records: \(locked.joined(separator: ","))", fields: [])
    }
}
