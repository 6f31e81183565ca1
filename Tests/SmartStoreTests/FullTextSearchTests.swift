import ForceJSON
import GRDB
import Testing

@testable import SmartStore

@Suite("Full-text search")
struct FullTextSearchTests {
    let temporary: TemporaryStore
    var store: SmartStore { temporary.store }

    init() throws {
        temporary = try TemporaryStore()
        try temporary.store.registerSoup(
            "employees",
            indexSpecs: [
                IndexSpec(path: "firstName", type: .fullText),
                IndexSpec(path: "lastName", type: .fullText),
                IndexSpec(path: "employeeId", type: .string),
            ])
    }

    func load() throws {
        _ = try store.create(
            [
                ["firstName": "Christine", "lastName": "Haas", "employeeId": "00010"],
                ["firstName": "Michael", "lastName": "Thompson", "employeeId": "00020"],
                ["firstName": "Sally", "lastName": "Kwan", "employeeId": "00310"],
                ["firstName": "Eileen", "lastName": "Henderson", "employeeId": "00070"],
                ["firstName": "Eva", "lastName": "Pulaski", "employeeId": "00060"],
                ["firstName": "Christopher", "lastName": "Ali", "employeeId": "00080"],
                ["firstName": "Eva", "lastName": "Haas", "employeeId": "00090"],
            ], in: "employees")
    }

    func ftsRows() throws -> [String] {
        try temporary.raw { db in
            try Row.fetchAll(db, sql: "SELECT rowid, TABLE_1_0, TABLE_1_1 FROM TABLE_1_fts ORDER BY rowid").map { row in
                "\(row[0] as Int64)|\((row[1] as String?) ?? "null")|\((row[2] as String?) ?? "null")"
            }
        }
    }

    func search(_ path: String?, _ key: String, orderPath: String = "employeeId") throws -> [String] {
        try store.query(.match("employees", path: path, matchKey: key, orderPath: orderPath, pageSize: 100))
            .compactMap { $0["employeeId"]?.stringValue }
    }

    @Test func ftsTableMirrorsInsertsUpdatesDeletes() throws {
        let columns = try temporary.raw { try Row.fetchAll($0, sql: "PRAGMA table_info(TABLE_1_fts)").map { $0["name"] as String } }
        #expect(columns == ["TABLE_1_0", "TABLE_1_1"])
        _ = try store.create([["firstName": "Christine", "lastName": "Haas"], ["lastName": "Thompson"]], in: "employees")
        #expect(try ftsRows() == ["1|Christine|Haas", "2|null|Thompson"])
        _ = try store.update(["firstName": "Michael", "lastName": "Thompson"], id: 2, in: "employees")
        #expect(try ftsRows() == ["1|Christine|Haas", "2|Michael|Thompson"])
        try store.delete([1], from: "employees")
        #expect(try ftsRows() == ["2|Michael|Thompson"])
        try store.clearSoup("employees")
        #expect(try ftsRows().isEmpty)
        try store.dropSoup("employees")
        let left = try temporary.raw { try Int.fetchOne($0, sql: "SELECT count(*) FROM sqlite_master WHERE name LIKE 'TABLE_1_fts%'") }
        #expect(left == 0)
    }

    @Test func deleteByQueryRemovesOnlyTheDeletedRowsFromFts() throws {
        try load()
        try store.delete(matching: .match("employees", path: "lastName", matchKey: "Haas", orderPath: "employeeId", pageSize: 1), from: "employees")
        #expect(try ftsRows().count == 6, "unlike the iOS SDK, only the deleted page leaves the FTS table")
        #expect(try search("lastName", "Haas") == ["00090"])
    }

    @Test func searchOneField() throws {
        try load()
        #expect(try search("lastName", "Nobody").isEmpty)
        #expect(try search("firstName", "Sally") == ["00310"])
        #expect(try search("firstName", "Eva") == ["00060", "00090"])
        #expect(try search("firstName", "Christ*") == ["00010", "00080"])
        #expect(try search("lastName", "Haas OR Kwan") == ["00010", "00310", "00090"].sorted())
        #expect(try search("firstName", "Christ* NOT Christine") == ["00080"])
        #expect(try search("firstName", "Eva", orderPath: "lastName") == ["00090", "00060"])
    }

