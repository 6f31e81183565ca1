import ForceJSON
import GRDB
import Testing

@testable import SmartStore

@Suite("alterSoup and reIndexSoup")
struct AlterSoupTests {
    static let oldSpecs = [IndexSpec(path: "lastName", type: .string), IndexSpec(path: "city", type: .string)]
    static let newSpecs = [
        IndexSpec(path: "lastName", type: .string), IndexSpec(path: "city", type: .string),
        IndexSpec(path: "firstName", type: .string),
    ]

    func makeStore(specs: [IndexSpec] = oldSpecs) throws -> TemporaryStore {
        let temporary = try TemporaryStore()
        try temporary.store.registerSoup("people", indexSpecs: specs)
        _ = try temporary.store.create(
            [
                ["firstName": "Ada", "lastName": "Lovelace", "city": "London", "bio": "first programmer"],
                ["firstName": "Grace", "lastName": "Hopper", "city": "New York", "bio": "compilers"],
                ["firstName": "Tomás", "lastName": "García", "city": "Sevilla", "bio": "ñandú"],
            ], in: "people")
        return temporary
    }

    func rows(_ temporary: TemporaryStore, _ columns: String) throws -> [String] {
        try temporary.raw { db in
            try Row.fetchAll(db, sql: "SELECT \(columns) FROM TABLE_1 ORDER BY id").map { row in
                row.databaseValues.map { $0.isNull ? "null" : "\($0)" }.joined(separator: "|")
            }
        }
    }

    @Test func withoutReIndexingNewColumnsStayNull() throws {
        let temporary = try makeStore()
        let before = try rows(temporary, "id, soup, created, lastModified")
        try temporary.store.alterSoup("people", indexSpecs: Self.newSpecs, reIndexData: false)
        #expect(try temporary.store.indexSpecs(soup: "people").map(\.columnName) == ["TABLE_1_0", "TABLE_1_1", "TABLE_1_2"])
        #expect(try rows(temporary, "TABLE_1_2") == ["null", "null", "null"])
        #expect(try rows(temporary, "TABLE_1_0") == ["\"Lovelace\"", "\"Hopper\"", "\"García\""])
        #expect(try rows(temporary, "id, soup, created, lastModified") == before, "documents and dates are kept")
    }

    @Test func withReIndexingNewColumnsAreFilled() throws {
        let temporary = try makeStore()
        try temporary.store.alterSoup("people", indexSpecs: Self.newSpecs, reIndexData: true)
        #expect(try rows(temporary, "TABLE_1_2") == ["\"Ada\"", "\"Grace\"", "\"Tomás\""])
        #expect(try temporary.store.query(.exact("people", path: "firstName", matchKey: "Grace")).count == 1)
        let leftovers = try temporary.raw { try Int.fetchOne($0, sql: "SELECT count(*) FROM sqlite_master WHERE name LIKE 'TABLE_1_old%'") }
        #expect(leftovers == 0)
        #expect(try temporary.raw { try Int.fetchOne($0, sql: "SELECT count(*) FROM long_operations_status") } == 0)
    }

    @Test(arguments: [
        (IndexType.string, IndexType.integer), (.string, .fullText), (.fullText, .string), (.string, .json1),
        (.json1, .string), (.fullText, .json1), (.json1, .fullText),
    ])
    func typeChangesKeepDataQueryable(from: IndexType, to: IndexType) throws {
        let temporary = try makeStore(specs: [IndexSpec(path: "lastName", type: from), IndexSpec(path: "city", type: .string)])
        try temporary.store.alterSoup(
            "people", indexSpecs: [IndexSpec(path: "lastName", type: to), IndexSpec(path: "city", type: .string)], reIndexData: true)
        let specs = try temporary.store.indexSpecs(soup: "people")
        #expect(specs.map(\.type) == [to, .string])
        let found = try temporary.store.query(.exact("people", path: "city", matchKey: "London"))
        #expect(found.first?["lastName"] == "Lovelace")
        if to != .integer {
            #expect(try temporary.store.query(.exact("people", path: "lastName", matchKey: "Hopper")).count == 1)
        }
        let hasFts = try temporary.raw { try $0.tableExists("TABLE_1_fts") }
        #expect(hasFts == (to == .fullText))
        if to == .fullText {
            #expect(try temporary.store.query(.match("people", path: "lastName", matchKey: "garcia")).count == 1)
        }
    }

