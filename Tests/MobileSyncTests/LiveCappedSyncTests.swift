import ForceJSON
import Foundation
import SmartStore
import Testing

@testable import MobileSync

/// A capped query (a user's soql target with LIMIT) against a real localorg holding more records
/// than the cap: repeated syncs settle on the capped set (docs/mobilesync.md, "Capped queries").
@Suite("Capped sync down queries against a real localorg", .serialized)
struct LiveCappedSyncTests {
    static let cap = 120
    static let query = "SELECT FirstName, LastName, Title FROM Contact LIMIT \(cap)"

    /// 300 contacts in three collection requests: 60 in one second, then 200 started just after
    /// the next second boundary (so they share a modification second), then 40; then the first 30
    /// are edited. The capped set (the 120 oldest by modification time) is 30 of the first 60 and
    /// 90 of the 200: not the first 120 by id, which an unordered query may return, not what `>=`
    /// its newest time selects, and its boundary falls among records of one second.
    static func seed(_ live: LiveSync) async throws {
        var ids: [String] = []
        for (batch, size) in [60, 200, 40].enumerated() {
            if batch == 1 {
                try await LiveSync.nextSecond()
                while Date().timeIntervalSince1970.truncatingRemainder(dividingBy: 1) > 0.05 { try await Task.sleep(for: .milliseconds(5)) }
            }
            let records: [JSONObject] = (0..<size).map { ["attributes": ["type": "Contact"], "LastName": .string("Capped \(batch)-\($0)")] }
            let results = try await live.client.createRecords(records)
            #expect(results.count == size && results.allSatisfy(\.success))
            ids += results.compactMap(\.id)
        }
        try await LiveSync.nextSecond()
        let edits: [JSONObject] = ids.prefix(30).map { ["attributes": ["type": "Contact"], "Id": .string($0), "Title": "Edited early"] }
        #expect(try await live.client.updateRecords(edits).allSatisfy(\.success))
    }

    /// The ids the capped set holds on the server now, in its order, and their modification times.
    static func cappedSet(_ live: LiveSync) async throws -> [(id: String, modified: String)] {
        try await live.serverRecords("SELECT Id, LastModifiedDate FROM Contact ORDER BY LastModifiedDate, Id LIMIT \(cap)").map {
            ($0["Id"]?.stringValue ?? "", $0["LastModifiedDate"]?.stringValue ?? "")
        }
    }

    /// Runs the sync down and its ghost cleaning, as `forceterm sync` does.
    static func syncAndClean(_ live: LiveSync, _ id: Int64) async throws -> (SyncDownSummary, removed: Int) {
        let state = try await live.manager.reSync(id: id)
        #expect(state.status == .done)
        let summary = try #require(await live.manager.lastSyncDownSummary[id])
        return (summary, try await live.manager.cleanResyncGhosts(id: id))
    }

    @Test("Repeated syncs of a capped query store the capped set once, then change nothing; a server change moves one record")
    func repeatedSyncsSettle() async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        try await Self.seed(live)
        let sync = try await live.manager.createSyncDown(
            .soql(Self.query), options: SyncOptions(mergeMode: .leaveIfChanged),
            soupName: "contacts", name: "cappedContacts")
        let expected = try await Self.cappedSet(live)
        try #require(expected.count == Self.cap)
        let boundary = try await live.serverRecords(
            "SELECT Id, LastModifiedDate FROM Contact ORDER BY LastModifiedDate, Id LIMIT 2 OFFSET \(Self.cap - 1)")
        #expect(
            boundary.count == 2 && boundary[0]["LastModifiedDate"] == boundary[1]["LastModifiedDate"],
            "the cap falls inside a run of records sharing a modification time")
        #expect(expected[0].modified != expected[expected.count - 1].modified, "the set spans more than its newest second")

        let (first, firstRemoved) = try await Self.syncAndClean(live, sync.id)
        #expect(first.stored == Self.cap && first.unchanged == 0 && firstRemoved == 0)
        #expect(Set(try live.local.documents("contacts").compactMap { $0["Id"]?.stringValue }) == Set(expected.map(\.id)))
        let written = try live.local.documents("contacts").map { $0[SmartStore.soupLastModifiedDate] }

        for run in 2...3 {
            let (summary, removed) = try await Self.syncAndClean(live, sync.id)
            #expect(summary.stored == 0 && summary.unchanged == Self.cap && removed == 0, "run \(run): \(summary), \(removed) removed")
            #expect(
                try live.local.documents("contacts").map { $0[SmartStore.soupLastModifiedDate] } == written,
                "run \(run): nothing rewritten")
        }
        let state = try #require(try await live.manager.getSyncStatus(id: sync.id))
        #expect(
            state.maxTimeStamp == SalesforceTimestamp.parse(expected[expected.count - 1].modified),
            "the mark is the newest of the set, recorded at the end of each run")

        // Another user edits the oldest record of the set: it becomes the newest, leaves the set,
        // and the next record after the cap takes its place.
        try await LiveSync.nextSecond()
        let leaving = expected[0].id
        try await live.client.update("Contact", id: leaving, fields: ["Title": "Edited on the server"])
        let now = try await Self.cappedSet(live)
        #expect(!now.map(\.id).contains(leaving) && Set(now.map(\.id)).subtracting(expected.map(\.id)).count == 1)
        let (moved, movedRemoved) = try await Self.syncAndClean(live, sync.id)
        #expect(moved.stored == 1 && moved.unchanged == Self.cap - 1 && movedRemoved == 1, "\(moved), \(movedRemoved) removed")
        #expect(Set(try live.local.documents("contacts").compactMap { $0["Id"]?.stringValue }) == Set(now.map(\.id)))
    }
}
