import ForceJSON
import GRDB
import PropertyBased
import Testing

@testable import SmartStore

/// Any sequence of writes leaves the store equal to a plain dictionary model, and every index
/// column (and the FTS table) equal to its projection of the stored JSON.
@Suite("Store properties")
struct StorePropertyTests {
    static let specs = [
        IndexSpec(path: "key", type: .string),
        IndexSpec(path: "value", type: .fullText),
        IndexSpec(path: "n", type: .integer),
        IndexSpec(path: "flag", type: .string),
        IndexSpec(path: "tags.name", type: .string),
        IndexSpec(path: "score", type: .floating),
        IndexSpec(path: "meta", type: .json1),
    ]

    static func document(key: Int, seed: Int) -> JSONObject {
        var document: JSONObject = ["key": .string("k\(key)"), "value": .string("value \(seed) naïve")]
        if seed % 3 != 0 { document["n"] = .int(Int64(seed)) }
        if seed % 5 != 0 { document["flag"] = .bool(seed % 2 == 0) }
        document["tags"] = .array((0..<(seed % 3)).map { ["name": .string("t\($0)")] })
        document["score"] = seed % 7 == 0 ? .null : .double(Double(seed) / 4)
        document["meta"] = ["seed": .int(Int64(seed))]
        return document
    }

    @Test func writesMatchAModel() async throws {
        await propertyCheck(count: 40, input: Gen.int(in: 0...9_999).array(of: 1...40)) { operations in
            do {
                try Self.check(operations)
            } catch {
                Issue.record("operations \(operations) threw \(error)")
            }
        }
    }

    static func check(_ operations: [Int]) throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        try store.registerSoup("s", indexSpecs: specs)
        var model: [Int64: JSONObject] = [:]
        for operation in operations {
            let kind = operation % 4
            let key = (operation / 4) % 6
            let seed = operation / 24
            let ids = model.keys.sorted()
            switch kind {
            case 0:
                let created = try store.create(document(key: key, seed: seed), in: "s")
                model[created["_soupEntryId"]?.int64Value ?? -1] = created
            case 1:
                let matches = model.filter { $0.value["key"] == .string("k\(key)") }
                if matches.count > 1 {
                    #expect(throws: SmartStoreError.self) { try store.upsert(document(key: key, seed: seed), in: "s", externalIdPath: "key") }
                } else {
                    let stored = try store.upsert(document(key: key, seed: seed), in: "s", externalIdPath: "key")
                    let id = stored["_soupEntryId"]?.int64Value ?? -1
                    if let existing = matches.first { #expect(existing.key == id) }
                    model[id] = stored
                }
            case 2 where !ids.isEmpty:
                let id = ids[seed % ids.count]
                var changed = document(key: key, seed: seed + 1)
                changed["_soupEntryId"] = .int(id)
                model[id] = try store.upsert(changed, in: "s")
            case 3 where !ids.isEmpty:
                let id = ids[seed % ids.count]
                try store.delete([id], from: "s")
                model[id] = nil
            default:
                break
            }
        }
        let all = try store.query(.all("s", pageSize: 1000))
        let expected = model.keys.sorted().compactMap { model[$0] }.map(JSONValue.object)
        let sorted = all.sorted { ($0["_soupEntryId"]?.int64Value ?? 0) < ($1["_soupEntryId"]?.int64Value ?? 0) }
        #expect(sorted == expected)
        try checkColumns(temporary)
    }

    static func checkColumns(_ temporary: TemporaryStore) throws {
        let info = try temporary.store.soupInfo("s")
        try temporary.raw { db in
            let rows = try Row.fetchAll(db, sql: "SELECT * FROM \(info.tableName)")
            let fts = try Row.fetchAll(db, sql: "SELECT rowid, * FROM \(info.ftsTableName)")
            #expect(fts.count == rows.count)
            let ftsByRowid = Dictionary(uniqueKeysWithValues: fts.map { ($0[0] as Int64, $0) })
            for row in rows {
                let document = try JSONParser.parseObject(row["soup"])
                for spec in info.columnSpecs {
                    guard let column = spec.columnName else { continue }
                    let projected = ColumnValue(projecting: PathProjection.project(spec.path, in: document), as: spec.type).databaseValue
                    #expect(row[column] as DatabaseValue == projected, "\(spec.path) of \(document)")
                    if spec.type == .fullText {
                        #expect(ftsByRowid[row["id"]]?[column] as DatabaseValue? == projected)
                    }
                }
            }
        }
    }
}

@Suite("Path projection")
struct PathProjectionTests {
    let document: JSONObject = [
        "a": "top", "b": ["c": "nested", "d": .null], "list": [["x": 1], ["x": .null], ["y": 2], ["x": 3]],
        "empty": [],
    ]

    @Test func topLevelNestedAndThroughArrays() {
        #expect(PathProjection.project("a", in: document) == "top")
        #expect(PathProjection.project("b.c", in: document) == "nested")
        #expect(PathProjection.project("list.x", in: document) == [1, 3])
        #expect(PathProjection.project("list.z", in: document) == nil, "no element has it: null")
        #expect(PathProjection.project("", in: document) == .object(document))
    }

    @Test func missingAndNullAreBothAbsent() {
        #expect(PathProjection.project("b.d", in: document) == nil)
        #expect(PathProjection.project("b.missing", in: document) == nil)
        #expect(PathProjection.project("a.deeper", in: document) == nil)
    }

    @Test func columnValuesByType() {
        #expect(ColumnValue(projecting: true, as: .string) == .text("true"))
        #expect(ColumnValue(projecting: 12, as: .string) == .text("12"))
        #expect(ColumnValue(projecting: [1, 2], as: .string) == .text("[1,2]"))
        #expect(ColumnValue(projecting: "12", as: .integer) == .null, "a string is not a number")
        #expect(ColumnValue(projecting: 12.9, as: .integer) == .integer(12))
        #expect(ColumnValue(projecting: 3, as: .floating) == .real(3))
        #expect(ColumnValue(projecting: nil, as: .string) == .null)
    }
}
