import Foundation
import GRDB

/// SQLCipher 4's format, as SQLite3 Multiple Ciphers writes it: AES-256 pages with an HMAC-SHA512
/// each, the key given raw. Pages are SmartStore's 16 KB rather than SQLCipher's default 4 KB, so an
/// SQLCipher tool opens a store with `PRAGMA key = "x'…'"` and `PRAGMA cipher_page_size = 16384`.
enum StoreCipher {
    /// Must run on each connection before anything reads the file.
    static func apply(_ key: StoreKey, to db: Database) throws {
        try requireEncryptingSQLite(db)
        try db.execute(sql: "PRAGMA cipher = 'sqlcipher'")
        try db.execute(sql: "PRAGMA legacy = 4")
        try db.execute(sql: "PRAGMA legacy_page_size = \(SmartStore.pageSize)")
        try db.execute(sql: "PRAGMA key = \"\(key.rawKeyLiteral)\"")
    }

    /// An encrypted page costs a decryption and an HMAC each time SQLite reads it from the file, and
    /// one encryption when it is written to the log (a checkpoint copies the encrypted frame as it
    /// is: vendor/sqlite3mc/checkpoint-copy.c). A larger page cache reads less, and checkpoints
    /// every 128 MB rather than 16 MB copy a page changed by many commits once. The log is cut back
    /// to 64 MB after each checkpoint.
    static func tune(_ db: Database) throws {
        try db.execute(sql: "PRAGMA cache_size = -65536")
        _ = try Int.fetchOne(db, sql: "PRAGMA wal_autocheckpoint = 8192")
        _ = try Int.fetchOne(db, sql: "PRAGMA journal_size_limit = 67108864")
    }

    /// The `file:` URI parameters that make a new database file (VACUUM INTO's target) encrypted the same way.
    static func uriParameters(_ key: StoreKey) -> String {
        "cipher=sqlcipher&legacy=4&legacy_page_size=\(SmartStore.pageSize)&key=x%27\(key.hex)%27"
    }

    /// A binary linked with the system's SQLite would take `PRAGMA key` silently and write plain
    /// pages; SQLite3 Multiple Ciphers answers `PRAGMA cipher` with its scheme, SQLite with nothing.
    static func requireEncryptingSQLite(_ db: Database) throws {
        guard (try? String.fetchOne(db, sql: "PRAGMA cipher")) != nil else { throw SmartStoreError.noEncryption }
    }

    /// What the first bytes of a store file say.
    enum FileFormat: Equatable {
        case absent
        /// Zero bytes: SQLite writes the header with the first transaction.
        case empty
        /// Starts with SQLite's header.
        case plain
        /// Whole pages that start with anything else: an encrypted file starts with a random salt.
        case encrypted
        /// Neither (a text file, say): opened as it is, SQLite says it is not a database.
        case other
        /// Not readable by this user; SQLite says why when it is opened.
        case unreadable
    }

    static let plainHeader = Array("SQLite format 3\0".utf8)

    static func format(of path: String) -> FileFormat {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            return FileManager.default.fileExists(atPath: path) ? .unreadable : .absent
        }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: plainHeader.count)) ?? Data()
        if head.isEmpty { return .empty }
        if Array(head) == plainHeader { return .plain }
        let size = (try? handle.seekToEnd()) ?? 0
        let looksLikeText =
            head.allSatisfy { (0x20...0x7E).contains($0) || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
            || head.allSatisfy { $0 == 0 }
        // Pages are 512 bytes to 64 KB, so an SQLite file of any kind is a whole number of 512-byte blocks.
        return size % 512 == 0 && !looksLikeText ? .encrypted : .other
    }
}

extension SmartStore {
    /// Whether the file at `path` looks like an encrypted store (not SQLite's plain header, whole pages).
    public static func isEncryptedFile(atPath path: String) -> Bool { StoreCipher.format(of: path) == .encrypted }
    /// Whether the file at `path` is an unencrypted SQLite database (SQLite's plain header).
    public static func isUnencryptedFile(atPath path: String) -> Bool { StoreCipher.format(of: path) == .plain }
}
