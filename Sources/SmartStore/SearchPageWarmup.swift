import Dispatch
import Foundation
import GRDB
import GRDBSQLite
import Synchronization

/// An encrypted store's page is decrypted and its HMAC checked each time a connection reads it
/// into its page cache (~30 µs for 16 KB), and a plain store's comes from the OS's cache for the
/// price of a copy. So the first one-letter searches of a TUI on an encrypted store of 100k
/// contacts paid up to 7 ms each for the full-text pages they touched first (`make bench-tui`),
/// and every commit, which empties the readers' caches, made them pay again. Reading those pages
/// ahead, in the background, into the reader a search will use (the pool hands out its first free
/// reader) takes that off the keystrokes.
final class SearchPageWarmup: Sendable {
    private struct State {
        var running = false
        var again = false
    }
    private let state = Mutex(State())

    var isRunning: Bool { state.withLock { $0.running } }

    /// Whether a warm-up should start now: false while one runs (which then runs once more).
    func begin() -> Bool {
        state.withLock { state in
            if state.running {
                state.again = true
                return false
            }
            state.running = true
            return true
        }
    }

    /// Whether to run again: a request came while this one ran.
    func end() -> Bool {
        state.withLock { state in
            if state.again {
                state.again = false
                return true
            }
            state.running = false
            return false
        }
    }
}

extension SmartStore {
    /// How much of a reader's page cache a warm-up may fill: half, so what the list and the
    /// searches read besides has room (an encrypted connection's cache is 64 MB, `StoreCipher.tune`).
    public static let warmupBytes = 32 << 20

    /// Reads the full-text index of each of `soups` that has one into a reader's page cache, up to
    /// `budget` bytes in all; returns the bytes read. Does nothing on an unencrypted store, whose
    /// pages cost a copy each time anyway.
    @discardableResult
    public func warmFullTextPages(soups: [String], budget: Int = SmartStore.warmupBytes) throws -> Int {
        guard isEncrypted else { return 0 }
        return try read { transaction in
            var total = 0
            for soup in soups where total < budget {
                guard try transaction.hasSoup(soup) else { continue }
                let info = try transaction.soupInfo(soup)
                guard info.hasFullTextSearch else { continue }
                // The term index and FTS5's settings are small; the segments' leaves hold the
                // doclists a search reads.
                for table in ["_config", "_idx"] {
                    _ = try Int.fetchOne(transaction.db, sql: "SELECT count(*) FROM \(info.ftsTableName)\(table)")
                }
                let blocks = try Int.fetchCursor(transaction.db, sql: "SELECT length(block) FROM \(info.ftsTableName)_data")
                while total < budget, let size = try blocks.next() { total += size }
            }
            return total
        }
    }

    /// `warmFullTextPages` on a background thread, one at a time; a request while one runs makes it
    /// run once more when it ends (after another commit emptied the caches). Errors are dropped:
    /// the searches that follow meet them, or read the pages themselves.
    public func warmFullTextPagesInBackground(soups: [String]) {
        guard isEncrypted, !soups.isEmpty, searchPageWarmup.begin() else { return }
        DispatchQueue.global(qos: .utility).async { [self] in
            repeat {
                _ = try? warmFullTextPages(soups: soups)
            } while searchPageWarmup.end()
        }
    }

    /// Waits until no warm-up runs (tests); false when one still runs after `timeout` seconds.
    func waitForSearchPageWarmup(timeout: TimeInterval = 30) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while searchPageWarmup.isRunning {
            if Date() >= deadline { return false }
            Thread.sleep(forTimeInterval: 0.005)
        }
        return true
    }

    /// How many pages the reader that `body`'s reads use had to read from the file, and so decrypt
    /// (tests: reads run one at a time get the pool's first reader).
    func pagesReadFromFile(_ body: () throws -> Void) throws -> Int32 {
        func cacheMisses(reset: Bool) throws -> Int32 {
            try read { transaction in
                var current: Int32 = 0
                var highest: Int32 = 0
                _ = sqlite3_db_status(transaction.db.sqliteConnection, SQLITE_DBSTATUS_CACHE_MISS, &current, &highest, reset ? 1 : 0)
                return current
            }
        }
        _ = try cacheMisses(reset: true)
        try body()
        return try cacheMisses(reset: false)
    }
}