    @Test func searchAllFields() throws {
        try load()
        #expect(try search(nil, "Zed").isEmpty)
        #expect(try search(nil, "Thompson") == ["00020"])
        #expect(try search(nil, "Haas Christine") == ["00010"], "terms side by side are an implicit AND")
        #expect(try search(nil, "Haas") == ["00010", "00090"])
        #expect(try search(nil, "{employees:lastName}:Eva OR Haas NOT Ali") == ["00010", "00090"])
        #expect(try search(nil, "{employees:firstName}:Eva OR Haas") == ["00010", "00060", "00090"])
    }

    @Test func matchWithSelectPathsReturnsRows() throws {
        try load()
        let rows = try store.query(.match("employees", path: "lastName", matchKey: "Kwan", selectPaths: ["_soupEntryId"]))
        #expect(rows == [[3]])
    }

    @Test func accentsAndCaseFoldForNames() throws {
        _ = try store.create(
            [
                ["firstName": "José", "lastName": "Núñez", "employeeId": "1"],
                ["firstName": "JOSE", "lastName": "Garcia", "employeeId": "2"],
                ["firstName": "Zoë", "lastName": "Ærøskøbing", "employeeId": "3"],
                ["firstName": "Jose\u{301}", "lastName": "Combining", "employeeId": "4"],
            ], in: "employees")
        #expect(try search("firstName", "jose") == ["1", "2", "4"])
        #expect(try search("firstName", "JOSÉ") == ["1", "2", "4"])
        #expect(try search("lastName", "nunez") == ["1"])
        #expect(try search(nil, "zoe") == ["3"])
    }

    @Test func nonLatinScriptsAreSearchable() throws {
        _ = try store.create(
            [
                ["firstName": "太郎", "lastName": "山田", "employeeId": "1"],
                ["firstName": "Дмитрий", "lastName": "Иванов", "employeeId": "2"],
                ["firstName": "Ελένη", "lastName": "Παπαδοπούλου", "employeeId": "3"],
            ], in: "employees")
        #expect(try search("lastName", "山田") == ["1"])
        #expect(try search("lastName", "иванов") == ["2"], "Cyrillic folds case")
        #expect(try search(nil, "ΕΛΈΝΗ") == ["3"], "Greek folds case (unicode61 folds diacritics of Latin letters only)")
    }

    @Test func userTypedQuotesCannotBreakTheQuery() throws {
        try load()
        #expect(try search(nil, "\"Haas\"") == ["00010", "00090"])
        #expect(throws: SmartStoreError.self) { try search(nil, "O'Brien\" OR") }
        #expect(try store.count(.all("employees")) == 7)
    }

    @Test func matchIdsAreTheEntriesASearchFindsInIdOrder() throws {
        try load()
        let ids = try store.fullTextMatchIds(soup: "employees", matching: try #require(FullTextQuery.prefixTerms("chris")))
        #expect(ids == [1, 6])
        #expect(try store.fullTextMatchIds(soup: "employees", matching: "\"e\"*") == [4, 5, 7], "first and last names both count")
        #expect(try store.fullTextMatchIds(soup: "employees", matching: "\"zz\"*").isEmpty)
        #expect(throws: SmartStoreError.self) { try store.fullTextMatchIds(soup: "employees", matching: "\"unclosed") }
    }

    @Test func entryIdsInTextOrderFollowTheSortIndex() throws {
        try load()
        _ = try store.create([["firstName": "Ana", "lastName": "álvarez"], ["firstName": "Nameless"]], in: "employees")
        try store.ensureTextSortIndex(soup: "employees", path: "lastName")
        // No last name first; then case and accents ignored (Ali, álvarez), equal names by id (Haas 1, Haas 7).
        #expect(try store.entryIdsInTextOrder(soup: "employees", path: "lastName") == [9, 6, 8, 1, 7, 4, 3, 5, 2])
    }

    @Test func idQueriesNameWhatTheSoupLacks() throws {
        try store.registerSoup("plain", indexSpecs: [IndexSpec(path: "name", type: .string)])
        #expect(throws: SmartStoreError.database(message: "cannot search plain: it has no full_text index")) {
            try store.fullTextMatchIds(soup: "plain", matching: "\"a\"*")
        }
        #expect(throws: SmartStoreError.database(message: "cannot sort plain by title: it has no indexed column")) {
            try store.entryIdsInTextOrder(soup: "plain", path: "title")
        }
    }
}
