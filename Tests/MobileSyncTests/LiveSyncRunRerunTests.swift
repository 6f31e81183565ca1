import ForceJSON
import ForcetermServices
import Foundation
import LocalOrgProcess
import Synchronization
import Testing
@testable import MobileSync

/// A remote whose `lostAnswer`-th write request reaches the server and is applied, but whose
/// answer never comes back (a stall on a lossy link), once.
final class LostAnswerRemote: ForwardingRemote {
    let remote: any SyncRemote
    let lostAnswer: Int
    private let sends = Mutex(0)

    init(remote: any SyncRemote, lostAnswer: Int) {
        self.remote = remote
        self.lostAnswer = lostAnswer
    }

    func send(_ writes: [RecordWrite], route: WriteRoute) async throws(SyncRemoteError) -> [RecordOutcome] {
        let number = sends.withLock { $0 += 1; return $0 }
        let outcomes = try await remote.send(writes, route: route)
        if number == lostAnswer { throw .offline("the transfer stalled, after 20 s") }
        return outcomes
    }
}

@Suite("forceterm sync runs a sync up once more when the link lost an answer midway", .serialized)
struct LiveSyncRunRerunTests {
    @Test("An answer lost after others came: the same run sends the rest, nothing twice, and ends clean")
    func lostAnswerRerunOnce() async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        try live.server.command(["seed", "--contacts", "60"])
        try await live.syncDown()
        for record in try live.local.documents("contacts") { try live.saveLocally(Records.edited(record, ["Title": "Edited"]), in: "contacts") }
        for index in 0..<20 { try live.saveLocally(Records.created(nil, type: "Contact", fields: ["LastName": .string("Queued \(index)")]), in: "contacts") }
        let manager = try SyncManager(store: live.local.store, remote: LostAnswerRemote(remote: ForceClientRemote(client: live.client), lostAnswer: 2))
        let config = try SyncsConfig(contentsOf: SyncStore.packageRoot.appendingPathComponent("config/usersyncs.json"))
        let report = try await SyncRun(entries: config.entries, up: true, down: false, forceDelete: false)
            .run(manager: manager, store: live.local.store) { _ in }
        #expect(report.failure == nil, "\(String(describing: report.failure))")
        // No record counted twice over the two runs (those the lost answer covered may be found
        // done by the rerun's check rather than sent again).
        #expect(report.created <= 20 && report.updated <= 60 && report.refused == 0, "\(report)")
        #expect(try live.local.documents("contacts").allSatisfy { !$0.isDirty })
        let rows = try await live.client.query("SELECT LastName, Title FROM Contact").records
        let queued = rows.compactMap { $0["LastName"]?.stringValue }.filter { $0.hasPrefix("Queued") }
        #expect(rows.count == 80 && queued.count == 20 && Set(queued).count == 20)
        #expect(rows.filter { $0["Title"] == "Edited" }.count == 60)
    }

    @Test("An answer lost before any came is not tried again in the same run: the failure is reported at once")
    func firstAnswerLostNotRerun() async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        try live.server.command(["seed", "--contacts", "5"])
        try await live.syncDown()
        for record in try live.local.documents("contacts") { try live.saveLocally(Records.edited(record, ["Title": "Edited"]), in: "contacts") }
        let manager = try SyncManager(store: live.local.store, remote: LostAnswerRemote(remote: ForceClientRemote(client: live.client), lostAnswer: 1))
        let config = try SyncsConfig(contentsOf: SyncStore.packageRoot.appendingPathComponent("config/usersyncs.json"))
        let report = try await SyncRun(entries: config.entries, up: true, down: false, forceDelete: false)
            .run(manager: manager, store: live.local.store) { _ in }
        #expect(report.failure?.contains("syncUpContacts stopped") == true, "\(String(describing: report.failure))")
    }
}
