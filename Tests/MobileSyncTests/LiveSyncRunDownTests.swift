import ForceJSON
import ForcetermServices
import Foundation
import Synchronization
import Testing

@testable import MobileSync

/// A remote whose every read takes `delay` longer (a slow link's round trip), counting how many
/// are out at once; with `offlineFor`, the queries whose SOQL contains it fail as a dead link does.
final class SlowReadsRemote: ForwardingRemote {
    let remote: any SyncRemote
    let delay: Duration
    let offlineFor: String?
    private let reads = Mutex((out: 0, most: 0))
    var mostAtOnce: Int { reads.withLock { $0.most } }

    init(remote: any SyncRemote, delay: Duration, offlineFor: String? = nil) {
        self.remote = remote
        self.delay = delay
        self.offlineFor = offlineFor
    }

    private func slowly<T>(_ read: () async throws(SyncRemoteError) -> T) async throws(SyncRemoteError) -> T {
        reads.withLock {
            $0.out += 1
            $0.most = max($0.most, $0.out)
        }
        defer { reads.withLock { $0.out -= 1 } }
        try? await Task.sleep(for: delay)
        return try await read()
    }

    func query(_ soql: String, batchSize: Int?) async throws(SyncRemoteError) -> RemoteQueryPage {
        if let offlineFor, soql.contains(offlineFor) { throw .offline("127.0.0.1: connection refused") }
        return try await slowly { () async throws(SyncRemoteError) in try await remote.query(soql, batchSize: batchSize) }
    }

    func queryMore(_ nextRecordsUrl: String) async throws(SyncRemoteError) -> RemoteQueryPage {
        try await slowly { () async throws(SyncRemoteError) in try await remote.queryMore(nextRecordsUrl) }
    }

    func resource(_ path: String, query: [(String, String)]) async throws(SyncRemoteError) -> JSONObject {
        try await slowly { () async throws(SyncRemoteError) in try await remote.resource(path, query: query) }
    }

    func resource(_ path: String, query: [(String, String)], unlessTagged etag: String?) async throws(SyncRemoteError) -> RemoteResource {
        try await slowly { () async throws(SyncRemoteError) in try await remote.resource(path, query: query, unlessTagged: etag) }
    }

    func send(_ writes: [RecordWrite], route: WriteRoute) async throws(SyncRemoteError) -> [RecordOutcome] {
        try await remote.send(writes, route: route)
    }
}

@Suite("forceterm sync runs its sync downs side by side", .serialized)
struct LiveSyncRunDownTests {
    static let config = SyncStore.packageRoot.appendingPathComponent("config/usersyncs.json")

    @Test("The sync downs' round trips overlap; the report lists each in the file's order")
    func sideBySide() async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        try await live.server.command(["seed", "--accounts", "3", "--contacts", "12"])
        let remote = SlowReadsRemote(remote: ForceClientRemote(client: live.client), delay: .milliseconds(300))
        let manager = try SyncManager(store: live.local.store, remote: remote)
        let config = try SyncsConfig(contentsOf: Self.config)
        let report = try await SyncRun(entries: config.entries, up: false, down: true, forceDelete: false)
            .run(manager: manager, store: live.local.store) { _ in }
        #expect(report.failure == nil, "\(String(describing: report.failure))")
        #expect(report.syncDowns.map(\.name) == config.entries.filter { $0.type == .syncDown }.map(\.name))
        #expect(remote.mostAtOnce >= 3, "the four sync downs asked at once, not one after another")
        #expect(try live.local.documents("contacts").count == 12 && live.local.documents("accounts").count == 3)
        #expect(report.received == 15, "the descriptions are not counted as records received")
        for entry in config.entries where entry.type == .syncDown {
            #expect(try SyncsSoup(store: live.local.store).state(name: entry.name)?.status == .done, "\(entry.name)")
        }
    }

    @Test("One sync down losing its link stops the run with its name; the others' records are stored and counted")
    func oneLinkFailure() async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        try await live.server.command(["seed", "--accounts", "3", "--contacts", "12"])
        let remote = SlowReadsRemote(remote: ForceClientRemote(client: live.client), delay: .milliseconds(50), offlineFor: "Description from Account")
        let manager = try SyncManager(store: live.local.store, remote: remote)
        let config = try SyncsConfig(contentsOf: Self.config)
        let report = try await SyncRun(entries: config.entries, up: false, down: true, forceDelete: false)
            .run(manager: manager, store: live.local.store) { _ in }
        #expect(report.failure?.hasPrefix("syncDownAccounts stopped: ") == true, "\(String(describing: report.failure))")
        #expect(report.offline)
        #expect(try live.local.documents("contacts").count == 12 && live.local.documents("accounts").isEmpty)
        #expect(report.received == 12)
        let syncs = try SyncsSoup(store: live.local.store)
        #expect(try syncs.state(name: "syncDownAccounts")?.status == .failed)
        #expect(try syncs.state(name: "syncDownContacts")?.status == .done)
    }
}
