import ForceJSON
import Foundation
import GRDB
import Testing

@testable import SmartStore

@Suite("Bulk loads: indexes built once at the end")
struct SoupBulkLoadTests {
    static let specs: [IndexSpec] = [
        IndexSpec(path: "Id", type: .string),
        IndexSpec(path: "LastName", type: .fullText),
        IndexSpec(path: "Rank", type: .integer),
        IndexSpec(path: "Nested.City", type: .json1),
    ]

    func makeStore() throws -> TemporaryStore {
        let temporary = try TemporaryStore()
        try temporary.store.registerSoup("people", indexSpecs: Self.specs)
        try temporary.store.registerSoup("others", indexSpecs: [IndexSpec(path: "Id", type: .string), IndexSpec(path: "Name", type: .string)])
        return temporary
    }

    func indexNames(_ temporary: TemporaryStore, table: String) throws -> [String] {
        try temporary.raw {
            try String.fetchAll(
                $0, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL ORDER BY name",
                arguments: [table])
        }
    }

    func pendingLoads(_ temporary: TemporaryStore) throws -> [String] {
        try temporary.raw { try String.fetchAll($0, sql: "SELECT details FROM long_operations_status WHERE type = 'bulkLoad'") }
    }

    static func people(_ range: Range<Int>) -> [JSONObject] {
        range.map { n in
            [
                "Id": .string("003\(n)"), "LastName": .string("Name\(n * 7919 % 1000)"), "Rank": .int(Int64(n % 13)),
                "Nested": ["City": .string(n.isMultiple(of: 2) ? "Lyon" : "Oslo")],
            ]
        }
    }

    @Test func theIndexesNotKeptAreDroppedUntilFinishAndQueriesStayRight() throws {
        let temporary = try makeStore()
        try temporary.store.ensureTextSortIndex(soup: "people", path: "LastName")
        let before = try indexNames(temporary, table: "TABLE_1")
        #expect(
            before == [
                "TABLE_1_0_idx", "TABLE_1_1_idx", "TABLE_1_1_text_idx", "TABLE_1_2_idx", "TABLE_1_3_idx",
                "TABLE_1_created_idx", "TABLE_1_lastModified_idx",
            ])

        let load = try #require(try temporary.store.beginBulkLoad(soups: ["people"], keeping: ["Id"]))
        #expect(load.soups == ["people"])
        // The id index (the loader's lookups), the list's sort indexes (by name, by last modified) stay.
        #expect(try indexNames(temporary, table: "TABLE_1") == ["TABLE_1_0_idx", "TABLE_1_1_text_idx", "TABLE_1_lastModified_idx"])
        #expect(try pendingLoads(temporary) == [#"{"soupName":"people"}"#])

        _ = try temporary.store.upsert(contentsOf: Self.people(0..<300), in: "people", externalIdPath: "Id")
        // Without their indexes the dropped paths are scanned, with the same answers.
        #expect(try temporary.store.count(.exact("people", path: "Rank", matchKey: .int(5))) == 23)
        #expect(try temporary.store.count(.exact("people", path: "Nested.City", matchKey: "Lyon")) == 150)
        #expect(try temporary.store.count(.match("people", path: "LastName", matchKey: "Name919")) == 1)

