import Foundation
import GRDB
import SOQLSyntax
import Testing

@testable import LocalOrg

/// The index advisor: a large table filtered on an unindexed text field gets an index once, and
/// the query's plan uses it; a query's answer never depends on it.
@Suite("Filter indexes on large tables")
struct FilterIndexTests {
    static func org(threshold: Int64) throws -> (OrgStore, String) {
        let directory = NSTemporaryDirectory() + "localorg-filter-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let store = try OrgStore(path: directory + "/org.sqlite", schema: try OrgSchema.bundled(), filterIndexMinimumRows: threshold)
        _ = try Seeder.seed(store: store, accounts: 3, contacts: 300, randomSeed: 1)
        // Every seventh contact in Zürich, every fifth in Bern.
        let table = try #require(store.schema.object(named: "Contact")).tableName
        try store.writeNow { db in
            try db.execute(sql: "UPDATE \"\(table)\" SET \"MailingCity\" = 'Zürich' WHERE rowid % 7 = 0")
            try db.execute(sql: "UPDATE \"\(table)\" SET \"MailingCity\" = 'Bern' WHERE rowid % 7 <> 0 AND rowid % 5 = 0")
        }
        return (store, directory)
    }

    static func ids(_ engine: QueryEngine, _ soql: String) async throws -> Int {
        try await engine.query(soql, includeDeleted: false, batchSize: 2000, userId: "", apiVersion: "v62.0").totalSize
    }

    static func plan(_ store: OrgStore, _ soql: String) async throws -> String {
        let compiled = try SOQLCompiler.compile(try SOQLParser.parse(soql), schema: store.schema, includeDeleted: false, now: OrgStore.now())
        let rows = try await store.rows(sql: "EXPLAIN QUERY PLAN " + compiled.idsSQL, arguments: compiled.idsArguments)
        return rows.map { $0.compactMap(String.fromDatabaseValue).joined(separator: " ") }.joined(separator: "\n")
    }

    static func indexes(_ store: OrgStore) async throws -> Set<String> {
        Set(try await store.rows(sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE '%_filter'", arguments: []).compactMap { $0.first.flatMap(String.fromDatabaseValue) })
    }

    @Test("A non-ASCII equality gets an index on the folded column, an ASCII one on the column; the plans use them, ordered by LastModifiedDate as a sync asks; the answers are the same as before")
    func largeTable() async throws {
        let (store, directory) = try Self.org(threshold: 100)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let engine = QueryEngine(store: store)
        let zurich = "SELECT Id FROM Contact WHERE (MailingCity = 'Zürich') ORDER BY LastModifiedDate"
        let before = try await Self.plan(store, zurich)
        #expect(!before.contains("_filter"), "\(before)")
        #expect(try await Self.ids(engine, zurich) == 300 / 7)
        let table = try #require(store.schema.object(named: "Contact")).tableName
        #expect(try await Self.indexes(store) == ["\(table)_MailingCity_folded_filter"])
        let after = try await Self.plan(store, zurich)
        #expect(after.contains("USING INDEX \(table)_MailingCity_folded_filter"), "\(after)")
        // Case-folded as before: the index serves the same compare.
        #expect(try await Self.ids(engine, "SELECT Id FROM Contact WHERE MailingCity = 'ZÜRICH'") == 300 / 7)

        #expect(try await Self.ids(engine, "SELECT Id FROM Contact WHERE MailingCity IN ('bern', 'Oslo')") == 300 / 5 - 300 / 35)
        #expect(try await Self.indexes(store) == ["\(table)_MailingCity_folded_filter", "\(table)_MailingCity_filter"])
        let bern = try await Self.plan(store, "SELECT Id FROM Contact WHERE MailingCity = 'Bern' AND LastName != null")
        #expect(bern.contains("USING INDEX \(table)_MailingCity_filter"), "\(bern)")
        // A count and a negation: answered, nothing new indexed for the negation.
        #expect(try await Self.ids(engine, "SELECT COUNT() FROM Contact WHERE MailingCity = 'Zürich'") == 300 / 7)
        _ = try await Self.ids(engine, "SELECT Id FROM Contact WHERE MailingCity != 'Bern' AND Title NOT IN ('CEO')")
        #expect(try await Self.indexes(store).count == 2)
    }

    @Test("A table under the threshold is scanned: no index is made")
    func smallTable() async throws {
        let (store, directory) = try Self.org(threshold: OrgStore.filterIndexMinimumRows)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(try await Self.ids(QueryEngine(store: store), "SELECT Id FROM Contact WHERE MailingCity = 'Zürich'") == 300 / 7)
        #expect(try await Self.indexes(store).isEmpty)
    }
}
