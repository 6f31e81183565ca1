import ForceJSON
import Foundation
import GRDB
import Testing

@testable import SmartStore

@Suite("Entries: create, update, upsert, retrieve, delete")
struct EntryTests {
    func makeStore() throws -> TemporaryStore {
        let temporary = try TemporaryStore()
        try temporary.store.registerSoup(
            "test",
            indexSpecs: [
                IndexSpec(path: "key", type: .string),
                IndexSpec(path: "value", type: .string),
                IndexSpec(path: "nested.path", type: .string),
                IndexSpec(path: "amount", type: .floating),
                IndexSpec(path: "count", type: .integer),
                IndexSpec(path: "tag", type: .json1),
            ])
        return temporary
    }

    @Test func createAddsSystemFieldsAndFillsIndexColumns() throws {
        let temporary = try makeStore()
        let created = try temporary.store.create(["key": "ka", "value": "va", "nested": ["path": "deep"], "count": 3], in: "test")
        #expect(created["_soupEntryId"] == .int(1))
        let lastModified = try #require(created["_soupLastModifiedDate"]?.int64Value)
        #expect(abs(lastModified - SmartStore.currentTimeMillis()) < 60_000)
        #expect(created["_soupCreatedDate"] == nil, "the SDK never writes _soupCreatedDate into documents")
        let row = try temporary.raw { try Row.fetchOne($0, sql: "SELECT * FROM TABLE_1") }
        let stored = try #require(row)
        #expect(stored["TABLE_1_0"] as String? == "ka")
        #expect(stored["TABLE_1_2"] as String? == "deep")
        #expect(stored["TABLE_1_4"] as Int64? == 3)
        #expect(stored["created"] as Int64? == lastModified)
        #expect(stored["lastModified"] as Int64? == lastModified)
        #expect(try JSONParser.parse(stored["soup"] as String) == .object(created))
    }

