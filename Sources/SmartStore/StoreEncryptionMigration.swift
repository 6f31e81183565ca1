import Foundation
import GRDB
import GRDBSQLite

#if canImport(Glibc)
    import Glibc
#endif

/// Encrypts an unencrypted store in place, all or nothing: an encrypted copy is written beside it
/// (`<store>.encrypting`), synced to disk, checked, and renamed over the original. A process killed
/// at any moment leaves either the original untouched (the next open starts over) or the encrypted
/// store complete; never a file half of each. While it runs it holds the store exclusively: a
/// process that has the unencrypted store open makes it fail before anything changed.
public enum StoreEncryptionMigration {
    /// The moments after which a crash test ends the process.
    public enum Step: String, CaseIterable, Sendable {
        /// The encrypted copy is half written: its file has pages, the copy goes on.
        case copying
        /// The encrypted copy is written, not yet synced nor checked.
        case copied
        /// The copy is synced and reads back with the key.
        case verified
        /// The copy has replaced the original.
        case replaced
    }

    public static func temporaryPath(forStore path: String) -> String { path + ".encrypting" }

    /// `afterStep`, for crash tests, is called after each step; with it, the copy is watched while
    /// it is written so that `.copying` comes in the middle of it.
    public static func encrypt(path: String, key: StoreKey, afterStep: ((Step) -> Void)? = nil) throws {
        let watchCopy = afterStep != nil
        let afterStep = afterStep ?? { _ in }
        // Blocking: whoever holds it is encrypting this store now, however long that takes.
        let lock = try FileLock.acquire(path: path + ".encrypt-lock")
        defer { withExtendedLifetime(lock) {} }
        // Another process may have finished it while this one waited.
        guard StoreCipher.format(of: path) == .plain else { return }
        let temporary = temporaryPath(forStore: path)
        let directory = (path as NSString).deletingLastPathComponent.isEmpty ? "." : (path as NSString).deletingLastPathComponent
        removeCopy(temporary)
        var replaced = false
        // A copy that did not replace the store is never left behind.
        defer { if !replaced { removeCopy(temporary) } }

        var configuration = Configuration()
        configuration.busyMode = .timeout(SmartStore.busyTimeout)
        configuration.label = "SmartStore encryption"
        try translatingErrors(path: path, key: key) {
            let plain = try DatabaseQueue(path: path, configuration: configuration)
            try plain.writeWithoutTransaction { db in
                guard try SoupSchema.hasMetaTables(db) else {
                    throw SmartStoreError.notASmartStore(path: path, reason: "it has no soup_attrs table; it was left unencrypted")
                }
                // Only a connection alone with the file can leave WAL mode; the exclusive lock it
                // then takes on the store (main, not the copy) is kept until the original is
                // replaced, so no one writes to it meanwhile.
                try db.execute(sql: "PRAGMA main.locking_mode = EXCLUSIVE")
                let mode = try String.fetchOne(db, sql: "PRAGMA journal_mode = DELETE")
                guard mode?.lowercased() == "delete" else { throw SmartStoreError.storeInUse(path: path) }
                try db.execute(sql: "BEGIN EXCLUSIVE; COMMIT")
                try StoreCipher.requireEncryptingSQLite(db)
                try CopyWatch.during(db, copy: temporary, enabled: watchCopy, then: { afterStep(.copying) }) {
                    try db.execute(sql: "VACUUM INTO ?", arguments: [fileURI(temporary) + "?" + StoreCipher.uriParameters(key)])
                }
                afterStep(.copied)
                // SQLite made the copy with the umask's permissions; it takes the original's (0600).
                var original = stat()
                if stat(path, &original) == 0 { chmod(temporary, original.st_mode & 0o777) }
                try syncToDisk(temporary)
                try verify(temporary, key: key)
                guard !FileManager.default.fileExists(atPath: path + "-wal") else {
                    throw SmartStoreError.database(message: "cannot encrypt \(path): its write-ahead log is still there; it was left unencrypted")
                }
                try? FileManager.default.removeItem(atPath: path + "-shm")
                // The unencrypted log's removal is on disk before the encrypted file takes the
                // name, so the two can never be paired after a crash.
                try syncToDisk(directory)
                afterStep(.verified)
                guard rename(temporary, path) == 0 else {
                    throw SmartStoreError.database(message: "cannot replace \(path) with its encrypted copy: \(String(cString: strerror(errno))); it was left unencrypted")
                }
                replaced = true
                if (try? syncToDisk(directory)) == nil {
                    throw SmartStoreError.database(message: "\(path) is encrypted, but its directory could not be written to disk; it is safe to use, and the next open checks it again")
                }
                afterStep(.replaced)
            }
        }
    }

