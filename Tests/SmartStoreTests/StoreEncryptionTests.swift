import ForceJSON
import Foundation
import GRDB
import Testing

@testable import SmartStore

@Suite("Stores encrypted at rest", .serialized)
struct StoreEncryptionTests {
    static let secretName = "Zbigniewska-Ångström"
    static let secretEmail = "zbigniewska.secret@customer.example"

    static func contact(_ index: Int) -> JSONObject {
        [
            "Id": .string("003SECRET\(index)"), "LastName": .string("\(secretName) \(index)"),
            "Email": .string(secretEmail), "__local__": true, "__locally_updated__": true,
        ]
    }

    static func setUp(_ store: SmartStore, contacts: Int = 200) throws {
        try store.setup(from: StoreConfig(contentsOf: ToolProcess.packageRoot.appendingPathComponent("config/userstore.json")))
        _ = try store.upsert((0..<contacts).map(contact), in: "contacts", externalIdPath: "Id")
    }

    /// An unencrypted store with `contacts` contacts beside `directory`'s own, closed again (as a
    /// store from before encryption is, when forceterm starts); its contacts as they read.
    static func plainStore(in directory: TemporaryStore, contacts: Int = 200) throws -> (path: String, contacts: [JSONValue]) {
        let path = directory.directory.appendingPathComponent("plain.sqlite").path
        let store = try SmartStore(path: path)
        try setUp(store, contacts: contacts)
        return (path, try store.query(.all("contacts", orderPath: "Id", pageSize: 500)))
    }