    @Test("entries(whereIndexed:isOneOf:) finds the entries holding any of many values, on a column or a json1 index")
    func entriesByManyValues() throws {
        let temporary = try makeStore()
        let keys = (0..<1_200).map { "k\($0)" }
        _ = try temporary.store.create(keys.enumerated().map { ["key": .string($1), "tag": .string("t\($0 % 3)")] }, in: "test")
        let wanted = (0..<1_200).filter { $0 % 7 == 0 }.map { "k\($0)" } + ["absent", "k5' OR 1=1 --", "k5\"]"]
        let found = try temporary.store.write { try $0.entries(whereIndexed: "key", isOneOf: wanted, in: "test") }
        #expect(Set(found.compactMap { $0["key"]?.stringValue }) == Set(wanted.filter { keys.contains($0) }), "more values than one IN list of 500 held")
        #expect(found.allSatisfy { $0["_soupEntryId"] != nil }, "as stored")
        let tagged = try temporary.store.read { try $0.entries(whereIndexed: "tag", isOneOf: ["t1"], in: "test") }
        #expect(tagged.count == 400)
        #expect(try temporary.store.read { try $0.entries(whereIndexed: "key", isOneOf: [], in: "test") }.isEmpty)
        #expect(throws: SmartStoreError.notIndexed(soup: "test", path: "other")) {
            try temporary.store.read { try $0.entries(whereIndexed: "other", isOneOf: ["x"], in: "test") }
        }
    }

    @Test func createMultipleGetsConsecutiveIds() throws {
        let temporary = try makeStore()
        let created = try temporary.store.create([["key": "a"], ["key": "b"], ["key": "c"]], in: "test")
        #expect(created.map { $0["_soupEntryId"] } == [.int(1), .int(2), .int(3)])
    }

    @Test func updateChangesOneEntryAndRefreshesColumns() throws {
        let temporary = try makeStore()
        let created = try temporary.store.create([["key": "ka1", "value": "va1"], ["key": "ka2", "value": "va2"]], in: "test")
        let createdAt = try temporary.raw { try Int64.fetchOne($0, sql: "SELECT created FROM TABLE_1 WHERE id = 1") }
        Thread.sleep(forTimeInterval: 0.005)
        var changed = created[0]
        changed["value"] = "va1-changed"
        let updated = try #require(try temporary.store.update(changed, id: 1, in: "test"))
        #expect(updated["value"] == "va1-changed")
        #expect(try #require(updated["_soupLastModifiedDate"]?.int64Value) > (created[0]["_soupLastModifiedDate"]?.int64Value ?? 0))
        let rows = try temporary.raw { try Row.fetchAll($0, sql: "SELECT id, created, TABLE_1_1 AS value FROM TABLE_1 ORDER BY id") }
        #expect(rows.map { $0["value"] as String } == ["va1-changed", "va2"])
        #expect(rows[0]["created"] as Int64? == createdAt, "update keeps the creation time")
        #expect(try temporary.store.update(["key": "x"], id: 99, in: "test") == nil)
    }

    @Test func upsertInsertsWithoutIdAndUpdatesWithIt() throws {
        let temporary = try makeStore()
        let first = try temporary.store.upsert(["key": "ka"], in: "test")
        var again = first
        again["value"] = "now set"
        let second = try temporary.store.upsert(again, in: "test")
        #expect(second["_soupEntryId"] == first["_soupEntryId"])
        #expect(try temporary.store.count(.all("test")) == 1)
        #expect(throws: SmartStoreError.entryNotFound(soup: "test", id: 42)) {
            try temporary.store.upsert(["_soupEntryId": 42, "key": "ghost"], in: "test")
        }
    }

    @Test func upsertByExternalIdUpdatesTheMatchingEntry() throws {
        let temporary = try makeStore()
        _ = try temporary.store.upsert(["key": "ka", "value": "first"], in: "test", externalIdPath: "key")
        let second = try temporary.store.upsert(["key": "ka", "value": "second"], in: "test", externalIdPath: "key")
        #expect(second["_soupEntryId"] == .int(1))
        #expect(try temporary.store.retrieve([1], from: "test").first?["value"] == "second")
        // json1 paths work as external ids too
        _ = try temporary.store.upsert(["tag": "t1", "value": "a"], in: "test", externalIdPath: "tag")
        let viaJson1 = try temporary.store.upsert(["tag": "t1", "value": "b"], in: "test", externalIdPath: "tag")
        #expect(viaJson1["_soupEntryId"] == .int(2))
    }

    @Test func upsertByExternalIdErrorsAsTheSDKDoes() throws {
        let temporary = try makeStore()
        #expect(throws: SmartStoreError.notIndexed(soup: "test", path: "unindexed")) {
            try temporary.store.upsert(["unindexed": "x"], in: "test", externalIdPath: "unindexed")
        }
        #expect((SmartStoreError.notIndexed(soup: "test", path: "p").description).contains("does not have an index"))
        #expect(throws: SmartStoreError.emptyExternalIdValue(path: "key")) {
            try temporary.store.upsert(["value": "no key"], in: "test", externalIdPath: "key")
        }
        #expect(
            SmartStoreError.emptyExternalIdValue(path: "key").description
                == "For upsert with external ID path 'key', value cannot be empty for any entries.")
        _ = try temporary.store.create([["key": "dup"], ["key": "dup"]], in: "test")
        #expect(throws: SmartStoreError.nonUniqueExternalId(soup: "test", path: "key", value: "\"dup\"")) {
            try temporary.store.upsert(["key": "dup"], in: "test", externalIdPath: "key")
        }
        #expect(SmartStoreError.nonUniqueExternalId(soup: "s", path: "p", value: "v").description.contains("are more than one soup elements"))
    }

    @Test func aFailingBatchLeavesNothingBehind() throws {
        let temporary = try makeStore()
        _ = try temporary.store.create(["key": "existing"], in: "test")
        let batch: [JSONObject] = [["key": "n1"], ["key": "n2"], ["value": "no key"], ["key": "n4"]]
        #expect(throws: SmartStoreError.emptyExternalIdValue(path: "key")) {
            try temporary.store.upsert(batch, in: "test", externalIdPath: "key")
        }
        #expect(try temporary.store.count(.all("test")) == 1, "the batch is all or nothing")
    }

    @Test func retrieveSkipsMissingIdsAndReturnsWhatCreateReturned() throws {
        let temporary = try makeStore()
        let created = try temporary.store.create([["key": "a"], ["key": "b", "nested": ["path": "p"]]], in: "test")
        let retrieved = try temporary.store.retrieve([2, 7, 1], from: "test")
        #expect(retrieved.map { JSONValue.object($0) } == created.map { JSONValue.object($0) })
        #expect(try temporary.store.retrieve([99], from: "test").isEmpty)
    }

    @Test func deleteRemovesOnlyTheGivenIdsAndIdsAreNeverReused() throws {
        let temporary = try makeStore()
        _ = try temporary.store.create([["key": "a"], ["key": "b"], ["key": "c"]], in: "test")
        try temporary.store.delete([3], from: "test")
        try temporary.store.delete([2], from: "test")
        #expect(try temporary.store.retrieve([1, 2, 3], from: "test").map { $0["key"] } == ["a"])
        let next = try temporary.store.create(["key": "d"], in: "test")
        #expect(next["_soupEntryId"] == .int(4))
        try temporary.store.clearSoup("test")
        #expect(try temporary.store.create(["key": "e"], in: "test")["_soupEntryId"] == .int(5))
    }

    @Test func deleteByQueryRemovesAtMostOnePage() throws {
        let temporary = try makeStore()
        _ = try temporary.store.create([["key": "ka1"], ["key": "ka2"], ["key": "ka3"], ["key": "kb"]], in: "test")
        let spec = QuerySpec.range("test", path: "key", beginKey: "ka1", endKey: "ka3", orderPath: "key", pageSize: 2)
        let deleted = try temporary.store.delete(matching: spec, from: "test")
        #expect(deleted == [1, 2])
        #expect(try temporary.store.query(.all("test", orderPath: "key")).map { $0["key"] } == ["ka3", "kb"])
        // A smart query that outputs the entry id, as MobileSync writes them.
        let smart = QuerySpec.smart("SELECT {test:_soupEntryId} FROM {test} WHERE {test:key} = 'kb'", pageSize: 10)
        #expect(try temporary.store.delete(matching: smart, from: "test") == [4])
    }

    @Test func clearSoupEmptiesButKeepsTheSoup() throws {
        let temporary = try makeStore()
        _ = try temporary.store.create([["key": "a"], ["key": "b"]], in: "test")
        try temporary.store.clearSoup("test")
        #expect(try temporary.store.count(.all("test")) == 0)
        #expect(try temporary.store.hasSoup("test"))
    }

    @Test func nullsInIndexedFieldsRoundTrip() throws {
        let temporary = try makeStore()
        let created = try temporary.store.upsert(["key": .null, "value": "ka", "tag": .null], in: "test")
        #expect(try temporary.store.retrieve([1], from: "test") == [created])
        let rows = try temporary.store.query(.smart("SELECT {test:key}, {test:value} FROM {test}"))
        #expect(rows == [[.null, "ka"]])
    }

    @Test func specialCharactersRoundTripThroughStringAndJson1Indexes() throws {
        let temporary = try makeStore()
        for code in 1..<1000 {
            guard let scalar = Unicode.Scalar(code) else { continue }
            let text = "x\(Character(scalar))y"
            _ = try temporary.store.create(["key": .string(text), "tag": .string(text)], in: "test")
            let byString = try temporary.store.query(.exact("test", path: "key", matchKey: .string(text)))
            let byJson1 = try temporary.store.query(.exact("test", path: "tag", matchKey: .string(text)))
            #expect(byString.count == 1 && byString.first?["key"] == .string(text), "character \(code) via a string index")
            #expect(byJson1.count == 1, "character \(code) via a json1 index")
        }
    }

    @Test func integerAndFloatingExtremesRoundTrip() throws {
        let temporary = try makeStore()
        let values: [(Int64, Double)] = [(Int64.min, -Double.greatestFiniteMagnitude), (Int64.max, Double.greatestFiniteMagnitude), (0, 0.5)]
        for (integer, floating) in values {
            _ = try temporary.store.create(["count": .int(integer), "amount": .double(floating)], in: "test")
        }
        let rows = try temporary.store.query(.smart("SELECT {test:count}, {test:amount} FROM {test} ORDER BY {test:_soupEntryId}"))
        #expect(rows == values.map { [.int($0.0), .double($0.1)] })
        _ = try temporary.store.create(["count": 12.75], in: "test")
        let truncated = try temporary.store.query(.smart("SELECT {test:count} FROM {test} WHERE {test:_soupEntryId} = 4"))
        #expect(truncated == [[12]], "integer columns truncate doubles")
    }

    @Test func documentsKeepEveryFieldTheyWereGiven() throws {
        let temporary = try makeStore()
        let document: JSONObject = [
            "key": "k", "unknown": ["deep": [1, 2.5, "três", true, .null]], "emoji": "👩‍👩‍👧", "cjk": "山田太郎",
        ]
        let created = try temporary.store.create(document, in: "test")
        #expect(created.without("_soupEntryId", "_soupLastModifiedDate") == document)
        let back = try #require(try temporary.store.retrieve([1], from: "test").first)
        #expect(JSONValue.object(back.without("_soupEntryId", "_soupLastModifiedDate")) == .object(document))
    }

    /// The stamps (`_soupEntryId`, `_soupLastModifiedDate`) are written straight into the stored
    /// text and index columns, without stamping a copy first: what is stored must be exactly the
    /// stamped document, keys in place when the document had them and after its last key when not.
    @Test func storedTextAndColumnsAreTheStampedDocumentWhicheverWayItIsWritten() throws {
        let temporary = try TemporaryStore()
        try temporary.store.registerSoup(
            "stamped",
            indexSpecs: [
                IndexSpec(path: "_soupEntryId", type: .integer),
                IndexSpec(path: "_soupLastModifiedDate", type: .integer),
                IndexSpec(path: "key", type: .string),
                IndexSpec(path: "_soupEntryId.below", type: .string),
            ])
        let documents: [JSONObject] = [
            ["key": "plain", "n": 1.5, "s": "q\"uote\n"],
            ["_soupLastModifiedDate": 5, "key": "stale stamp first", "_soupEntryId": .null],
            [:],
            ["nested": ["_soupEntryId": 7], "key": "nested stamp stays"],
        ]
        let returned = try temporary.store.create(Array(documents.prefix(2)), in: "stamped")
        try temporary.store.upsert(contentsOf: documents.suffix(2), in: "stamped")
        let rows = try temporary.raw {
            try Row.fetchAll($0, sql: "SELECT id, soup, lastModified, TABLE_1_0, TABLE_1_1, TABLE_1_2, TABLE_1_3 FROM TABLE_1 ORDER BY id")
        }
        try #require(rows.count == documents.count)
        for (row, document) in zip(rows, documents) {
            let id: Int64 = row["id"]
            let now: Int64 = row["lastModified"]
            var expected = document
            expected["_soupEntryId"] = .int(id)
            expected["_soupLastModifiedDate"] = .int(now)
            #expect(row["soup"] as String == JSONWriter.string(expected), "entry \(id)")
            #expect(row["TABLE_1_0"] as Int64? == id)
            #expect(row["TABLE_1_1"] as Int64? == now)
            #expect(row["TABLE_1_2"] as String? == document["key"]?.stringValue)
            #expect(row["TABLE_1_3"] as String? == nil, "nothing lies below a stamp")
        }
        #expect(returned.map { JSONWriter.string($0) } == rows.prefix(2).map { $0["soup"] as String })
    }

    /// An update writes only the index columns whose values change, and the full-text row only when
    /// one of its words does. Whatever mix of fields a batch of updates changes (more different
    /// mixes than the writer keeps statements for), the columns and the full-text rows must end up
    /// exactly what a fresh write of each document would give.
    @Test func updatesOfAnyMixOfFieldsLeaveColumnsAndFullTextAsAFreshWriteWould() throws {
        let temporary = try TemporaryStore()
        let fields = ["name", "title", "city", "code", "rank", "score", "note"]
        try temporary.store.registerSoup(
            "mixed",
            indexSpecs: [
                IndexSpec(path: "name", type: .fullText), IndexSpec(path: "title", type: .fullText),
                IndexSpec(path: "city", type: .string), IndexSpec(path: "code", type: .string),
                IndexSpec(path: "rank", type: .integer), IndexSpec(path: "score", type: .floating),
                IndexSpec(path: "note", type: .fullText),
            ])
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: UInt64) -> UInt64 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return (seed >> 33) % bound
        }
        func value(_ field: String, _ n: UInt64) -> JSONValue {
            switch field {
            case "rank": .int(Int64(n))
            case "score": .double(Double(n) / 4)
            default: n % 5 == 0 ? .null : .string("\(field)\(n) wörd\(n % 7)")
            }
        }
        var documents: [JSONObject] = (0..<40).map { n in
            var document = JSONObject()
            for field in fields { document[field] = value(field, UInt64(n)) }
            return document
        }
        let ids = try temporary.store.create(documents, in: "mixed").compactMap { $0["_soupEntryId"]?.int64Value }
        for _ in 0..<4 {
            try temporary.store.write { transaction in
                for _ in 0..<150 {
                    let entry = Int(next(UInt64(documents.count)))
                    for field in fields where next(2) == 0 {
                        if next(6) == 0 { documents[entry][field] = nil } else { documents[entry][field] = value(field, next(50)) }
                    }
                    _ = try transaction.update(documents[entry], id: ids[entry], in: "mixed")
                }
            }
        }
        let columns = (0..<fields.count).map { "TABLE_1_\($0)" }.joined(separator: ", ")
        let stored = try temporary.raw { try Row.fetchAll($0, sql: "SELECT id, \(columns) FROM TABLE_1 ORDER BY id") }
        let fullText = try temporary.raw { try Row.fetchAll($0, sql: "SELECT rowid, * FROM TABLE_1_fts ORDER BY rowid") }
        try #require(stored.count == documents.count && fullText.count == documents.count)
        for (index, document) in documents.enumerated() {
            let row = stored[index]
            #expect(row["id"] as Int64 == ids[index])
            for (column, field) in fields.enumerated() {
                let expected = ColumnValue(projecting: document[field], as: ["rank": .integer, "score": .floating][field] ?? .string)
                #expect(row[column + 1] as DatabaseValue == expected.databaseValue, "entry \(index) \(field)")
            }
            let words = fullText[index]
            #expect(words["rowid"] as Int64 == ids[index])
            for (position, column) in [0, 1, 6].enumerated() {
                #expect(words[position + 1] as String? == document[fields[column]]?.stringValue, "entry \(index) words of \(fields[column])")
            }
        }
    }
}