    @Test func alteringToTheSameSpecsRebuildsIndexes() throws {
        let temporary = try makeStore(specs: [IndexSpec(path: "lastName", type: .fullText), IndexSpec(path: "city", type: .json1)])
        try temporary.store.write { transaction in
            try transaction.db.execute(sql: "DROP INDEX TABLE_1_created_idx")
        }
        try temporary.store.alterSoup("people", indexSpecs: try temporary.store.indexSpecs(soup: "people"), reIndexData: false)
        let indexes = try temporary.raw { try String.fetchAll($0, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'TABLE_1' ORDER BY name") }
        #expect(indexes == ["TABLE_1_0_idx", "TABLE_1_1_idx", "TABLE_1_created_idx", "TABLE_1_lastModified_idx"])
        #expect(try temporary.store.query(.match("people", path: nil, matchKey: "hopper")).count == 1)
    }

    @Test(arguments: AlterSoupStep.allCases)
    func resumesAfterBeingInterruptedAtAnyStep(step: AlterSoupStep) throws {
        let temporary = try makeStore()
        #expect(throws: AlterSoupInterrupted.self) {
            try temporary.store.alterSoup("people", indexSpecs: Self.newSpecs, reIndexData: true, stopAfter: step)
        }
        let pending = try temporary.raw { try String.fetchAll($0, sql: "SELECT status FROM long_operations_status") }
        #expect(pending == (step == .dropOldTable ? [] : [step.rawValue]))
        // The next open finishes the job.
        let reopened = try temporary.reopen()
        #expect(try reopened.indexSpecs(soup: "people").map(\.path) == ["lastName", "city", "firstName"])
        #expect(try rows(temporary, "TABLE_1_2") == ["\"Ada\"", "\"Grace\"", "\"Tomás\""])
        #expect(try reopened.count(.all("people")) == 3)
        let leftovers = try temporary.raw { try Int.fetchOne($0, sql: "SELECT count(*) FROM sqlite_master WHERE name LIKE 'TABLE_1_old%'") }
        #expect(leftovers == 0)
        #expect(try temporary.raw { try Int.fetchOne($0, sql: "SELECT count(*) FROM long_operations_status") } == 0)
        // and the soup keeps working
        _ = try reopened.upsert(["firstName": "Alan", "lastName": "Turing"], in: "people")
        #expect(try reopened.query(.exact("people", path: "firstName", matchKey: "Alan")).count == 1)
    }

    @Test func operationsKeepWorkingAfterAnAlter() throws {
        let temporary = try makeStore()
        try temporary.store.alterSoup("people", indexSpecs: Self.newSpecs, reIndexData: true)
        _ = try temporary.store.upsert(["firstName": "Ada", "lastName": "King"], in: "people", externalIdPath: "firstName")
        #expect(try temporary.store.query(.exact("people", path: "firstName", matchKey: "Ada")).first?["lastName"] == "King")
        try temporary.store.delete(matching: .exact("people", path: "city", matchKey: "New York"), from: "people")
        #expect(try temporary.store.count(.all("people")) == 2)
        #expect(try temporary.store.create(["lastName": "New"], in: "people")["_soupEntryId"] == .int(4))
    }

    @Test func reIndexSoupReprojectsOnlyTheListedPaths() throws {
        let temporary = try makeStore()
        // Change the documents behind SmartStore's back, then reindex one path.
        try temporary.store.write { transaction in
            try transaction.db.execute(sql: "UPDATE TABLE_1 SET soup = json_set(soup, '$.lastName', 'X', '$.city', 'Y')")
        }
        try temporary.store.reIndexSoup("people", paths: ["city"])
        #expect(try rows(temporary, "TABLE_1_1") == ["\"Y\"", "\"Y\"", "\"Y\""])
        #expect(try rows(temporary, "TABLE_1_0") == ["\"Lovelace\"", "\"Hopper\"", "\"García\""])
    }
}
