import ForceJSON
import SmartStore

/// Saves records fetched from the server into a soup, inside the caller's transaction. Beyond the
/// SDK: a record with local changes is never overwritten, in either merge mode — the check happens
/// per record in the same transaction as the write, so an edit made while the sync runs counts —
/// and it is merged field by field against the base of its changes (`FieldMerge`): the server's
/// changes of other fields are taken, a field both sides changed becomes a conflict of that field.
/// A record with local changes but no recorded base, a local delete, or a conflict is left alone.
/// Fields only the local copy has survive, and records already held unchanged are skipped
/// (`SkipUnchanged`).
public struct DownloadedRecordWriter: Sendable {
    public struct Result: Sendable, Equatable {
        public var saved = 0
        /// Left alone because of local changes: deleted here, in conflict, or changed by a writer
        /// that recorded no base.
        public var skippedDirty = 0
        /// Records with local changes the server's copy was merged into (counted in `saved`).
        public var merged = 0
        /// Of those, the ones where both sides changed a field to different values.
        public var conflicts = 0
        /// Already held with the same modification time (`SkipUnchanged`).
        public var skippedUnchanged = 0
        /// Saved though every value was held already, the modification time aside: a sync's own
        /// writes coming back, or pages stored again after a run that failed (counted in `saved`).
        public var heldAlready = 0

        public init() {}
    }

    /// Which records a page skips without rewriting them because the soup already holds them
    /// clean, from this sync, with the modification time the server sends.
    public enum SkipUnchanged: Sendable, Equatable {
        /// None: every record is written (a first run, or one after the definition changed).
        case never
        /// Those modified exactly at this time: the `>=` boundary of an incremental sync, whose
        /// first second brings back records already saved.
        case atBoundary(Int64)
        /// Any: a capped query runs whole every time, so most of what it fetches is already held.
        case always

        func covers(_ modified: Int64) -> Bool {
            switch self {
            case .never: false
            case let .atBoundary(boundary): modified == boundary
            case .always: true
            }
        }
    }

    /// How a sync holds the records it writes.
    public enum Holding: Sendable {
        /// Through `__sync_id__`, which every write sets to the writing sync (the SDK's rule): a
        /// config sync.
        case claims
        /// Through a row per record in `SyncMembers`, written in the page's transaction: a
        /// subscription. A record's `__sync_id__` is set only when it has none, so the config
        /// sync holding a record keeps it.
        case member(SyncMembers)
    }

    public var soupName: String
    public var idFieldName: String
    public var modificationDateFieldName: String
    public var syncId: Int64
    public var holding: Holding = .claims
    /// Values this laptop sent whose answers were lost (`WriteJournal`), by entry id: the server
    /// holding one of them is our own write when merging.
    public var ownWrites: [Int64: JSONObject] = [:]

    public init(
        soupName: String, idFieldName: String = "Id", modificationDateFieldName: String = "LastModifiedDate",
        syncId: Int64
    ) {
        self.soupName = soupName
        self.idFieldName = idFieldName
        self.modificationDateFieldName = modificationDateFieldName
        self.syncId = syncId
    }