        try load.finish()
        #expect(try indexNames(temporary, table: "TABLE_1") == before)
        #expect(try pendingLoads(temporary).isEmpty)
        try load.finish()  // a second finish changes nothing
        #expect(try indexNames(temporary, table: "TABLE_1") == before)
        #expect(try temporary.store.count(.exact("people", path: "Rank", matchKey: .int(5))) == 23)
        // Through the store: the text sort index needs its collation.
        #expect(try temporary.store.read { try String.fetchOne($0.db, sql: "PRAGMA integrity_check") } == "ok")
        // Each rebuilt index is used again.
        let plan = try temporary.raw { try Row.fetchAll($0, sql: "EXPLAIN QUERY PLAN SELECT id FROM TABLE_1 WHERE TABLE_1_2 = 5") }
        #expect(plan.map { $0["detail"] as String? ?? "" }.joined().contains("TABLE_1_2_idx"))
    }

    /// The full-text index's segments (FTS5 keeps each in rows whose ids start with its number).
    func fullTextSegments(_ temporary: TemporaryStore) throws -> Int {
        try temporary.raw { try Int.fetchOne($0, sql: "SELECT COUNT(DISTINCT id >> 37) FROM TABLE_1_fts_data WHERE id >> 37 > 0") ?? 0 }
    }

    func fullTextMergeSettings(_ temporary: TemporaryStore) throws -> [String: Int] {
        try temporary.raw { db in
            Dictionary(
                uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT k, v FROM TABLE_1_fts_config WHERE k IN ('automerge', 'crisismerge')")
                    .map { ($0["k"] as String, $0["v"] as Int) })
        }
    }

    @Test func fullTextSegmentsWaitForTheEndAndAreMergedIntoOne() throws {
        let temporary = try makeStore()
        let load = try #require(try temporary.store.beginBulkLoad(soups: ["people"], keeping: ["Id"]))
        // One transaction per page of records, as a sync down commits them: FTS5 alone would
        // merge every four segments.
        for page in 0..<6 {
            _ = try temporary.store.upsert(contentsOf: Self.people(page * 50..<(page + 1) * 50), in: "people", externalIdPath: "Id")
        }
        #expect(try fullTextSegments(temporary) == 6)
        #expect(try fullTextMergeSettings(temporary) == ["automerge": 0, "crisismerge": FullTextMerges.heldSegmentLimit])
        #expect(try temporary.store.count(.match("people", path: "LastName", matchKey: "Name919")) == 1)

        try load.finish()
        #expect(try fullTextSegments(temporary) == 1)
        #expect(try fullTextMergeSettings(temporary) == ["automerge": 4, "crisismerge": 16])
        #expect(try temporary.store.count(.match("people", path: "LastName", matchKey: "Name919")) == 1)
        #expect(try temporary.store.count(.match("people", path: "LastName", matchKey: "Name*")) == 300)
    }

    @Test func onlyEmptySoupsAreDeferred() throws {
        let temporary = try makeStore()
        _ = try temporary.store.create([["Id": "001A", "Name": "Kept"]], in: "others")
        let others = try indexNames(temporary, table: "TABLE_2")
        let load = try #require(try temporary.store.beginBulkLoad(soups: ["people", "others"], keeping: ["Id"]))
        #expect(load.soups == ["people"])
        #expect(try indexNames(temporary, table: "TABLE_2") == others)
        try load.finish()

        _ = try temporary.store.create(Self.people(0..<1), in: "people")
        #expect(try temporary.store.beginBulkLoad(soups: ["people", "others"], keeping: ["Id"]) == nil)
        #expect(try pendingLoads(temporary).isEmpty)
    }

    @Test func anUnknownSoupIsRefusedAndNothingIsDropped() throws {
        let temporary = try makeStore()
        let before = try indexNames(temporary, table: "TABLE_1")
        #expect(throws: SmartStoreError.unknownSoup("nope")) { try temporary.store.beginBulkLoad(soups: ["people", "nope"], keeping: ["Id"]) }
        #expect(try indexNames(temporary, table: "TABLE_1") == before)
        #expect(try pendingLoads(temporary).isEmpty)
        // The refused call let go of its lock.
        let load = try #require(try temporary.store.beginBulkLoad(soups: ["people"], keeping: ["Id"]))
        try load.finish()
    }

    @Test func anotherProcessLoadingKeepsThisOneOut() throws {
        let temporary = try makeStore()
        // Another process's hold: the same lock through an open file of its own.
        var other = try FileLock.tryAcquire(path: SoupBulkLoad.lockPath(forStore: temporary.store.path))
        #expect(other != nil)
        #expect(try temporary.store.beginBulkLoad(soups: ["people"], keeping: ["Id"]) == nil)
        #expect(try pendingLoads(temporary).isEmpty)
        other = nil  // that process ends
        withExtendedLifetime(other) {}
        let load = try #require(try temporary.store.beginBulkLoad(soups: ["people"], keeping: ["Id"]))
        try load.finish()
    }

    @Test func loadsOfOneProcessIntoSoupsOfTheirOwnEachRebuildTheirOwn() throws {
        let temporary = try makeStore()
        let lockPath = SoupBulkLoad.lockPath(forStore: temporary.store.path)
        let people = try indexNames(temporary, table: "TABLE_1")
        let others = try indexNames(temporary, table: "TABLE_2")
        var first = try temporary.store.beginBulkLoad(soups: ["people"], keeping: ["Id"])
        // A second load, from another handle of this process (a first sync's other sync down).
        var second = try temporary.reopen().beginBulkLoad(soups: ["others", "people"], keeping: ["Id"])
        #expect(second?.soups == ["others"], "people is the first load's to fill")
        #expect(try indexNames(temporary, table: "TABLE_2").count < others.count)

        try first?.finish()
        #expect(try indexNames(temporary, table: "TABLE_1") == people)
        #expect(try indexNames(temporary, table: "TABLE_2").count < others.count, "the second load's soup waits for its own finish")
        #expect(try pendingLoads(temporary) == [#"{"soupName":"others"}"#])
        first = nil
        #expect(try FileLock.tryAcquire(path: lockPath) == nil, "the lock is held while a load of this process lives")

        try second?.finish()
        #expect(try indexNames(temporary, table: "TABLE_2") == others)
        #expect(try pendingLoads(temporary).isEmpty)
        second = nil
        withExtendedLifetime((first, second)) {}
        #expect(try FileLock.tryAcquire(path: lockPath) != nil, "the last load to go released it")
    }

    @Test func aDeadLoadersIndexesAreRebuiltByTheNextOpenAndALiveOnesAreNot() throws {
        let temporary = try makeStore()
        let before = try indexNames(temporary, table: "TABLE_1")
        var load = try temporary.store.beginBulkLoad(soups: ["people"], keeping: ["Id"])
        _ = try temporary.store.upsert(contentsOf: Self.people(0..<50), in: "people", externalIdPath: "Id")

        // Opened while the loader lives (it holds the lock): its indexes are its own business.
        _ = try temporary.reopen()
        #expect(try indexNames(temporary, table: "TABLE_1").count < before.count)
        #expect(try pendingLoads(temporary).count == 1)

        // The loader goes without finishing; its lock goes with it, as with a killed process.
        load = nil
        withExtendedLifetime(load) {}
        let next = try temporary.reopen()
        #expect(try indexNames(temporary, table: "TABLE_1") == before)
        #expect(try pendingLoads(temporary).isEmpty)
        #expect(try next.count(.exact("people", path: "Rank", matchKey: .int(0))) == 4)
        // Its full-text merges resume too.
        #expect(try fullTextMergeSettings(temporary) == ["automerge": 4, "crisismerge": 16])
    }

    @Test func aLoadLeftUnfinishedWhileTheStoreStaysOpenIsRebuiltByTheNextLoad() throws {
        let temporary = try makeStore()
        let people = try indexNames(temporary, table: "TABLE_1")
        // A load that ends without its finish (the finish failed), the store open all along (a TUI).
        var abandoned = try temporary.store.beginBulkLoad(soups: ["people"], keeping: ["Id"])
        abandoned = nil
        withExtendedLifetime(abandoned) {}
        #expect(try pendingLoads(temporary).count == 1)
        // The next load, of another soup, finds no load alive: it rebuilds the one left first.
        let next = try #require(try temporary.store.beginBulkLoad(soups: ["others"], keeping: ["Id"]))
        #expect(try indexNames(temporary, table: "TABLE_1") == people)
        #expect(try pendingLoads(temporary) == [#"{"soupName":"others"}"#])
        try next.finish()
        #expect(try pendingLoads(temporary).isEmpty)
    }

    @Test func aSoupDroppedDuringTheLoadIsSkippedWhenRebuilding() throws {
        let temporary = try makeStore()
        let load = try #require(try temporary.store.beginBulkLoad(soups: ["people"], keeping: ["Id"]))
        try temporary.store.dropSoup("people")
        try load.finish()
        #expect(try pendingLoads(temporary).isEmpty)
    }
}
