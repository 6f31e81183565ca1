import ForceJSON
import GRDB
import Synchronization

/// A large load into empty soups, with their value indexes built once at the end instead of grown
/// entry by entry. Inserting 100k contacts in random key order into a dozen b-trees whose leaves
/// outgrow the page cache rewrites each leaf many times; one sort per index at the end does not
/// (`make bench-sync`).
///
/// While the load runs, queries on the dropped indexes' paths scan the soup: slower, never wrong.
/// The indexes on `keeping` paths (the ones the loader looks entries up by) stay, as do the text
/// sort indexes a list may be paging with. The full-text index grows as usual, but its segments are
/// merged once at the end (`FullTextMerges`). Each deferred soup has a `long_operations_status` row
/// written with the drop, and `<store>.bulk-load` is locked until `finish` has rebuilt the
/// indexes and deleted the rows. A store opened while no process holds that lock (its loader was
/// killed) rebuilds them before anything else. Loads of one process share that lock, each into
/// soups of its own (a first sync's sync downs, side by side), and each `finish` rebuilds its own.
public final class SoupBulkLoad: Sendable {
    static let operationType = "bulkLoad"
    static let status = "INDEXES_DEFERRED"

    /// The soups whose indexes are deferred (the empty ones among those asked for).
    public let soups: [String]
    private let store: SmartStore
    private let lockPath: String

    static func lockPath(forStore path: String) -> String { path + ".bulk-load" }

    /// This process's holds on bulk-load locks: the lock and how many loads share it, by path.
    private static let held = Mutex<[String: (lock: FileLock, loads: Int)]>([:])

    enum Hold {
        /// Another load of this process holds the lock: this one shares it.
        case joined
        /// The lock was free: no load is alive anywhere, so any deferred soup left is abandoned.
        case took
    }

    /// Joins this process's hold on the lock at `path`, or takes it; nil when another process has it.
    static func join(_ path: String) throws -> Hold? {
        try held.withLock { held in
            if let hold = held[path] {
                held[path] = (hold.lock, hold.loads + 1)
                return .joined
            }
            guard let lock = try FileLock.tryAcquire(path: path) else { return nil }
            held[path] = (lock, 1)
            return .took
        }
    }

    /// Leaves the hold; the last load to leave releases the lock.
    static func leave(_ path: String) {
        held.withLock { held in
            guard let hold = held[path] else { return }
            held[path] = hold.loads > 1 ? (hold.lock, hold.loads - 1) : nil
        }
    }

    fileprivate init(store: SmartStore, soups: [String], lockPath: String) {
        self.store = store
        self.soups = soups
        self.lockPath = lockPath
    }

    deinit { Self.leave(lockPath) }

    /// Builds this load's deferred indexes and ends it, in one transaction. Safe to call more than once.
    public func finish() throws {
        let encrypted = store.isEncrypted
        let soups = Set(soups)
        try store.write { try Self.rebuildIndexes($0, encrypted: encrypted, soups: soups) }
    }

    /// The most page cache an encrypted store's index build may take, in KiB (512 MB).
    static let encryptedBuildCacheLimit = 512 * 1024

    /// The deferred soups' status rows: id and soup.
    static func deferred(_ db: Database) throws -> [(id: Int64, soup: String)] {
        try Row.fetchAll(db, sql: "SELECT id, details FROM long_operations_status WHERE type = ?", arguments: [operationType]).map { row in
            let text: String = row["details"]
            guard let soup = try JSONParser.parseObject(text)["soupName"]?.stringValue else {
                throw SmartStoreError.invalidDocument("unreadable bulk load details: \(text)")
            }
            return (row["id"], soup)
        }
    }