    /// Saves `records`, skipping those `skip` covers that the soup holds unchanged. The page's
    /// stored copies are read with one query and written in one batch: statements prepared per
    /// record cost several times what the records themselves do (sync down of 100k contacts,
    /// `make bench-sync`).
    public func save(_ records: [JSONObject], skip: SkipUnchanged = .never, in transaction: StoreTransaction) throws -> Result {
        guard try transaction.hasIndex(soup: soupName, path: idFieldName) else {
            throw MobileSyncError.soupMissingIndex(soup: soupName, path: idFieldName)
        }
        var result = Result()
        // A subscription holds every record of its page, even one it leaves as it is.
        var held: [String] = []
        let stored = try storedRecords(ids: records.compactMap { $0[idFieldName]?.stringValue }, in: transaction)
        var writes: [JSONObject] = []
        /// Where a record of this page already is in `writes` (a record listed twice is written once, last copy winning).
        var written: [String: Int] = [:]
        for record in records {
            guard let id = record[idFieldName]?.stringValue, !id.isEmpty else {
                var fresh = record
                fresh[LocalField.syncId] = .int(syncId)
                fresh.markClean()
                writes.append(fresh)
                result.saved += 1
                continue
            }
            if case .member = holding { held.append(id) }
            let existing = written[id].map { writes[$0] } ?? stored[id]
            if let existing {
                if existing.isDirty || existing.hasConflict {
                    guard let merged = mergeLocalChanges(into: existing, server: record, now: transaction.now, result: &result) else {
                        result.skippedDirty += 1
                        continue
                    }
                    if let index = written[id] {
                        writes[index] = merged
                    } else {
                        written[id] = writes.count
                        writes.append(merged)
                    }
                    result.saved += 1
                    continue
                }
                if skip != .never, !existing.isDirty, holdsAlready(existing),
                    let modified = record[modificationDateFieldName]?.stringValue.flatMap(SalesforceTimestamp.parse),
                    skip.covers(modified),
                    existing[modificationDateFieldName]?.stringValue.flatMap(SalesforceTimestamp.parse) == modified,
                    Self.holds(existing, every: record)
                {
                    result.skippedUnchanged += 1
                    continue
                }
            }
            if let existing, heldAlready(record, by: existing) { result.heldAlready += 1 }
            // The stored copy's `_soupEntryId` survives the merge, so the batch upsert updates it.
            let merged = Self.merge(server: record, over: existing, syncId: owner(of: existing))
            if let index = written[id] {
                writes[index] = merged
            } else {
                written[id] = writes.count
                writes.append(merged)
            }
            result.saved += 1
        }
        try transaction.upsert(contentsOf: writes, in: soupName)
        if case let .member(members) = holding { try members.hold(held, syncId: syncId, soup: soupName, in: transaction) }
        return result
    }

    /// The `__sync_id__` a write leaves on a record: this sync's, unless a subscription writes a
    /// record that already names a sync.
    private func owner(of existing: JSONObject?) -> Int64 {
        switch holding {
        case .claims: syncId
        case .member: existing?[LocalField.syncId]?.int64Value ?? syncId
        }
    }

    /// Whether the stored copy is already this sync's: its `__sync_id__` for a config sync; any
    /// stored copy for a subscription, whose page writes its row either way.
    private func holdsAlready(_ existing: JSONObject) -> Bool {
        switch holding {
        case .claims: existing[LocalField.syncId]?.int64Value == syncId
        case .member: true
        }
    }

    /// A record with local changes with the server's copy merged in; `nil` when it is left as it
    /// is (created here, changed by a writer that recorded no base, or nothing to change). Values
    /// are compared, not modification dates: two changes in one second carry the same date.
    /// - Changed here: merged field by field, a field both sides changed becoming a conflict; a
    ///   record already in conflict keeps its conflicting fields and takes the server's changes to
    ///   the others, and its conflict shows the server's newest copy.
    /// - Deleted here: the delete waits; if the server changed what it tracks, that is a conflict
    ///   (deleted here, changed there) now, rather than when the delete is refused.
    /// So whatever the user later decides (keep, take, revert, undelete), the record is not left
    /// behind a server version that this sync read and did not write.
    private func mergeLocalChanges(into local: JSONObject, server: JSONObject, now: Int64, result: inout Result) -> JSONObject? {
        guard !local.isLocallyCreated else { return nil }
        let merge = FieldMerge(idFieldName: idFieldName, modificationDateFieldName: modificationDateFieldName)
        let own = local.soupEntryId.flatMap { ownWrites[$0] } ?? [:]
        let conflict = RecordConflict(local[LocalField.conflict])
        var merged = local
        if local.isLocallyDeleted {
            if var conflict {
                conflict.server = server
                merged[LocalField.conflict] = conflict.json
            } else if merge.serverChanged(local, comparedWith: server, own: own) {
                merged[LocalField.conflict] = RecordConflict(server: server, detectedAt: now).json
                result.conflicts += 1
            }
        } else if conflict.map({ $0.fields == nil }) == true || local.baseValues == nil {
            return nil  // deleted on the server (or a conflict an older forceterm stored), or no base
        } else {
            let outcome = merge.merge(local: local, server: server, own: own, now: now)
            merged = outcome.record
            if !outcome.conflictingFields.isEmpty && conflict == nil { result.conflicts += 1 }
        }
        merged[LocalField.syncId] = .int(owner(of: local))
        guard merged != local else { return nil }
        result.merged += 1
        return merged
    }