    /// Whether any file of the store on disk (database, write-ahead log, journal, a copy being
    /// encrypted: every file in its directory named after it, key files aside) holds `text` as plain bytes.
    static func filesContain(_ text: String, store path: String) throws -> Bool {
        let needle = Data(text.utf8)
        let directory = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix(name) && !$0.hasSuffix(".key") }
        #expect(files.contains(name))
        return try files.contains { file in
            try Data(contentsOf: URL(fileURLWithPath: directory + "/" + file)).range(of: needle) != nil
        }
    }

    @Test func theLinkedSQLiteIsTheOneThatEncrypts() throws {
        let cipher = try DatabaseQueue().read { try String.fetchOne($0, sql: "PRAGMA cipher") }
        #expect(cipher != nil, "the test binary is linked with the system's SQLite, not forceterm's own (make deps builds it)")
    }

    @Test func aTextFileIsNotAStoreWithOrWithoutAKey() throws {
        let directory = try TemporaryStore()
        let path = directory.directory.appendingPathComponent("notes.txt").path
        try String(repeating: "not a database at all\n", count: 100).write(toFile: path, atomically: true, encoding: .utf8)
        for encryption in [StoreEncryption.plain, .encrypted(StoreKey.random()), .asFound(StoreKey.random())] {
            #expect(throws: SmartStoreError.self) { try SmartStore(path: path, mustExist: true, encryption: encryption) }
            do {
                _ = try SmartStore(path: path, mustExist: true, encryption: encryption)
            } catch {
                #expect("\(error)".contains("is not a forceterm store"), "\(encryption): \(error)")
            }
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8).hasPrefix("not a database"), "left as it was")
    }

    @Test func aNewStoreIsWrittenEncryptedDatabaseAndLogAlike() throws {
        let directory = try TemporaryStore()
        let path = directory.directory.appendingPathComponent("encrypted.sqlite").path
        let key = StoreKey.random()
        let store = try SmartStore(path: path, encryption: .encrypted(key))
        #expect(store.isEncrypted)
        try Self.setUp(store)
        // The store is still open: the last writes are in its write-ahead log, which is checked too.
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))
        #expect(try !Self.filesContain("Zbigniewska", store: path))
        #expect(try !Self.filesContain("customer.example", store: path))
        #expect(try !Self.filesContain("SQLite format 3", store: path))

        let reopened = try SmartStore(path: path, mustExist: true, encryption: .encrypted(key))
        #expect(try reopened.count(.all("contacts")) == 200)
        let found = try reopened.query(.match("contacts", path: nil, matchKey: "Zbigniewska*", pageSize: 500))
        #expect(found.count == 200, "full-text search works on an encrypted store")
    }

    @Test func withoutItsKeyOrWithAnotherAStoreSaysSo() throws {
        let directory = try TemporaryStore()
        let path = directory.directory.appendingPathComponent("encrypted.sqlite").path
        try Self.setUp(try SmartStore(path: path, encryption: .encrypted(StoreKey.random())), contacts: 3)
        #expect(throws: SmartStoreError.encrypted(path: path)) { try SmartStore(path: path, mustExist: true) }
        #expect(throws: SmartStoreError.encrypted(path: path)) { try SmartStore(path: path, encryption: .asFound(nil)) }
        #expect(throws: SmartStoreError.wrongKey(path: path)) {
            try SmartStore(path: path, mustExist: true, encryption: .encrypted(StoreKey.random()))
        }
        #expect(SmartStoreError.encrypted(path: path).description.contains("forceterm unlock"))
    }

    @Test func anUnencryptedStoreIsEncryptedInPlaceWithEverythingInIt() throws {
        let temporary = try TemporaryStore()
        let (path, before) = try Self.plainStore(in: temporary)
        #expect(try Self.filesContain("Zbigniewska", store: path))
        let key = StoreKey.random()

        let encrypted = try SmartStore(path: path, mustExist: true, encryption: .encrypted(key))
        #expect(encrypted.isEncrypted)
        #expect(try encrypted.query(.all("contacts", orderPath: "Id", pageSize: 500)) == before)
        #expect(try encrypted.query(.match("contacts", path: nil, matchKey: "Zbigniewska*", pageSize: 500)).count == 200)
        #expect(try !Self.filesContain("Zbigniewska", store: path))
        #expect(!FileManager.default.fileExists(atPath: StoreEncryptionMigration.temporaryPath(forStore: path)))
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        // Writes after the migration go on encrypted, in the log too.
        _ = try encrypted.upsert([Self.contact(999)], in: "contacts", externalIdPath: "Id")
        #expect(try !Self.filesContain("SECRET999", store: path))
    }

    @Test func someoneElsesUnencryptedFileIsReadAsFound() throws {
        let temporary = try TemporaryStore()
        try Self.setUp(temporary.store, contacts: 5)
        let asFound = try SmartStore(path: temporary.path, mustExist: true, encryption: .asFound(StoreKey.random()))
        #expect(!asFound.isEncrypted)
        #expect(try asFound.count(.all("contacts")) == 5)
        #expect(try Self.filesContain("Zbigniewska", store: temporary.path), "left unencrypted, as it was found")
    }

    @Test func anotherProgramHoldingTheUnencryptedStoreStopsTheMigrationBeforeAnythingChanges() throws {
        let temporary = try TemporaryStore()
        try Self.setUp(temporary.store, contacts: 5)
        // `temporary.store` stays open, as an older forceterm would keep it.
        #expect(throws: SmartStoreError.storeInUse(path: temporary.path)) {
            try StoreEncryptionMigration.encrypt(path: temporary.path, key: StoreKey.random())
        }
        #expect(StoreCipher.format(of: temporary.path) == .plain)
        #expect(try temporary.store.count(.all("contacts")) == 5)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: temporary.directory.path).filter { $0.contains("encrypting") }
        #expect(leftovers.isEmpty, "no copy is left behind: \(leftovers)")
    }

    @Test(arguments: StoreEncryptionMigration.Step.allCases)
    func aMigrationKilledAfterAnyStepLosesNothingAndFinishesOnTheNextOpen(step: StoreEncryptionMigration.Step) async throws {
        let temporary = try TemporaryStore()
        // Enough contacts for a copy of several hundred KB, so that `.copying` comes mid-copy.
        let (path, before) = try Self.plainStore(in: temporary, contacts: 2_000)
        let keyFile = temporary.directory.appendingPathComponent("store.key").path
        let key = StoreKey.random()
        try key.write(toFile: keyFile)

        let (process, output) = try ToolProcess.start(["encrypt", "--store", path, "--key-file", keyFile, "--pause-after", step.rawValue])
        let seen = await ToolProcess.read(output, until: "PAUSED AFTER \(step.rawValue)")
        #expect(seen.contains("PAUSED AFTER"), "the tool must reach the step: \(seen)")
        kill(process.processIdentifier, SIGKILL)
        await ToolProcess.waitUntilExit(process)
        if step == .copying {
            let copy = StoreEncryptionMigration.temporaryPath(forStore: path)
            let size = (try? FileManager.default.attributesOfItem(atPath: copy)[.size] as? Int) ?? 0
            let original = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            #expect(size > 0 && size < original, "killed with the copy half written (\(size) of about \(original) bytes)")
        }

        // Killed before the rename: the original is whole and still unencrypted; after it: encrypted.
        #expect(StoreCipher.format(of: path) == (step == .replaced ? .encrypted : .plain))
        let reopened = try SmartStore(path: path, mustExist: true, encryption: .encrypted(key))
        #expect(reopened.isEncrypted)
        #expect(try reopened.query(.all("contacts", orderPath: "Id", pageSize: 500)) == before)
        #expect(try reopened.read { try String.fetchOne($0.db, sql: "PRAGMA integrity_check") } == "ok")
        #expect(try !Self.filesContain("Zbigniewska", store: path))
        #expect(!FileManager.default.fileExists(atPath: StoreEncryptionMigration.temporaryPath(forStore: path)))
    }

    @Test func keyFilesAreHexOwnerOnlyAndNeverOverwritten() throws {
        let temporary = try TemporaryStore()
        let file = temporary.directory.appendingPathComponent("store.key").path
        let key = StoreKey.random()
        try key.write(toFile: file)
        #expect(try StoreKey(contentsOfFile: file) == key)
        #expect(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int == 0o600)
        #expect(throws: SmartStoreError.self) { try StoreKey.random().write(toFile: file) }
        #expect(try StoreKey(contentsOfFile: file) == key)
        #expect(StoreKey(hex: "12") == nil)
        #expect("\(key)".contains(key.hex) == false)
    }
}

extension ToolProcess {
    /// Starts `smartstore-tool` with `arguments`; returns the process and its stdout.
    static func start(_ arguments: [String]) throws -> (Process, FileHandle) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        return (process, output.fileHandleForReading)
    }
}