    /// The copy and the journal SQLite may have left beside it.
    private static func removeCopy(_ temporary: String) {
        for file in [temporary, temporary + "-journal", temporary + "-wal", temporary + "-shm"] {
            try? FileManager.default.removeItem(atPath: file)
        }
    }

    /// Reads every page of the copy with the key.
    private static func verify(_ path: String, key: StoreKey) throws {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.prepareDatabase { db in try StoreCipher.apply(key, to: db) }
        let check = try DatabaseQueue(path: path, configuration: configuration).read { db in
            try String.fetchOne(db, sql: "PRAGMA quick_check")
        }
        guard check == "ok" else {
            throw SmartStoreError.database(message: "the encrypted copy of the store does not read back (\(check ?? "no answer")); the original was left as it was")
        }
    }

    private static func syncToDisk(_ path: String) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0, fsync(descriptor) == 0 else {
            let reason = String(cString: strerror(errno))
            if descriptor >= 0 { close(descriptor) }
            throw SmartStoreError.database(message: "cannot write \(path) to disk: \(reason); the original store was left as it was")
        }
        close(descriptor)
    }

    private static func fileURI(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        let encoded = absolute.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "?#%&="))) ?? absolute
        return "file:" + encoded
    }

    private static func translatingErrors(path: String, key: StoreKey, _ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY {
            throw SmartStoreError.storeInUse(path: path)
        } catch let error as DatabaseError {
            // SQLite's message may quote the copy's URI, which holds the key.
            let message = (error.message ?? error.description).replacingOccurrences(of: key.hex, with: "…")
            throw SmartStoreError.database(message: "cannot encrypt \(path): \(message); it was left unencrypted")
        }
    }
}

/// Calls `then` once while a copy is being written, when its file first holds a few pages: SQLite
/// asks the progress handler every few thousand instructions of the VACUUM.
private final class CopyWatch {
    let copy: String
    let then: () -> Void
    var done = false

    init(copy: String, then: @escaping () -> Void) {
        self.copy = copy
        self.then = then
    }

    static func during(_ db: Database, copy: String, enabled: Bool, then: @escaping () -> Void, _ body: () throws -> Void) throws {
        guard enabled else { return try body() }
        let watch = CopyWatch(copy: copy, then: then)
        let context = Unmanaged.passUnretained(watch).toOpaque()
        sqlite3_progress_handler(
            db.sqliteConnection, 1_000,
            { context in
                guard let context else { return 0 }
                let watch = Unmanaged<CopyWatch>.fromOpaque(context).takeUnretainedValue()
                guard !watch.done else { return 0 }
                var status = stat()
                if stat(watch.copy, &status) == 0, status.st_size >= 64 * 1024 {
                    watch.done = true
                    watch.then()
                }
                return 0
            }, context)
        defer { sqlite3_progress_handler(db.sqliteConnection, 0, nil, nil) }
        try withExtendedLifetime(watch) { try body() }
    }
}

extension StoreEncryption {
    /// The key to open the file at `path` (whose first bytes say `format`) with, after encrypting an
    /// unencrypted file when asked to and allowed to write it; nil to open it unencrypted.
    func keyForOpening(path: String, format: StoreCipher.FileFormat, writable: Bool) throws -> StoreKey? {
        switch self {
        case .plain:
            if format == .encrypted { throw SmartStoreError.encrypted(path: path) }
            // Anything else (a text file) is opened as it is: SQLite's refusal names the problem.
            return nil
        case let .encrypted(key):
            guard format == .plain else { return key }
            guard writable else { return nil }
            try StoreEncryptionMigration.encrypt(path: path, key: key)
            return key
        case let .asFound(key):
            if format == .plain { return nil }
            if format == .encrypted, key == nil { throw SmartStoreError.encrypted(path: path) }
            // With a key, even a file that does not look encrypted is tried with it (a salt can
            // happen to look like text); the open says which it was.
            return key
        }
    }
}
