import ForceJSON
import ForcetermServices
import Foundation
import LocalOrgProcess
import Synchronization
import Testing

@testable import MobileSync

/// A remote whose `lostAnswer`-th write request reaches the server and is applied, but whose
/// answer never comes back (a stall on a lossy link), once; or, with `arrives` false, whose
/// connection is refused so that the request never leaves.
final class LostAnswerRemote: ForwardingRemote {
    let remote: any SyncRemote
    let lostAnswer: Int
    let arrives: Bool
    let sends = Mutex(0)

    init(remote: any SyncRemote, lostAnswer: Int, arrives: Bool = true) {
        self.remote = remote
        self.lostAnswer = lostAnswer
        self.arrives = arrives
    }

    func send(_ writes: [RecordWrite], route: WriteRoute) async throws(SyncRemoteError) -> [RecordOutcome] {
        let number = sends.withLock {
            $0 += 1
            return $0
        }
        if number == lostAnswer && !arrives { throw .offline("127.0.0.1: connection refused") }
        let outcomes = try await remote.send(writes, route: route)
        if number == lostAnswer { throw .offline("the transfer stalled, after 20 s", requestMayHaveArrived: true) }
        return outcomes
    }
}

@Suite("forceterm sync runs a sync up once more when the link lost an answer midway", .serialized)
struct LiveSyncRunRerunTests {
    @Test("An answer lost after others came: the same run sends the rest, nothing twice, and ends clean")
    func lostAnswerRerunOnce() async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        try await live.server.command(["seed", "--contacts", "60"])
        try await live.syncDown()
        for record in try live.local.documents("contacts") { try live.saveLocally(Records.edited(record, ["Title": "Edited"]), in: "contacts") }
        for index in 0..<20 { try live.saveLocally(Records.created(nil, type: "Contact", fields: ["LastName": .string("Queued \(index)")]), in: "contacts") }
        let manager = try SyncManager(store: live.local.store, remote: LostAnswerRemote(remote: ForceClientRemote(client: live.client), lostAnswer: 2))
        let config = try SyncsConfig(contentsOf: SyncStore.packageRoot.appendingPathComponent("config/usersyncs.json"))
        let report = try await SyncRun(entries: config.entries, up: true, down: false, forceDelete: false)
            .run(manager: manager, store: live.local.store) { _ in }
        #expect(report.failure == nil, "\(String(describing: report.failure))")
        // Each record counted once over the two runs: those the lost answer covered are found done
        // by the rerun's check (the creates by their lookup) and counted there.
        #expect(report.created == 20 && report.updated == 60 && report.refused == 0 && report.sent == 80, "\(report)")
        // Those the lost answer covered are said as found done, so the user knows nothing went twice.
        #expect(report.confirmedAfterLostAnswer > 0 && report.confirmedAfterLostAnswer < 80, "\(report)")
        #expect(report.text.contains("of the created and updated found done on the server after their answer was lost, not sent twice"), "\(report.text)")
        #expect(try live.local.documents("contacts").allSatisfy { !$0.isDirty })
        let rows = try await live.client.query("SELECT LastName, Title FROM Contact").records
        let queued = rows.compactMap { $0["LastName"]?.stringValue }.filter { $0.hasPrefix("Queued") }
        #expect(rows.count == 80 && queued.count == 20 && Set(queued).count == 20)
        #expect(rows.filter { $0["Title"] == "Edited" }.count == 60)
    }

    @Test("The first answer lost: the same run checks the server's copies, sends the rest, and creates nothing twice")
    func firstAnswerLostRerun() async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        try await live.server.command(["seed", "--contacts", "5"])
        try await live.syncDown()
        for index in 0..<3 { try live.saveLocally(Records.created(nil, type: "Contact", fields: ["LastName": .string("Queued \(index)")]), in: "contacts") }
        for record in try live.local.documents("contacts") where record["Id"]?.stringValue != nil {
            try live.saveLocally(Records.edited(record, ["Title": "Edited"]), in: "contacts")
        }
        let remote = LostAnswerRemote(remote: ForceClientRemote(client: live.client), lostAnswer: 1)
        let manager = try SyncManager(store: live.local.store, remote: remote)
        let config = try SyncsConfig(contentsOf: SyncStore.packageRoot.appendingPathComponent("config/usersyncs.json"))
        var run = SyncRun(entries: config.entries, up: true, down: false, forceDelete: false)
        let notes = Mutex<[String]>([])
        run.onRerun = { note in notes.withLock { $0.append(note) } }
        let report = try await run.run(manager: manager, store: live.local.store) { _ in }
        #expect(notes.withLock { $0 } == ["syncUpContacts: the link lost an answer; running it once more, first checking what reached the server"])
        #expect(report.failure == nil, "\(String(describing: report.failure))")
        #expect(remote.sends.withLock { $0 } > 1, "run again after the lost answer")
        #expect(report.created == 3 && report.updated == 5 && report.sent == 8, "what the lost answer covered is counted once: \(report)")
        #expect(try live.local.documents("contacts").allSatisfy { !$0.isDirty })
        let rows = try await live.client.query("SELECT LastName, Title FROM Contact").records
        let queued = rows.compactMap { $0["LastName"]?.stringValue }.filter { $0.hasPrefix("Queued") }
        #expect(rows.count == 8 && queued.count == 3 && Set(queued).count == 3, "\(rows)")
        #expect(rows.filter { $0["Title"] == "Edited" }.count == 5)
    }

    @Test("A first connection refused is not tried again in the same run: the failure is reported at once")
    func firstConnectionRefusedNotRerun() async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        try await live.server.command(["seed", "--contacts", "5"])
        try await live.syncDown()
        for record in try live.local.documents("contacts") { try live.saveLocally(Records.edited(record, ["Title": "Edited"]), in: "contacts") }
        let remote = LostAnswerRemote(remote: ForceClientRemote(client: live.client), lostAnswer: 1, arrives: false)
        let manager = try SyncManager(store: live.local.store, remote: remote)
        let config = try SyncsConfig(contentsOf: SyncStore.packageRoot.appendingPathComponent("config/usersyncs.json"))
        let report = try await SyncRun(entries: config.entries, up: true, down: false, forceDelete: false)
            .run(manager: manager, store: live.local.store) { _ in }
        #expect(report.failure?.contains("syncUpContacts stopped") == true, "\(String(describing: report.failure))")
        #expect(remote.sends.withLock { $0 } == 1, "no second try on a link that refused the first")
        #expect(try live.local.documents("contacts").allSatisfy(\.isDirty), "nothing reached the server: every change still queued")
    }
}
