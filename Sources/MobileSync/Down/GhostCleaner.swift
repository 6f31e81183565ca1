import ForceJSON
import SmartStore

/// Removes records the server no longer returns for a sync ("ghosts"): deleted there, no longer
/// matching, or no longer visible. Records with local changes are never removed, and a run that
/// would remove too many records stops before removing any.
public struct GhostCleaner: Sendable {
    public var soupName: String
    public var idFieldName: String
    public var syncId: Int64

    public init(soupName: String, idFieldName: String = "Id", syncId: Int64) {
        self.soupName = soupName
        self.idFieldName = idFieldName
        self.syncId = syncId
    }

    /// Ids of the records without local changes that this sync may clean: only its own records
    /// when `__sync_id__` is indexed (as the SDK), else every clean record of the soup.
    public func cleanLocalIds(in transaction: StoreTransaction) throws -> [String] {
        try Self.rows(cleanIdsSQL(also: nil, in: transaction), in: transaction).compactMap { $0.first?.stringValue }
    }

    /// Every server id the soup holds, whatever its state or sync: a record another sync holds,
    /// or one with local changes, is not fetched again as if it were new.
    public func allIds(in transaction: StoreTransaction) throws -> [String] {
        try Self.rows("SELECT {\(soupName):\(idFieldName)} FROM {\(soupName)} WHERE {\(soupName):\(idFieldName)} IS NOT NULL", in: transaction)
            .compactMap { $0.first?.stringValue }
    }

    /// How many of this sync's records carry a server id (created here and never sent do not):
    /// after a complete sync down the server returns each of them unless it is a ghost.
    public func syncedCount(in transaction: StoreTransaction) throws -> Int {
        let sql =
            "SELECT count(*) FROM {\(soupName)} WHERE {\(soupName):\(idFieldName)} IS NOT NULL"
            + " AND coalesce({\(soupName):\(LocalField.locallyCreated)}, 'false') NOT IN ('true', '1', 1)"
            + (try thisSyncOnly(in: transaction))
        return Int(try Self.rows(sql, in: transaction).first?.first?.int64Value ?? -1)
    }

    /// Like `cleanLocalIds`, for children: only those whose parent (in `parentIdFieldName`) is one
    /// of `parentIds`, so children of parents outside this sync are never candidates.
    public func cleanLocalChildIds(parentIdFieldName: String, parentIds: Set<String>, in transaction: StoreTransaction) throws -> [String] {
        try Self.rows(cleanIdsSQL(also: parentIdFieldName, in: transaction), in: transaction).compactMap { columns in
            guard columns.count == 2, let parent = columns[1].stringValue, parentIds.contains(parent) else { return nil }
            return columns[0].stringValue
        }
    }

    /// The Smart SQL for this sync's clean ids in id order, with the `also` path as a second column.
    private func cleanIdsSQL(also path: String?, in transaction: StoreTransaction) throws -> String {
        var sql = "SELECT {\(soupName):\(idFieldName)}" + (path.map { ", {\(soupName):\($0)}" } ?? "")
        sql += " FROM {\(soupName)} WHERE \(LocalField.cleanPredicate(soup: soupName)) AND {\(soupName):\(idFieldName)} IS NOT NULL"
        sql += try thisSyncOnly(in: transaction)
        return sql + " ORDER BY {\(soupName):\(idFieldName)} ASC"
    }

    /// " AND __sync_id__ = id" when `__sync_id__` is indexed (as the SDK keeps it), else nothing:
    /// without the index every clean record of the soup is a candidate.
    private func thisSyncOnly(in transaction: StoreTransaction) throws -> String {
        try transaction.hasIndex(soup: soupName, path: LocalField.syncId) ? " AND {\(soupName):\(LocalField.syncId)} = \(syncId)" : ""
    }

    /// The local ids the server did not return, in local order.
    public static func ghosts(localIds: [String], remoteIds: Set<String>) -> [String] {
        localIds.filter { !remoteIds.contains($0) }
    }

