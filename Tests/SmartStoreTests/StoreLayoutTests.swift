import ForceJSON
import Foundation
import GRDB
import Testing

@testable import SmartStore

@Suite("Storage layout and soups")
struct StoreLayoutTests {
    @Test func metadataTablesExistOnANewStore() throws {
        let temporary = try TemporaryStore()
        let tables = try temporary.raw { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        }
        #expect(tables.contains("soup_attrs"))
        #expect(tables.contains("soup_index_map"))
        #expect(tables.contains("long_operations_status"))
        let journal = try temporary.raw { try String.fetchOne($0, sql: "PRAGMA journal_mode") }
        #expect(journal == "wal")
    }

    @Test("A new store has 16 KB pages; a store made with another page size keeps it and works as before")
    func pageSize() throws {
        let temporary = try TemporaryStore()
        #expect(try temporary.raw { try Int.fetchOne($0, sql: "PRAGMA page_size") } == SmartStore.pageSize)
        // A store another program made with SQLite's default 4 KB pages (the SDK's, an older forceterm).
        let older = temporary.directory.appendingPathComponent("older.sqlite").path
        try DatabaseQueue(path: older).write { db in try db.execute(sql: "PRAGMA page_size = 4096; CREATE TABLE other (x)") }
        let store = try SmartStore(path: older)
        try store.registerSoup("test", indexSpecs: [IndexSpec(path: "key", type: .string)])
        _ = try store.create(["key": "a"], in: "test")
        let reopened = try SmartStore(path: older, mustExist: true)
        #expect(try reopened.query(.exact("test", path: "key", matchKey: "a")).count == 1)
        #expect(try DatabaseQueue(path: older).read { try Int.fetchOne($0, sql: "PRAGMA page_size") } == 4096)
    }

    @Test func registerCreatesTheSDKTableLayout() throws {
        let temporary = try TemporaryStore()
        try temporary.store.registerSoup("employees", indexSpecs: Employees.employeeSpecs + [IndexSpec(path: "bio", type: .fullText)])
        #expect(try temporary.store.hasSoup("employees"))
        let (columns, indexes, map, ftsColumns) = try temporary.raw { db in
            (
                try Row.fetchAll(db, sql: "PRAGMA table_info(TABLE_1)").map { $0["name"] as String },
                try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'TABLE_1' ORDER BY name"),
                try Row.fetchAll(db, sql: "SELECT path, columnName, columnType FROM soup_index_map WHERE soupName = 'employees' ORDER BY rowid")
                    .map { "\($0["path"] as String)|\($0["columnName"] as String)|\($0["columnType"] as String)" },
                try Row.fetchAll(db, sql: "PRAGMA table_info(TABLE_1_fts)").map { $0["name"] as String }
            )
        }
        #expect(columns == ["id", "soup", "created", "lastModified", "TABLE_1_0", "TABLE_1_1", "TABLE_1_2", "TABLE_1_3", "TABLE_1_4", "TABLE_1_5", "TABLE_1_8"])
        #expect(indexes.contains("TABLE_1_created_idx"))
        #expect(indexes.contains("TABLE_1_lastModified_idx"))
        #expect(indexes.contains("TABLE_1_0_idx"))
        #expect(indexes.contains("TABLE_1_6_idx"), "json1 specs get an expression index")
        #expect(map[0] == "firstName|TABLE_1_0|string")
        #expect(map[5] == "salary|TABLE_1_5|integer")
        #expect(map[6] == "education|json_extract(soup, '$.education')|json1")
        #expect(map[8] == "bio|TABLE_1_8|full_text")
        #expect(ftsColumns == ["TABLE_1_8"])
        let indexSql = try temporary.raw { try String.fetchOne($0, sql: "SELECT sql FROM sqlite_master WHERE name = 'TABLE_1_6_idx'") }
        #expect(indexSql?.contains("json_extract(soup, '$.education')") == true)
    }

    @Test func secondSoupIsTable2AndReRegisteringIsANoOp() throws {
        let temporary = try Employees.make()
        #expect(try temporary.store.soupInfo("departments").tableName == "TABLE_2")
        let registered = try temporary.store.registerSoup("employees", indexSpecs: [IndexSpec(path: "other", type: .integer)])
        #expect(!registered)
        #expect(try temporary.store.indexSpecs(soup: "employees").map(\.path) == Employees.employeeSpecs.map(\.path))
    }