    /// Recreates the missing indexes of the deferred soups (of `soups` only, when given) and
    /// deletes their status rows.
    static func rebuildIndexes(_ transaction: StoreTransaction, encrypted: Bool, soups: Set<String>? = nil) throws {
        let db = transaction.db
        let rows = try deferred(db).filter { soups?.contains($0.soup) ?? true }
        guard !rows.isEmpty else { return }
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
            try createIndexes(transaction, soups: rows.map(\.soup))
        } else {
            try createIndexes(transaction, soups: rows.map(\.soup))
        }
        for row in rows {
            try db.execute(sql: "DELETE FROM long_operations_status WHERE id = ?", arguments: [row.id])
        }
    }

    private static func createIndexes(_ transaction: StoreTransaction, soups: [String]) throws {
        for soup in soups {
            guard try transaction.hasSoup(soup) else { continue }  // dropped since
            let info = try transaction.soup(soup)
            try SoupSchema.createIndexes(transaction.db, table: info.tableName, specs: info.indexSpecs)
            if info.hasFullTextSearch { try FullTextMerges.mergeAndResume(transaction.db, ftsTable: info.ftsTableName) }
        }
    }
}

extension SmartStore {
    /// Starts a bulk load into those of `soups` that are empty, keeping the indexes on `keeping`
    /// paths. `nil` when none of them is empty, or when another bulk load of this store is running
    /// (the load then simply goes the usual way). Call `finish` when the load ends, failed or not.
    public func beginBulkLoad(soups: [String], keeping: Set<String>) throws -> SoupBulkLoad? {
        let lockPath = SoupBulkLoad.lockPath(forStore: path)
        guard let hold = try SoupBulkLoad.join(lockPath) else { return nil }
        let deferred: [String]
        let encrypted = isEncrypted
        do {
            deferred = try write { transaction in
                // Rows no live load owns (a load whose finish failed, a loader killed while this
                // store stayed open) are rebuilt first: no soup is left without its indexes.
                if hold == .took { try SoupBulkLoad.rebuildIndexes(transaction, encrypted: encrypted) }
                // A soup another load of this process is filling is left to that load.
                let loading = Set(try SoupBulkLoad.deferred(transaction.db).map(\.soup))
                var deferred: [String] = []
                for soup in soups where !deferred.contains(soup) && !loading.contains(soup) {
                    let info = try transaction.soup(soup)
                    guard try transaction.count(.all(soup)) == 0 else { continue }
                    for (position, spec) in info.indexSpecs.enumerated() where !keeping.contains(spec.path) {
                        try transaction.db.execute(sql: "DROP INDEX IF EXISTS \(info.tableName)_\(position)_idx")
                    }
                    // Nothing reads by creation date during a load; a list sorted by last modified stays fast.
                    try transaction.db.execute(sql: "DROP INDEX IF EXISTS \(info.tableName)_created_idx")
                    if info.hasFullTextSearch { try FullTextMerges.hold(transaction.db, ftsTable: info.ftsTableName) }
                    _ = try SoupSchema.insertLongOperation(
                        transaction.db, type: SoupBulkLoad.operationType,
                        details: ["soupName": .string(soup)], status: SoupBulkLoad.status)
                    deferred.append(soup)
                }
                return deferred
            }
        } catch {
            SoupBulkLoad.leave(lockPath)
            throw error
        }
        guard !deferred.isEmpty else {
            SoupBulkLoad.leave(lockPath)
            return nil
        }
        return SoupBulkLoad(store: self, soups: deferred, lockPath: lockPath)
    }

    /// Rebuilds the indexes of a bulk load whose process died before finishing it. Left alone while
    /// the loader is alive: it holds the lock and rebuilds them itself.
    func finishAbandonedBulkLoads() throws {
        let pending = try pool.read { db in
            try Int.fetchOne(
                db, sql: "SELECT COUNT(*) FROM long_operations_status WHERE type = ?",
                arguments: [SoupBulkLoad.operationType]) ?? 0
        }
        guard pending > 0, let lock = try FileLock.tryAcquire(path: SoupBulkLoad.lockPath(forStore: path)) else { return }
        let encrypted = isEncrypted
        try write { try SoupBulkLoad.rebuildIndexes($0, encrypted: encrypted) }
        withExtendedLifetime(lock) {}
    }
}
