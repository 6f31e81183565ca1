import ForceJSON
import ForcetermServices
import Foundation
import Synchronization
import Testing

@testable import MobileSync

/// LEAVE_IF_CHANGED updates and deletes travel as composite requests of 25; several of them are in
/// flight at once (`SyncManager.requestConcurrency`, a new one leaving as each answer is recorded)
/// while order between actions, per-record outcomes and conflicts stay as with one request at a time.
@Suite("Concurrent composite requests")
struct ConcurrentCompositeTests {
    private static func request(_ action: PlannedWrite.Action, _ route: WriteRoute, entry: Int64) -> WriteRequest {
        let write: RecordWrite =
            switch action {
            case .delete: .delete(sobjectType: "Contact", id: "003\(entry)", ifUnmodifiedSince: 1)
            case .update: .update(sobjectType: "Contact", id: "003\(entry)", fields: [:], ifUnmodifiedSince: 1)
            case .create, .upsert: .create(sobjectType: "Contact", fields: [:])
            }
        return WriteRequest(route: route, writes: [PlannedWrite(entryId: entry, action: action, recordId: "003\(entry)", write: write)])
    }

    @Test("Consecutive composite or collection requests of one route and action form one run; single ones travel alone")
    func runs() {
        let requests =
            [
                Self.request(.delete, .composite, entry: 1), Self.request(.delete, .composite, entry: 2),
                Self.request(.create, .collection, entry: 3), Self.request(.create, .collection, entry: 4),
            ]
            + (5...24).map { Self.request(.update, .composite, entry: $0) }
            + [Self.request(.update, .single, entry: 25), Self.request(.update, .single, entry: 26)]
        let runs: [[Int64]] = SyncUpTask.runs(requests).map { $0.map { $0.writes[0].entryId } }
        let expected: [[Int64]] = [[1, 2], [3, 4], Array(5...24), [25], [26]]
        #expect(runs == expected)
        // Composite creates (the batch target) and updates never share a run.
        let mixed = [Self.request(.create, .composite, entry: 1), Self.request(.update, .composite, entry: 2)]
        #expect(SyncUpTask.runs(mixed).map(\.count) == [1, 1])
        // Nor do a collection and a composite request of one action (plain and conditional deletes).
        let routes = [Self.request(.delete, .collection, entry: 1), Self.request(.delete, .composite, entry: 2)]
        #expect(SyncUpTask.runs(routes).map(\.count) == [1, 1])
    }

    @Test("Against localorg: deletes finish before updates start, several composites overlap, a conflict is kept")
    func liveOverlap() async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        var ids: [String] = []
        for start in stride(from: 0, to: 130, by: 26) {
            let records: [JSONObject] = (start..<start + 26).map { index in
                ["attributes": ["type": "Contact"], "LastName": .string(String(format: "Many %03d", index)), "Title": "Before"]
            }
            ids += try await live.client.createRecords(records).compactMap(\.id)
        }
        #expect(ids.count == 130)
        try await live.syncDown()
        try await LiveSync.nextSecond()
        let contested = ids[60]
        try await live.server.command(["edit", "Contact", contested, "Title=Server"])

        let deleted = Set(ids.prefix(30))
        for id in ids {
            let stored = try #require(try live.local.document("contacts", id: id))
            try live.saveLocally(
                deleted.contains(id) ? Records.edited(stored, delete: true) : Records.edited(stored, ["Title": "Mine"]),
                in: "contacts")
        }
        // 30 deletes (2 composites) then 100 updates (4 composites), each group sent at once.
        let remote = OverlapRecordingRemote(remote: ForceClientRemote(client: live.client))
        let manager = try SyncManager(store: live.local.store, remote: remote)
        let state = try await manager.reSync(name: "syncUpContacts")
        #expect(state.status == .done, "\(state.error)")
        let summary = try #require(await manager.lastSyncUpSummary[state.id])
        #expect(summary.deleted == 30 && summary.updated == 99 && summary.conflicts == 1)

        let log = remote.log
        #expect(log.maxInFlight >= 2 && log.maxInFlight <= SyncManager.defaultRequestConcurrency, "\(log.maxInFlight)")
        let lastDeleteEnd = try #require(log.calls.filter { $0.action == .delete }.map(\.end).max())
        let firstUpdateStart = try #require(log.calls.filter { $0.action == .update }.map(\.start).min())
        #expect(lastDeleteEnd < firstUpdateStart)
        #expect(log.calls.count == 6)

        let server = try await live.serverRecords("SELECT Id, Title FROM Contact")
        #expect(server.count == 100)
        #expect(server.allSatisfy { $0["Title"] == ($0["Id"]?.stringValue == contested ? "Server" : "Mine") })
        let conflict = try #require(try live.local.document("contacts", id: contested))
        #expect(conflict.hasConflict && conflict["Title"] == "Mine" && conflict[LocalField.conflict]?["server"]?["Title"] == "Server")
        let contacts = try live.local.documents("contacts")
        #expect(contacts.count == 100 && contacts.filter(\.isDirty).count == 1)
    }
    @Test("Against localorg: a request leaves as soon as an earlier one is answered, never more than the concurrency at once")
    func liveSlidingWindow() async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        var ids: [String] = []
        for start in stride(from: 0, to: 100, by: 25) {
            let records: [JSONObject] = (start..<start + 25).map { index in
                ["attributes": ["type": "Contact"], "LastName": .string(String(format: "Slide %03d", index)), "Title": "Before"]
            }
            ids += try await live.client.createRecords(records).compactMap(\.id)
        }
        #expect(ids.count == 100)
        try await live.syncDown()
        for id in ids {
            let stored = try #require(try live.local.document("contacts", id: id))
            try live.saveLocally(Records.edited(stored, ["Title": "Mine"]), in: "contacts")
        }
        // 100 updates: 4 composites, at most 2 in flight. The first is held until a third has left,
        // which happens only if the second's answer lets the third go while the first is out.
        let remote = HoldFirstRemote(remote: ForceClientRemote(client: live.client), until: 3)
        let manager = try SyncManager(store: live.local.store, remote: remote, requestConcurrency: 2)
        let state = try await manager.reSync(name: "syncUpContacts")
        #expect(state.status == .done, "\(state.error)")
        #expect(await manager.lastSyncUpSummary[state.id]?.updated == 100)
        let log = remote.log
        #expect(log.sends == 4)
        #expect(log.maxInFlight == 2)
        #expect(log.startedWhileFirstHeld, "the third request waited for the first: requests left in fixed groups")
        let server = try await live.serverRecords("SELECT Id, Title FROM Contact")
        #expect(server.count == 100 && server.allSatisfy { $0["Title"] == "Mine" })
        #expect(try live.local.documents("contacts").filter(\.isDirty).isEmpty)
    }
}

