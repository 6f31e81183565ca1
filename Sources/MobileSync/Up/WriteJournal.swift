import ForceJSON
import SmartStore

/// Updates and deletes that left for the server and whose answer has not been recorded yet, one
/// entry per request in the soup `sync_writes_in_flight`. An entry is written in a commit before
/// its request leaves and removed in the commit that records the answer, so an entry that is still
/// there later belongs to a request whose answer was lost (a kill, a dropped connection): the
/// server may hold those values. The next sync up reads those records from the server and
/// recognises them as our own writes, not another user's (creates have their own journal on the
/// record, `__create_in_flight__`).
public struct WriteJournal: Sendable {
    public static let soupName = "sync_writes_in_flight"
    static let indexSpecs = [IndexSpec(path: "soupName", type: .string)]

    /// What one lost request may have done to one record.
    public struct Entry: Sendable, Equatable {
        public var entryId: Int64
        /// The fields an update sent; empty for a delete.
        public var fields: JSONObject
        public var isDelete: Bool
    }

    public var soup: String

    public init(soup: String) { self.soup = soup }

    /// Journals the updates and deletes of one request; returns the journal entry's id, or nil when
    /// the request has none.
    func record(_ writes: [PlannedWrite], now: Int64, in transaction: StoreTransaction) throws -> Int64? {
        let items: [JSONValue] = writes.compactMap { write in
            switch write.write {
            case let .update(_, _, fields, _): .object(["entryId": .int(write.entryId), "fields": .object(fields)])
            case .delete: .object(["entryId": .int(write.entryId), "delete": true])
            default: nil
            }
        }
        guard !items.isEmpty else { return nil }
        try transaction.registerSoup(Self.soupName, indexSpecs: Self.indexSpecs)
        let saved = try transaction.create([["soupName": .string(soup), "sentAt": .int(now), "writes": .array(items)]], in: Self.soupName)
        return saved.first?[SmartStore.soupEntryId]?.int64Value
    }

    /// Forgets entries whose answers are now recorded (or reconciled with the server).
    func remove(_ ids: [Int64], in transaction: StoreTransaction) throws {
        guard !ids.isEmpty, try transaction.hasSoup(Self.soupName) else { return }
        try transaction.delete(ids, from: Self.soupName)
    }

    /// The journal's entries for this soup: their ids, and what each record may have had written,
    /// later requests' fields over earlier ones'.
    func lost(in transaction: StoreTransaction) throws -> (ids: [Int64], writes: [Int64: Entry]) {
        guard try transaction.hasSoup(Self.soupName) else { return ([], [:]) }
        let rows = try transaction.query(
            .exact(
                Self.soupName, path: "soupName", matchKey: .string(soup),
                orderPath: SmartStore.soupEntryId, pageSize: 100_000))
        var ids: [Int64] = []
        var writes: [Int64: Entry] = [:]
        for row in rows {
            guard let object = row.objectValue, let id = object.soupEntryId else { continue }
            ids.append(id)
            for item in object["writes"]?.arrayValue ?? [] {
                guard let entryId = item["entryId"]?.int64Value else { continue }
                var entry = writes[entryId] ?? Entry(entryId: entryId, fields: [:], isDelete: false)
                if item["delete"]?.isSetFlag == true { entry.isDelete = true }
                for (key, value) in item["fields"]?.objectValue ?? [:] { entry.fields[key] = value }
                writes[entryId] = entry
            }
        }
        return (ids, writes)
    }
}
