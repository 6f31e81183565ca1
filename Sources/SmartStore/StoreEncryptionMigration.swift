import Foundation
import GRDB
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
        /// The encrypted copy is written, not yet synced nor checked.
        case copied
        /// The copy is synced and reads back with the key.
        case verified
        /// The copy has replaced the original.
        case replaced
    }

    public static func temporaryPath(forStore path: String) -> String { path + ".encrypting" }

    public static func encrypt(path: String, key: StoreKey, afterStep: (Step) -> Void = { _ in }) throws {
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
                try db.execute(sql: "VACUUM INTO ?", arguments: [fileURI(temporary) + "?" + StoreCipher.uriParameters(key)])
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
