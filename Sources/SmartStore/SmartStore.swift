import ForceJSON
import Foundation
import GRDB

/// A SmartStore-compatible JSON document store in one SQLite file.
///
/// Every call runs in its own transaction; `write` and `read` group several. The file is in WAL mode
/// with a busy timeout, so the TUI and `forceterm sync` can have it open at the same time.
public final class SmartStore: Sendable {
    public static let soupEntryId = "_soupEntryId"
    public static let soupLastModifiedDate = "_soupLastModifiedDate"
    public static let soupCreatedDate = "_soupCreatedDate"

    /// The page size of a new store file. A contact's document is ~1.4 KB: 4 KB pages (SQLite's
    /// default) hold two of them and waste a third of each page, and a sync down of 100k contacts
    /// makes ~700k page-sized reads and writes; 16 KB pages hold eleven, halve the table and make
    /// a quarter of the calls (`make bench-sync`: 3.7 s → 3.1 s). Every SQLite reader, the SDK's
    /// included, reads any page size: the layout of tables and columns is what stays the SDK's.
    public static let pageSize = 16_384

    /// How long a writer waits for another process's transaction before giving up.
    public static let busyTimeout: TimeInterval = 15

    public let path: String
    /// Opened read-only, because the file or its directory is not writable by this user: reads
    /// work, every write throws `SmartStoreError.readOnly`.
    public let isReadOnly: Bool
    /// Encrypted at rest (SQLCipher 4's format); false for an unencrypted file opened as it was found.
    public let isEncrypted: Bool
    let pool: DatabasePool
    let catalog = SoupCatalog()
    let searchPageWarmup = SearchPageWarmup()