    /// Whether the stored copy has every value of the server's but its modification time, as the
    /// server compares values (a field missing here, as a local create leaves the empty ones, is
    /// null); `attributes` (type and URL) are not values.
    func heldAlready(_ server: JSONObject, by stored: JSONObject) -> Bool {
        server.allSatisfy { key, value in
            key == modificationDateFieldName || key == "attributes" || Self.isEngineOwned(key) || FieldValues.same(stored[key], value)
        }
    }

    /// Whether the stored copy already has every value of the server's: two changes in one second
    /// share a modification time, so the time alone cannot say a record is unchanged.
    static func holds(_ stored: JSONObject, every server: JSONObject) -> Bool {
        server.allSatisfy { key, value in isEngineOwned(key) || stored[key] == value }
    }

    /// The soup's entries with these ids, by id, in one query. Two entries with one id are
    /// refused, as SmartStore's lookup by external id refuses them.
    private func storedRecords(ids: [String], in transaction: StoreTransaction) throws -> [String: JSONObject] {
        let unique = Array(Set(ids.filter { !$0.isEmpty }))
        var found: [String: JSONObject] = [:]
        for document in try transaction.entries(whereIndexed: idFieldName, isOneOf: unique, in: soupName) {
            guard let id = document[idFieldName]?.stringValue else { continue }
            guard found[id] == nil else { throw SmartStoreError.nonUniqueExternalId(soup: soupName, path: idFieldName, value: id) }
            found[id] = document
        }
        return found
    }

    /// The document to store: the server's fields over the local copy's, so fields only the local
    /// copy has (local notes, UI state) survive; flags cleared and the sync id set.
    public static func merge(server: JSONObject, over local: JSONObject?, syncId: Int64) -> JSONObject {
        var merged: JSONObject
        if let local {
            merged = local
            for key in [SmartStore.soupLastModifiedDate, SmartStore.soupCreatedDate] { merged.removeValue(forKey: key) }
            for (key, value) in server where !isEngineOwned(key) { merged[key] = value }
        } else {
            // A record new to the soup: the server's copy as it is (no rehashing of every key into
            // a new dictionary), minus what the engine owns; same keys, same order.
            merged = server
            let owned = server.keys.filter(isEngineOwned)
            for key in owned { merged.removeValue(forKey: key) }
        }
        merged[LocalField.syncId] = .int(syncId)
        merged.markClean()
        return merged
    }

    /// Keys a sync down never takes from the server: the engine's bookkeeping and SmartStore's own.
    /// Every one of them starts with "_", so other keys (nearly all) cost no hashing here.
    static func isEngineOwned(_ key: String) -> Bool {
        key.hasPrefix("_") && (LocalField.bookkeeping.contains(key) || key.hasPrefix("_soup"))
    }

    /// The newest modification time of a batch in epoch ms; -1 when any record lacks a parsable
    /// one (the SDK's rule, which leaves the running maximum unchanged).
    public static func latestModification(of records: [JSONObject], field: String) -> Int64 {
        var latest: Int64 = -1
        for record in records {
            guard let text = record[field]?.stringValue, let stamp = SalesforceTimestamp.parse(text) else { return -1 }
            latest = max(latest, stamp)
        }
        return latest
    }
}
