import ForceJSON
import SmartStore

/// Which subscriptions hold which records. A config sync holds a record through its
/// `__sync_id__`, as in the SDK; a subscription holds it through a row here, one per
/// (subscription sync, record), written in the transaction that writes the record, so a killed
/// process leaves a page and its rows together or neither. A row of `leaving` marks a record
/// nothing holds any more that waits to send its change before it goes.
public struct SyncMembers: Sendable {
    public static let soupName = "sync_members"
    /// The holder of a leaving row: no sync, only the unsent change keeps the record.
    public static let leaving: Int64 = -1

    static let keyPath = "key"
    static let syncIdPath = "syncId"
    static let recordPath = "record"

    public static let indexSpecs: [IndexSpec] = [
        IndexSpec(path: keyPath, type: .string),
        IndexSpec(path: syncIdPath, type: .integer),
        IndexSpec(path: recordPath, type: .string),
    ]

    /// Opens the soup, creating it with its indexes the first time.
    public init(store: SmartStore) throws {
        try store.registerSoup(Self.soupName, indexSpecs: Self.indexSpecs)
    }

    private init() {}

    /// The soup if a subscription ever made it: a store without one holds no member, and a
    /// reader (a config sync's ghost check) need not create it.
    public static func existing(in transaction: StoreTransaction) throws -> SyncMembers? {
        try transaction.hasSoup(soupName) ? SyncMembers() : nil
    }

    /// The record as rows name it: its soup and server id, so one soup's rows never match another's.
    static func record(soup: String, id: String) -> String { "\(soup)/\(id)" }

    static func row(syncId: Int64, soup: String, id: String) -> JSONObject {
        let record = record(soup: soup, id: id)
        return [keyPath: .string("\(syncId)/\(record)"), syncIdPath: .int(syncId), recordPath: .string(record)]
    }

    /// Records `syncId` as a holder of these records of `soup`; a row already there stays one row.
    public func hold(_ ids: some Sequence<String>, syncId: Int64, soup: String, in transaction: StoreTransaction) throws {
        try transaction.upsert(contentsOf: ids.lazy.map { Self.row(syncId: syncId, soup: soup, id: $0) }, in: Self.soupName, externalIdPath: Self.keyPath)
    }

    /// The server ids of `soup` that `syncId` holds (`leaving` for those waiting to leave), dirty
    /// records included.
    public func ids(syncId: Int64, soup: String, in transaction: StoreTransaction) throws -> [String] {
        let prefix = Self.record(soup: soup, id: "")
        return try rows(syncId: syncId, in: transaction).compactMap { row in
            guard let record = row[Self.recordPath]?.stringValue, record.hasPrefix(prefix) else { return nil }
            return String(record.dropFirst(prefix.count))
        }
    }

    /// The server ids of `soup` that some subscription holds (leaving rows aside).
    public func heldIds(soup: String, in transaction: StoreTransaction) throws -> Set<String> {
        let prefix = Self.record(soup: soup, id: "")
        let sql =
            "SELECT {\(Self.soupName):\(Self.recordPath)} FROM {\(Self.soupName)} WHERE {\(Self.soupName):\(Self.syncIdPath)} <> \(Self.leaving)"
            + " AND {\(Self.soupName):\(Self.recordPath)} >= ? AND {\(Self.soupName):\(Self.recordPath)} < ?"
        // The ids of one soup are the range of records from "soup/" up to "soup0" ("0" follows "/").
        let upper = Self.record(soup: soup, id: "").dropLast() + "0"
        let rows = try transaction.everyPage(of: .smart(sql, pageSize: 5_000), arguments: [.string(prefix), .string(String(upper))])
        return Set(rows.compactMap { $0.arrayValue?.first?.stringValue.map { String($0.dropFirst(prefix.count)) } })
    }

    /// How many records of `soup` that `syncId` holds are in the soup (a row can outlive its
    /// record, deleted by a sync up, until the next sweep).
    public func heldCount(syncId: Int64, soup: String, idFieldName: String, in transaction: StoreTransaction) throws -> Int {
        var count = 0
        for chunk in try ids(syncId: syncId, soup: soup, in: transaction).chunked(into: 1_000) {
            count += try transaction.entries(whereIndexed: idFieldName, isOneOf: Array(chunk), in: soup).count
        }
        return count
    }

    /// How many records of each soup wait to leave, from one read of the leaving rows.
    public func leavingCounts(in transaction: StoreTransaction) throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for row in try rows(syncId: Self.leaving, in: transaction) {
            guard let soup = row[Self.recordPath]?.stringValue?.split(separator: "/", maxSplits: 1).first else { continue }
            counts[String(soup), default: 0] += 1
        }
        return counts
    }

    /// The soups with records waiting to leave.
    public func soupsWithLeavingRecords(in transaction: StoreTransaction) throws -> [String] {
        try leavingCounts(in: transaction).keys.sorted()
    }

    /// For each of these records of `soup`, the syncs with a row for it (`leaving` included).
    public func holders(of ids: [String], soup: String, in transaction: StoreTransaction) throws -> [String: Set<Int64>] {
        var holders: [String: Set<Int64>] = [:]
        let prefix = Self.record(soup: soup, id: "")
        for chunk in ids.chunked(into: 1_000) {
            let rows = try transaction.entries(whereIndexed: Self.recordPath, isOneOf: chunk.map { Self.record(soup: soup, id: $0) }, in: Self.soupName)
            for row in rows {
                guard let record = row[Self.recordPath]?.stringValue, record.hasPrefix(prefix), let syncId = row[Self.syncIdPath]?.int64Value else { continue }
                holders[String(record.dropFirst(prefix.count)), default: []].insert(syncId)
            }
        }
        return holders
    }

    /// Removes the rows of `syncId` for these records of `soup`.
    public func drop(_ ids: [String], syncId: Int64, soup: String, in transaction: StoreTransaction) throws {
        for chunk in ids.chunked(into: 1_000) {
            let keys = chunk.map { "\(syncId)/\(Self.record(soup: soup, id: $0))" }
            let entryIds = try transaction.entries(whereIndexed: Self.keyPath, isOneOf: keys, in: Self.soupName).compactMap { $0[SmartStore.soupEntryId]?.int64Value }
            try transaction.delete(entryIds, from: Self.soupName)
        }
    }

    /// Every row of `syncId`, through its index.
    func rows(syncId: Int64, in transaction: StoreTransaction) throws -> [JSONObject] {
        let spec = QuerySpec.exact(Self.soupName, path: Self.syncIdPath, matchKey: .int(syncId), orderPath: SmartStore.soupEntryId, pageSize: 5_000)
        return try transaction.everyPage(of: spec).compactMap(\.objectValue)
    }
}