    /// Opens the store at `path`, creating it unless `mustExist` is set, encrypted or not as
    /// `encryption` says. Resumes any alterSoup that a killed process left half done.
    public init(path: String, mustExist: Bool = false, encryption: StoreEncryption = .plain) throws {
        self.path = path
        let fileManager = FileManager.default
        let directory = (path as NSString).deletingLastPathComponent
        let directoryWritable = fileManager.isWritableFile(atPath: directory.isEmpty ? "." : directory)
        // An existing store this user may not write (a copy on a read-only disk, a file made
        // read-only) is opened for reading rather than refused.
        isReadOnly = fileManager.fileExists(atPath: path) && (!fileManager.isWritableFile(atPath: path) || !directoryWritable)
        if mustExist {
            guard fileManager.fileExists(atPath: path) else { throw SmartStoreError.storeNotFound(path: path) }
        } else {
            let directory = (path as NSString).deletingLastPathComponent
            if !directory.isEmpty, !fileManager.fileExists(atPath: directory) {
                try fileManager.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            }
        }
        let format = StoreCipher.format(of: path)
        let looksEncrypted = format == .encrypted
        let key = try encryption.keyForOpening(path: path, format: format, writable: !isReadOnly)
        isEncrypted = key != nil
        var configuration = Configuration()
        configuration.busyMode = .timeout(Self.busyTimeout)
        configuration.foreignKeysEnabled = false
        configuration.label = "SmartStore"
        let isNew = !mustExist && !fileManager.fileExists(atPath: path)
        configuration.prepareDatabase { db in
            if let key {
                try StoreCipher.apply(key, to: db)
                // The first read of an encrypted file is where a wrong key shows.
                do {
                    _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master")
                } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB {
                    if looksEncrypted { throw SmartStoreError.wrongKey(path: path) }
                    throw SmartStoreError.notASmartStore(path: path, reason: "not an SQLite database, nor one encrypted with the key given")
                }
                try StoreCipher.tune(db)
            }
            // Only an empty file takes a page size; an existing store keeps the one it has.
            if isNew { try db.execute(sql: "PRAGMA page_size = \(Self.pageSize)") }
            db.add(collation: TextCollation.collation)
            db.add(function: FullTextExtras.function)
        }
        // Without a shared-memory file it could create, SQLite opens a WAL database read-only only
        // as immutable: nothing else can be writing in a directory no one may write to.
        let readOnlyPath = directoryWritable || fileManager.fileExists(atPath: path + "-shm") ? path : Self.immutableURI(path)
        do {
            if mustExist {
                // Look before opening for writing: a pool would switch someone else's database to WAL.
                var readOnly = configuration
                readOnly.readonly = true
                let hasMetaTables = try DatabaseQueue(path: readOnlyPath, configuration: readOnly).read(SoupSchema.hasMetaTables)
                guard hasMetaTables else {
                    throw SmartStoreError.notASmartStore(path: path, reason: "it has no soup_attrs table")
                }
            }
            if isReadOnly {
                configuration.readonly = true
                pool = try DatabasePool(path: readOnlyPath, configuration: configuration)
                guard try pool.read(SoupSchema.hasMetaTables) else {
                    throw SmartStoreError.notASmartStore(path: path, reason: "it has no soup_attrs table")
                }
            } else {
                pool = try DatabasePool(path: path, configuration: configuration)
            }
            if !mustExist && !isReadOnly { try pool.write(SoupSchema.createMetaTables) }
        } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB {
            throw SmartStoreError.notASmartStore(path: path, reason: "not an SQLite database")
        } catch let error as DatabaseError {
            throw SmartStoreError.database(message: "cannot open \(path): \(error.message ?? error.description)")
        }
        if !mustExist && !isReadOnly { try? fileManager.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path) }
        if !isReadOnly { try resumeLongOperations() }
    }

    /// `file:` URI with `immutable=1` (SQLite here is built with URI filenames).
    static func immutableURI(_ path: String) -> String {
        let absolute = (path as NSString).standardizingPath.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        let encoded = absolute.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "?#%"))) ?? absolute
        return "file:\(encoded)?immutable=1"
    }

    static func currentTimeMillis() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }

    // MARK: Transactions

    /// Runs `body` in one IMMEDIATE transaction: all of it commits, or none of it if it throws.
    public func write<T>(_ body: (StoreTransaction) throws -> T) throws -> T {
        if isReadOnly { throw SmartStoreError.readOnly(path: path) }
        return try translatingErrors { try pool.write { db in try body(StoreTransaction(db: db, catalog: catalog)) } }
    }

    /// Runs `body` on a consistent snapshot, concurrently with writers.
    public func read<T>(_ body: (StoreTransaction) throws -> T) throws -> T {
        try translatingErrors { try pool.read { db in try body(StoreTransaction(db: db, catalog: catalog)) } }
    }

    /// Calls `body` right after each write transaction of this store commits, on the writing thread.
    /// Crash-point tests end the process there: what is left on disk is exactly what had committed.
    public func afterEachCommit(_ body: @escaping @Sendable () -> Void) {
        pool.add(transactionObserver: CommitObserver(body), extent: .databaseLifetime)
    }

    private func translatingErrors<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError {
            if error.resultCode == .SQLITE_READONLY { throw SmartStoreError.readOnly(path: path) }
            throw SmartStoreError.database(message: error.message ?? error.description)
        }
    }

    // MARK: Changes by others

    /// What changes on disk when any process commits to the store: the size and modification time
    /// of the database file and of its write-ahead log. Cheap (two `stat`s), so a screen can poll
    /// it to notice another process's writes (`forceterm import`, a sync in another terminal).
    public struct ChangeStamp: Sendable, Equatable {
        let database: [Int64]
        let log: [Int64]
    }

    public func changeStamp() -> ChangeStamp {
        func status(_ path: String) -> [Int64] {
            var info = stat()
            guard stat(path, &info) == 0 else { return [] }
            return [Int64(info.st_size), Int64(info.st_mtim.tv_sec), Int64(info.st_mtim.tv_nsec), Int64(info.st_ino)]
        }
        return ChangeStamp(database: status(path), log: status(path + "-wal"))
    }

    // MARK: Soups

    @discardableResult
    public func registerSoup(_ name: String, indexSpecs: [IndexSpec]) throws -> Bool {
        // A soup that exists needs no write transaction: a read-only store can still be opened
        // by code that registers what it uses.
        if try read({ try $0.hasSoup(name) }) {
            try SoupSchema.validateSoupName(name)
            try SoupSchema.validate(indexSpecs, soup: name)
            return false
        }
        return try write { try $0.registerSoup(name, indexSpecs: indexSpecs) }
    }

    public func hasSoup(_ name: String) throws -> Bool { try read { try $0.hasSoup(name) } }
    public func soupNames() throws -> [String] { try read { try $0.soupNames() } }
    public func indexSpecs(soup: String) throws -> [IndexSpec] { try read { try $0.indexSpecs(soup: soup) } }
    public func soupInfo(_ name: String) throws -> SoupInfo { try read { try $0.soupInfo(name) } }
    public func hasIndex(soup: String, path: String) throws -> Bool { try read { try $0.hasIndex(soup: soup, path: path) } }
    public func dropSoup(_ name: String) throws { try write { try $0.dropSoup(name) } }
    public func dropAllSoups() throws { try write { try $0.dropAllSoups() } }
    public func clearSoup(_ name: String) throws { try write { try $0.clearSoup(name) } }

    // MARK: Entries

    public func create(_ document: JSONObject, in soup: String) throws -> JSONObject {
        try write { try $0.create([document], in: soup)[0] }
    }

    public func create(_ documents: [JSONObject], in soup: String) throws -> [JSONObject] {
        try write { try $0.create(documents, in: soup) }
    }

    public func update(_ document: JSONObject, id: Int64, in soup: String) throws -> JSONObject? {
        try write { try $0.update(document, id: id, in: soup) }
    }

    public func upsert(_ document: JSONObject, in soup: String, externalIdPath: String = soupEntryId) throws -> JSONObject {
        try write { try $0.upsert([document], in: soup, externalIdPath: externalIdPath)[0] }
    }

    /// Upserts a batch in one transaction: all of it, or none of it.
    public func upsert(_ documents: [JSONObject], in soup: String, externalIdPath: String = soupEntryId) throws -> [JSONObject] {
        try write { try $0.upsert(documents, in: soup, externalIdPath: externalIdPath) }
    }

    /// Upserts a stream in one transaction without keeping the documents in memory.
    @discardableResult
    public func upsert<S: Sequence<JSONObject>>(
        contentsOf documents: S, in soup: String, externalIdPath: String = soupEntryId
    ) throws -> Int {
        try write { try $0.upsert(contentsOf: documents, in: soup, externalIdPath: externalIdPath) }
    }

    public func retrieve(_ ids: [Int64], from soup: String) throws -> [JSONObject] {
        try read { try $0.retrieve(ids, from: soup) }
    }

    public func delete(_ ids: [Int64], from soup: String) throws { try write { try $0.delete(ids, from: soup) } }

    @discardableResult
    public func delete(matching spec: QuerySpec, from soup: String) throws -> [Int64] {
        try write { try $0.delete(matching: spec, from: soup) }
    }

    public func lookupSoupEntryId(soup: String, path: String, value: JSONValue) throws -> Int64? {
        try read { try $0.lookupSoupEntryId(soup: soup, path: path, value: value) }
    }

    // MARK: Queries

    public func query(_ spec: QuerySpec, pageIndex: Int = 0, arguments: [JSONValue] = []) throws -> [JSONValue] {
        try read { try $0.query(spec, pageIndex: pageIndex, arguments: arguments) }
    }

    public func queryPage(_ spec: QuerySpec, pageIndex: Int = 0, arguments: [JSONValue] = []) throws -> QueryPage {
        try read { try $0.queryPage(spec, pageIndex: pageIndex, arguments: arguments) }
    }

    public func count(_ spec: QuerySpec, arguments: [JSONValue] = []) throws -> Int {
        try read { try $0.count(spec, arguments: arguments) }
    }

    public func convertSmartSql(_ smartSql: String) throws -> String { try read { try $0.convertSmartSql(smartSql) } }

    /// The size of the database file after folding the WAL back into it.
    public func databaseSize() throws -> Int64 {
        try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(PASSIVE)") }
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.size] as? NSNumber)?.int64Value ?? 0
    }
}

/// Hears commits only; the changes themselves are not observed.
private final class CommitObserver: TransactionObserver, Sendable {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { false }
    func databaseDidChange(with event: DatabaseEvent) {}
    func databaseDidCommit(_ db: Database) { body() }
    func databaseDidRollback(_ db: Database) {}
}