/// The real remote, holding its first write request (up to 30 s) until the `until`-th has started,
/// and counting how many are in flight at once.
final class HoldFirstRemote: ForwardingRemote {
    struct Log: Sendable {
        var sends = 0
        var inFlight = 0
        var maxInFlight = 0
        var startedWhileFirstHeld = false
        var firstDone = false
    }

    let remote: any SyncRemote
    let until: Int
    private let state = Mutex(Log())

    init(remote: any SyncRemote, until: Int) {
        self.remote = remote
        self.until = until
    }

    var log: Log { state.withLock { $0 } }

    func send(_ writes: [RecordWrite], route: WriteRoute) async throws(SyncRemoteError) -> [RecordOutcome] {
        let number = state.withLock { log in
            log.sends += 1
            log.inFlight += 1
            log.maxInFlight = max(log.maxInFlight, log.inFlight)
            if log.sends == until && !log.firstDone { log.startedWhileFirstHeld = true }
            return log.sends
        }
        if number == 1 {
            let deadline = ContinuousClock.now + .seconds(30)
            while state.withLock({ $0.sends < until }), ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(10))
            }
        }
        defer {
            state.withLock { log in
                log.inFlight -= 1
                if number == 1 { log.firstDone = true }
            }
        }
        return try await remote.send(writes, route: route)
    }
}

/// The real remote, recording when each write request starts and ends (in one sequence) and how
/// many overlap. A composite send waits (up to 30 s) until a second one is in flight, so a sync
/// that sends several at once is seen to, however the machine schedules it; a sync that sent one
/// at a time would be held 30 s per request and fail the overlap check.
final class OverlapRecordingRemote: ForwardingRemote {
    struct Call: Sendable {
        var action: PlannedWrite.Action
        var start: Int
        var end: Int
    }
    struct Log: Sendable {
        var calls: [Call] = []
        var inFlight = 0
        var maxInFlight = 0
        var clock = 0
    }

    let remote: any SyncRemote
    private let state = Mutex(Log())

    init(remote: any SyncRemote) { self.remote = remote }

    var log: Log { state.withLock { $0 } }

    func send(_ writes: [RecordWrite], route: WriteRoute) async throws(SyncRemoteError) -> [RecordOutcome] {
        let action: PlannedWrite.Action =
            switch writes.first {
            case .delete: .delete
            case .update: .update
            default: .create
            }
        let start = state.withLock { log in
            log.clock += 1
            log.inFlight += 1
            log.maxInFlight = max(log.maxInFlight, log.inFlight)
            return log.clock
        }
        if route == .composite {
            let deadline = ContinuousClock.now + .seconds(30)
            while state.withLock({ $0.maxInFlight < 2 }), ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(10))
            }
        }
        defer {
            state.withLock { log in
                log.clock += 1
                log.inFlight -= 1
                log.calls.append(Call(action: action, start: start, end: log.clock))
            }
        }
        return try await remote.send(writes, route: route)
    }
}

/// A test remote that looks at some calls: every call it does not define goes straight to `remote`.
protocol ForwardingRemote: SyncRemote {
    var remote: any SyncRemote { get }
}

extension ForwardingRemote {
    func query(_ soql: String, batchSize: Int?) async throws(SyncRemoteError) -> RemoteQueryPage {
        try await remote.query(soql, batchSize: batchSize)
    }

    func queryMore(_ nextRecordsUrl: String) async throws(SyncRemoteError) -> RemoteQueryPage { try await remote.queryMore(nextRecordsUrl) }
    func search(_ sosl: String) async throws(SyncRemoteError) -> [JSONObject] { try await remote.search(sosl) }
    func recentItemIds(sobjectType: String) async throws(SyncRemoteError) -> [String] { try await remote.recentItemIds(sobjectType: sobjectType) }

    func retrieve(sobjectType: String, ids: [String], fields: [String]) async throws(SyncRemoteError) -> [JSONObject?] {
        try await remote.retrieve(sobjectType: sobjectType, ids: ids, fields: fields)
    }

    func primingRecords(relayToken: String?, changedAfter: Int64?) async throws(SyncRemoteError) -> BriefcasePrimingPage {
        try await remote.primingRecords(relayToken: relayToken, changedAfter: changedAfter)
    }

    func resource(_ path: String, query: [(String, String)]) async throws(SyncRemoteError) -> JSONObject {
        try await remote.resource(path, query: query)
    }

    var signedInUserId: String? { get async { await remote.signedInUserId } }
}
