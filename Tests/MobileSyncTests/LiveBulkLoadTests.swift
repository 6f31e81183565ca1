import ForceJSON
import ForcetermServices
import Foundation
import GRDB
import SmartStore
import Synchronization
import Testing

@testable import MobileSync

/// A first sync down into an empty soup, large enough (here: `bulkLoadMinimum` lowered to 1),
/// defers the soup's indexes and builds them at the end; nothing else about the sync changes.
@Suite("Sync down into an empty soup with its indexes built at the end", .serialized)
struct LiveBulkLoadTests {
    /// Four pages of 200 from 700 contacts.
    static let target = SyncDownTarget.soql(
        "SELECT Id, FirstName, LastName, Title, Email, Department, MobilePhone, HomePhone, AccountId, LastModifiedDate FROM Contact",
        maxBatchSize: 200)

    static func indexNames(_ local: SyncStore) throws -> [String] { try indexNames(local.store) }

    static func indexNames(_ store: SmartStore) throws -> [String] {
        let table = try store.soupInfo("contacts").tableName
        return try DatabaseQueue(path: store.path).read {
            try String.fetchAll(
                $0, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL ORDER BY name",
                arguments: [table])
        }
    }

    /// The stored documents without SmartStore's own stamps, by Id.
    static func contents(_ local: SyncStore) throws -> [JSONObject] {
        try local.documents("contacts").map { document in
            var document = document
            for key in [SmartStore.soupEntryId, SmartStore.soupLastModifiedDate, SmartStore.soupCreatedDate, LocalField.syncId] {
                document.removeValue(forKey: key)
            }
            return document
        }.sorted { ($0["Id"]?.stringValue ?? "") < ($1["Id"]?.stringValue ?? "") }
    }

    @Test("The same records as a sync that indexes as it goes, the indexes deferred while it runs and all back after")
    func sameResultAsRecordByRecord() async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        _ = try await live.server.command(["seed", "--contacts", "700"])
        let complete = try Self.indexNames(live.local)
        let fewestSeen = Mutex(Int.max)
        let store = live.local.store
        let bulk = try SyncManager(store: live.local.store, remote: ForceClientRemote(client: live.client), bulkLoadMinimum: 1)
        let state = try await bulk.syncDown(Self.target, options: SyncOptions(mergeMode: .leaveIfChanged), soupName: "contacts") { _ in
            let seen = (try? Self.indexNames(store).count) ?? Int.max
            fewestSeen.withLock { $0 = min($0, seen) }
        }
        #expect(state.status == .done)
        #expect(fewestSeen.withLock { $0 } < complete.count, "the indexes were never deferred")
        #expect(try Self.indexNames(live.local) == complete)

        let plain = try SyncStore()
        let indexed = try SyncManager(store: plain.store, remote: ForceClientRemote(client: live.client), bulkLoadMinimum: .max)
        #expect(try await indexed.syncDown(Self.target, options: SyncOptions(mergeMode: .leaveIfChanged), soupName: "contacts").status == .done)
        let expected = try Self.contents(plain)
        #expect(expected.count == 700)
        #expect(try Self.contents(live.local) == expected)
        // Queries on every kind of index answer as on the store that indexed as it went.
        for path in ["LastName", "AccountId", "Email"] {
            let value = try #require(expected[350][path])
            #expect(
                try live.local.store.count(.exact("contacts", path: path, matchKey: value))
                    == plain.store.count(.exact("contacts", path: path, matchKey: value)), "\(path)")
        }
        let word = try #require(expected[123]["LastName"]?.stringValue)
        #expect(
            try live.local.store.count(.match("contacts", path: nil, matchKey: word))
                == plain.store.count(.match("contacts", path: nil, matchKey: word)))
    }

    @Test("A sync that fails midway still builds the indexes back, and its rerun finishes as usual")
    func failureMidwayRebuilds() async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        _ = try await live.server.command(["seed", "--contacts", "700"])
        let complete = try Self.indexNames(live.local)
        let dropping = SteppedRemote(
            remote: ForceClientRemote(client: live.client),
            beforeCall: { (call) async throws(SyncRemoteError) in
                if call == 3 { throw .offline("connection dropped before the request (test fault)") }
            },
            afterAnswer: { (_) async throws(SyncRemoteError) in })
        let failing = try SyncManager(store: live.local.store, remote: dropping, bulkLoadMinimum: 1)
        await #expect(throws: SyncRemoteError.self) {
            _ = try await failing.syncDown(Self.target, options: SyncOptions(mergeMode: .leaveIfChanged), soupName: "contacts", name: "bulk")
        }
        #expect(try await failing.getSyncStatus(name: "bulk")?.status == .failed)
        #expect(try Self.indexNames(live.local) == complete)
        let saved = try live.local.documents("contacts").count
        #expect(saved > 0 && saved < 700, "the pages before the fault stay: \(saved)")

        // The soup is no longer empty: the rerun indexes as it goes, and ends with every record.
        let rerun = try SyncManager(store: live.local.store, remote: ForceClientRemote(client: live.client), bulkLoadMinimum: 1)
        #expect(try await rerun.reSync(name: "bulk").status == .done)
        #expect(try live.local.documents("contacts").count == 700)
        #expect(try Self.indexNames(live.local) == complete)
    }

    @Test("Two empty soups filled side by side (a first sync's sync downs) each defer their indexes and get them back")
    func twoSoupsSideBySide() async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        _ = try await live.server.command(["seed", "--accounts", "450", "--contacts", "700"])
        let store = live.local.store
        let tables = try ["accounts", "contacts"].map { try store.soupInfo($0).tableName }
        let indexes = { (table: String) throws -> [String] in
            try DatabaseQueue(path: store.path).read {
                try String.fetchAll(
                    $0, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL ORDER BY name",
                    arguments: [table])
            }
        }
        let complete = try tables.map(indexes)
        let mostDeferred = Mutex(0)
        let watch: SyncManager.ProgressCallback = { _ in
            let rows = try? DatabaseQueue(path: store.path).read {
                try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM long_operations_status WHERE type = 'bulkLoad'")
            }
            mostDeferred.withLock { $0 = max($0, (rows ?? 0) ?? 0) }
        }
        let remote = SlowReadsRemote(remote: ForceClientRemote(client: live.client), delay: .milliseconds(100))
        let manager = try SyncManager(store: store, remote: remote, bulkLoadMinimum: 1)
        let options = SyncOptions(mergeMode: .leaveIfChanged)
        async let accounts = manager.syncDown(
            .soql("SELECT Id, Name, Phone, LastModifiedDate FROM Account", maxBatchSize: 200),
            options: options, soupName: "accounts", progress: watch)
        async let contacts = manager.syncDown(Self.target, options: options, soupName: "contacts", progress: watch)
        let states = try await [accounts, contacts]
        #expect(states.allSatisfy { $0.status == .done })
        #expect(mostDeferred.withLock { $0 } == 2, "both soups' indexes deferred at once")
        #expect(try tables.map(indexes) == complete)
        #expect(try live.local.documents("accounts").count == 450 && live.local.documents("contacts").count == 700)
    }
}
