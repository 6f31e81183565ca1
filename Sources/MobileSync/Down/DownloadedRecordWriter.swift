import ForceJSON
import SmartStore

/// Saves records fetched from the server into a soup, inside the caller's transaction, with the
/// SDK's merge modes. Beyond the SDK: the dirty check happens per record in the same transaction as
/// the write (an edit made while the sync runs is never overwritten under LEAVE_IF_CHANGED), fields
/// only the local copy has survive, and records of the boundary second already held are skipped.
public struct DownloadedRecordWriter: Sendable {
    public struct Result: Sendable, Equatable {
        public var saved = 0
        /// Left alone because they have local changes (LEAVE_IF_CHANGED).
        public var skippedDirty = 0
        /// Already held with the same modification time (the `>=` boundary of an incremental sync).
        public var skippedUnchanged = 0

        public init() {}
    }

    public var soupName: String
    public var idFieldName: String
    public var modificationDateFieldName: String
    public var mergeMode: MergeMode
    public var syncId: Int64

    public init(soupName: String, idFieldName: String = "Id", modificationDateFieldName: String = "LastModifiedDate",
                mergeMode: MergeMode, syncId: Int64) {
        self.soupName = soupName
        self.idFieldName = idFieldName
        self.modificationDateFieldName = modificationDateFieldName
        self.mergeMode = mergeMode
        self.syncId = syncId
    }

    /// Saves `records`. `boundary` is the high-water mark the incremental query started from
    /// (records modified exactly then may be ones already saved).
    public func save(_ records: [JSONObject], boundary: Int64? = nil, in transaction: StoreTransaction) throws -> Result {
        guard try transaction.hasIndex(soup: soupName, path: idFieldName) else {
            throw MobileSyncError.soupMissingIndex(soup: soupName, path: idFieldName)
        }
        var result = Result()
        for record in records {
            guard let id = record[idFieldName], let idText = id.stringValue, !idText.isEmpty else {
                var fresh = record
                fresh[LocalField.syncId] = .int(syncId)
                fresh.markClean()
                _ = try transaction.create([fresh], in: soupName)
                result.saved += 1
                continue
            }
            let entryId = try transaction.lookupSoupEntryId(soup: soupName, path: idFieldName, value: id)
            let existing = try entryId.flatMap { try transaction.retrieve([$0], from: soupName).first }
            if let existing {
                if existing.isDirty || existing.hasConflict, mergeMode == .leaveIfChanged {
                    result.skippedDirty += 1
                    continue
                }
                if let boundary, !existing.isDirty,
                   let modified = record[modificationDateFieldName]?.stringValue,
                   SalesforceTimestamp.parse(modified) == boundary,
                   existing[modificationDateFieldName]?.stringValue.flatMap(SalesforceTimestamp.parse) == boundary {
                    result.skippedUnchanged += 1
                    continue
                }
            }
            let merged = Self.merge(server: record, over: existing, syncId: syncId)
            if let entryId {
                _ = try transaction.update(merged, id: entryId, in: soupName)
            } else {
                _ = try transaction.create([merged], in: soupName)
            }
            result.saved += 1
        }
        return result
    }

    /// The document to store: the server's fields over the local copy's, so fields only the local
    /// copy has (local notes, UI state) survive; flags cleared and the sync id set.
    public static func merge(server: JSONObject, over local: JSONObject?, syncId: Int64) -> JSONObject {
        var merged = local ?? [:]
        for key in [SmartStore.soupLastModifiedDate, SmartStore.soupCreatedDate] { merged.removeValue(forKey: key) }
        for (key, value) in server where !LocalField.bookkeeping.contains(key) && !key.hasPrefix("_soup") {
            merged[key] = value
        }
        merged[LocalField.syncId] = .int(syncId)
        merged.markClean()
        return merged
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