    /// Deletes these ghosts, checking again in this transaction that none has gained local
    /// changes meanwhile. A ghost a subscription holds (a row in `SyncMembers`) stays: the sync
    /// whose `__sync_id__` it carried no longer holds it, so that id moves to a subscription
    /// holding it. Returns how many were removed.
    @discardableResult
    public func remove(_ ids: [String], in transaction: StoreTransaction) throws -> Int {
        let members = try SyncMembers.existing(in: transaction)
        var removed = 0
        for chunk in ids.chunked(into: 500) {
            let chunk = Array(chunk)
            let placeholders = Array(repeating: "?", count: chunk.count).joined(separator: ",")
            let sql =
                "SELECT {\(soupName):_soupEntryId}, {\(soupName):\(idFieldName)} FROM {\(soupName)} WHERE {\(soupName):\(idFieldName)} IN (\(placeholders))"
                + " AND \(LocalField.cleanPredicate(soup: soupName))"
            let rows = try transaction.query(.smart(sql, pageSize: chunk.count * 2 + 1), arguments: chunk.map { .string($0) })
            let holders = try members?.holders(of: chunk, soup: soupName, in: transaction) ?? [:]
            var entryIds: [Int64] = []
            var kept: [String: Int64] = [:]
            for row in rows {
                guard let columns = row.arrayValue, columns.count == 2, let entryId = columns[0].int64Value else { continue }
                if let id = columns[1].stringValue, let holder = holders[id]?.filter({ $0 != SyncMembers.leaving && $0 != syncId }).min() {
                    kept[id] = holder
                } else {
                    entryIds.append(entryId)
                }
            }
            try transaction.delete(entryIds, from: soupName)
            try hand(kept, in: transaction)
            removed += entryIds.count
        }
        return removed
    }

    /// Gives records this sync no longer holds to the subscription that still does, by id.
    private func hand(_ records: [String: Int64], in transaction: StoreTransaction) throws {
        _ = try reassign(Array(records.keys), in: transaction) { record, id in
            record[LocalField.syncId]?.int64Value == syncId ? records[id] : nil
        }
    }

    /// Makes this sync the holder of the records it returns (`remoteIds`) that only subscriptions
    /// hold: a subscription's fetch leaves a record's `__sync_id__` as it finds it, so a record a
    /// subscription brought first names the subscription, and this sync's count of its own
    /// records would miss it on every check. Records another config sync (`configHolders`) holds
    /// stay its. Returns how many changed hands.
    @discardableResult
    public func claim(_ remoteIds: Set<String>, configHolders: Set<Int64>, in transaction: StoreTransaction) throws -> Int {
        guard let members = try SyncMembers.existing(in: transaction) else { return 0 }
        let held = try members.heldIds(soup: soupName, in: transaction).intersection(remoteIds)
        return try reassign(held.sorted(), in: transaction) { record, _ in
            if let owner = record[LocalField.syncId]?.int64Value, owner == syncId || configHolders.contains(owner) { return nil }
            return syncId
        }
    }

    /// Sets the `__sync_id__` of these records to what `owner` says (nil: left as it is), 500 ids
    /// a query. Returns how many changed.
    private func reassign(_ ids: [String], in transaction: StoreTransaction, owner: (JSONObject, String) -> Int64?) throws -> Int {
        var changed = 0
        for chunk in ids.chunked(into: 500) {
            for var record in try transaction.entries(whereIndexed: idFieldName, isOneOf: Array(chunk), in: soupName) {
                guard let entryId = record.soupEntryId, let id = record[idFieldName]?.stringValue, let holder = owner(record, id) else { continue }
                record[LocalField.syncId] = .int(holder)
                _ = try transaction.update(record, id: entryId, in: soupName)
                changed += 1
            }
        }
        return changed
    }

    /// Every row of a Smart SQL query, read 5,000 at a time.
    static func rows(_ sql: String, in transaction: StoreTransaction) throws -> [[JSONValue]] {
        try transaction.everyPage(of: .smart(sql, pageSize: 5_000)).compactMap(\.arrayValue)
    }
}

/// Stops a sync that would delete more than `maxPercent` % of a soup's records, for soups of at
/// least `minimumCount` records (deleting most of a tiny soup is normal). `force` lets it through.
public struct MassDeletionGuard: Sendable, Equatable {
    public var maxPercent: Int
    public var minimumCount: Int

    public init(maxPercent: Int = 50, minimumCount: Int = 20) {
        self.maxPercent = maxPercent
        self.minimumCount = minimumCount
    }

    /// Whether deleting `count` of `total` records needs the user's confirmation.
    public func trips(deleting count: Int, of total: Int) -> Bool {
        total >= minimumCount && count * 100 > total * maxPercent
    }

    public func check(deleting count: Int, of total: Int, soup: String, force: Bool) throws(MobileSyncError) {
        if !force, trips(deleting: count, of: total) {
            throw .massDeletion(soup: soup, wouldDelete: count, of: total, limitPercent: maxPercent)
        }
    }
}
