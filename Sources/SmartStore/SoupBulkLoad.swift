import ForceJSON
import GRDB

/// A large load into empty soups, with their value indexes built once at the end instead of grown
/// entry by entry. Inserting 100k contacts in random key order into a dozen b-trees whose leaves
/// outgrow the page cache rewrites each leaf many times; one sort per index at the end does not
/// (`make bench-sync`).
///
/// While the load runs, queries on the dropped indexes' paths scan the soup: slower, never wrong.
/// The indexes on `keeping` paths (the ones the loader looks entries up by) stay, as do the text
/// sort indexes a list may be paging with. Each deferred soup has a `long_operations_status` row
/// written with the drop, and `<store>.bulk-load` is locked until `finish` has rebuilt the
/// indexes and deleted the rows. A store opened while no process holds that lock (its loader was
/// killed) rebuilds them before anything else.
public final class SoupBulkLoad: Sendable {
    static let operationType = "bulkLoad"
    static let status = "INDEXES_DEFERRED"

    /// The soups whose indexes are deferred (the empty ones among those asked for).
    public let soups: [String]
    private let store: SmartStore
    private let lock: FileLock

    static func lockPath(forStore path: String) -> String { path + ".bulk-load" }

    fileprivate init(store: SmartStore, soups: [String], lock: FileLock) {
        self.store = store
        self.soups = soups
        self.lock = lock
    }

    /// Builds the deferred indexes and ends the load, in one transaction. Safe to call more than once.
    public func finish() throws {
        let encrypted = store.isEncrypted
        try store.write { try Self.rebuildIndexes($0, encrypted: encrypted) }
    }

    /// The most page cache an encrypted store's index build may take, in KiB (512 MB).
    static let encryptedBuildCacheLimit = 512 * 1024

    /// Recreates every deferred soup's missing indexes and deletes their status rows.
    static func rebuildIndexes(_ transaction: StoreTransaction, encrypted: Bool) throws {
        let db = transaction.db
        let details = try String.fetchAll(
            db, sql: "SELECT details FROM long_operations_status WHERE type = ?", arguments: [operationType])
        guard !details.isEmpty else { return }
        // SQLite reads the whole table once per index. From the OS's cache that is a copy; from an
        // encrypted file each read is decrypted and its HMAC checked again (measured: a first sync of
        // 100k contacts 2.6x slower than unencrypted). With a page cache the size of the file, the
        // table is decrypted once; the cache shrinks back after.
        if encrypted {
            let previous = try Int.fetchOne(db, sql: "PRAGMA cache_size") ?? -2000
            let pages = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
            let kibibytes = min(pages * SmartStore.pageSize / 1024 + 1024, encryptedBuildCacheLimit)
            try db.execute(sql: "PRAGMA cache_size = -\(kibibytes)")
            defer { try? db.execute(sql: "PRAGMA cache_size = \(previous)") }
            try createIndexes(transaction, details: details)
        } else {
            try createIndexes(transaction, details: details)
        }
        try db.execute(sql: "DELETE FROM long_operations_status WHERE type = ?", arguments: [operationType])
    }

    private static func createIndexes(_ transaction: StoreTransaction, details: [String]) throws {
        let db = transaction.db
        for text in details {
            guard let soup = try JSONParser.parseObject(text)["soupName"]?.stringValue else {
                throw SmartStoreError.invalidDocument("unreadable bulk load details: \(text)")
            }
            guard try transaction.hasSoup(soup) else { continue }  // dropped since
            let info = try transaction.soup(soup)
            try SoupSchema.createIndexes(db, table: info.tableName, specs: info.indexSpecs)
        }
    }
}

extension SmartStore {
    /// Starts a bulk load into those of `soups` that are empty, keeping the indexes on `keeping`
    /// paths. `nil` when none of them is empty, or when another bulk load of this store is running
    /// (the load then simply goes the usual way). Call `finish` when the load ends, failed or not.
    public func beginBulkLoad(soups: [String], keeping: Set<String>) throws -> SoupBulkLoad? {
        guard let lock = try FileLock.tryAcquire(path: SoupBulkLoad.lockPath(forStore: path)) else { return nil }
        let deferred: [String] = try write { transaction in
            var deferred: [String] = []
            for soup in soups where !deferred.contains(soup) {
                let info = try transaction.soup(soup)
                guard try transaction.count(.all(soup)) == 0 else { continue }
                for (position, spec) in info.indexSpecs.enumerated() where !keeping.contains(spec.path) {
                    try transaction.db.execute(sql: "DROP INDEX IF EXISTS \(info.tableName)_\(position)_idx")
                }
                _ = try SoupSchema.insertLongOperation(transaction.db, type: SoupBulkLoad.operationType,
                                                       details: ["soupName": .string(soup)], status: SoupBulkLoad.status)
                deferred.append(soup)
            }
            return deferred
        }
        guard !deferred.isEmpty else { return nil }
        return SoupBulkLoad(store: self, soups: deferred, lock: lock)
    }

    /// Rebuilds the indexes of a bulk load whose process died before finishing it. Left alone while
    /// the loader is alive: it holds the lock and rebuilds them itself.
    func finishAbandonedBulkLoads() throws {
        let pending = try pool.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM long_operations_status WHERE type = ?",
                             arguments: [SoupBulkLoad.operationType]) ?? 0
        }
        guard pending > 0, let lock = try FileLock.tryAcquire(path: SoupBulkLoad.lockPath(forStore: path)) else { return }
        let encrypted = isEncrypted
        try write { try SoupBulkLoad.rebuildIndexes($0, encrypted: encrypted) }
        withExtendedLifetime(lock) {}
    }
}