    @Test func badRegistrationsAreRefused() throws {
        let temporary = try TemporaryStore()
        #expect(throws: SmartStoreError.noIndexSpecs(soup: "empty")) {
            try temporary.store.registerSoup("empty", indexSpecs: [])
        }
        #expect(throws: SmartStoreError.invalidSoupName("")) {
            try temporary.store.registerSoup("", indexSpecs: [IndexSpec(path: "a", type: .string)])
        }
        #expect(throws: SmartStoreError.invalidSoupName("bad name; drop")) {
            try temporary.store.registerSoup("bad name; drop", indexSpecs: [IndexSpec(path: "a", type: .string)])
        }
        #expect(throws: SmartStoreError.duplicateIndexPath(soup: "dup", path: "a")) {
            try temporary.store.registerSoup("dup", indexSpecs: [IndexSpec(path: "a", type: .string), IndexSpec(path: "a", type: .integer)])
        }
        #expect(try temporary.store.soupNames().isEmpty)
    }

    @Test func dropRemovesTablesAndMetadata() throws {
        let temporary = try TemporaryStore()
        try temporary.store.registerSoup("notes", indexSpecs: [IndexSpec(path: "text", type: .fullText)])
        _ = try temporary.store.create(["text": "hello"], in: "notes")
        try temporary.store.dropSoup("notes")
        #expect(try !temporary.store.hasSoup("notes"))
        let leftovers = try temporary.raw { db in
            (
                try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master WHERE name LIKE 'TABLE_1%'") ?? -1,
                try Int.fetchOne(db, sql: "SELECT count(*) FROM soup_index_map") ?? -1,
                try Int.fetchOne(db, sql: "SELECT count(*) FROM soup_attrs") ?? -1
            )
        }
        #expect(leftovers.0 == 0 && leftovers.1 == 0 && leftovers.2 == 0)
        #expect(throws: SmartStoreError.unknownSoup("notes")) { try temporary.store.create(["text": "x"], in: "notes") }
    }

    @Test func soupNamesAndDropAll() throws {
        let temporary = try Employees.make()
        #expect(try temporary.store.soupNames() == ["departments", "employees"])
        try temporary.store.dropAllSoups()
        #expect(try temporary.store.soupNames().isEmpty)
    }

    @Test func indexSpecsComeBackWithColumnNames() throws {
        let temporary = try Employees.make()
        let specs = try temporary.store.indexSpecs(soup: "employees")
        #expect(specs.first == IndexSpec(path: "firstName", type: .string, columnName: "TABLE_1_0"))
        #expect(try temporary.store.hasIndex(soup: "employees", path: "salary"))
        #expect(try !temporary.store.hasIndex(soup: "employees", path: "address.city"))
        #expect(throws: SmartStoreError.unknownSoup("nope")) { try temporary.store.indexSpecs(soup: "nope") }
    }

    @Test func anotherHandleSeesSoupsRegisteredLater() throws {
        let temporary = try TemporaryStore()
        let other = try temporary.reopen()
        #expect(try other.soupNames().isEmpty)
        try temporary.store.registerSoup("late", indexSpecs: [IndexSpec(path: "a", type: .string)])
        #expect(try other.hasSoup("late"), "the catalog cache must notice another connection's schema change")
        _ = try other.create(["a": "x"], in: "late")
        #expect(try temporary.store.count(.all("late")) == 1)
    }

    @Test func databaseSizeGrowsWithEntries() throws {
        let temporary = try Employees.make()
        let before = try temporary.store.databaseSize()
        let documents: [JSONObject] = (0..<100).map { ["firstName": .string("name \($0)"), "lastName": .string(String(repeating: "x", count: 500))] }
        _ = try temporary.store.create(documents, in: "employees")
        #expect(try temporary.store.databaseSize() > before)
    }

    @Test func openingAMissingStoreWithMustExistCreatesNothing() throws {
        let temporary = try TemporaryStore()
        let missing = temporary.directory.appendingPathComponent("missing.sqlite").path
        #expect(throws: SmartStoreError.storeNotFound(path: missing)) { try SmartStore(path: missing, mustExist: true) }
        #expect(!FileManager.default.fileExists(atPath: missing))
    }

    @Test func openingSomethingElseIsRefused() throws {
        let temporary = try TemporaryStore()
        let text = temporary.directory.appendingPathComponent("notes.txt").path
        try "just some text, not a database at all, long enough to fill a header".write(toFile: text, atomically: true, encoding: .utf8)
        #expect(throws: SmartStoreError.notASmartStore(path: text, reason: "not an SQLite database")) {
            try SmartStore(path: text, mustExist: true)
        }
        let plain = temporary.directory.appendingPathComponent("plain.sqlite").path
        try DatabaseQueue(path: plain).write { try $0.execute(sql: "CREATE TABLE t (a)") }
        #expect(throws: SmartStoreError.notASmartStore(path: plain, reason: "it has no soup_attrs table")) {
            try SmartStore(path: plain, mustExist: true)
        }
    }
}
