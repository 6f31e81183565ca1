import ForceJSON
import ForcetermServices
import Foundation
import Synchronization
import Testing

@testable import MobileSync

/// `SyncManager.lastSyncDownSummary`: what a sync down's committed pages did, kept when the sync
/// fails or is stopped midway, and the progress it saved with them.
@Suite("Sync down tallies against a real localorg", .serialized)
struct LiveSyncDownSummaryTests {
    /// The manager a remote's hook stops, set once it exists.
    final class Stopper: Sendable {
        let manager = Mutex<SyncManager?>(nil)
        func stop() async { await manager.withLock { $0 }?.stop() }
    }

    @Test(
        "A sync down failing or stopped after its first page reports that page; the rerun reports the rest",
        arguments: [false, true])
    func talliesOfAnInterruptedSyncDown(stop: Bool) async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        try await live.server.command(["seed", "--contacts", "500"])
        let stopper = Stopper()
        // Call 1 is the first page (200 records), call 2 the next one, fetched while page 1 is written.
        let stepped = SteppedRemote(
            remote: ForceClientRemote(client: live.client), beforeCall: { _ in },
            afterAnswer: { (call) async throws(SyncRemoteError) in
                guard call == 2 else { return }
                if stop { await stopper.stop() } else { throw .offline("cut after the second page's answer") }
            })
        let manager = try SyncManager(store: live.local.store, remote: stepped)
        stopper.manager.withLock { $0 = manager }
        let sync = try await manager.createSyncDown(
            SyncDownTarget.soql("SELECT LastName FROM Contact", maxBatchSize: 200),
            options: SyncOptions(mergeMode: .leaveIfChanged), soupName: "contacts")
        let status: SyncStatus
        do {
            status = try await manager.reSync(id: sync.id).status
        } catch {
            status = try #require(try await manager.getSyncStatus(id: sync.id)).status
        }
        #expect(status == (stop ? .stopped : .failed))
        let interrupted = try #require(await manager.lastSyncDownSummary[sync.id])
        #expect(interrupted.stored == 200 && interrupted.received == 200, "\(interrupted)")
        #expect(try live.local.documents("contacts").count == 200)
        let saved = try #require(try await manager.getSyncStatus(id: sync.id))
        #expect(saved.progress == 40, "the progress of the page committed")
        let atTheMark = try live.local.documents("contacts").filter {
            $0["LastModifiedDate"]?.stringValue.flatMap(SalesforceTimestamp.parse) == saved.maxTimeStamp
        }.count
        #expect(atTheMark >= 1)

        // The rerun goes on from the mark saved with page 1: the other 300, and the records of the
        // mark's second again, skipped as unchanged (after a stop the SDK's 1 ms rewind of the mark
        // leaves them outside the boundary second, so they are written again).
        let rerun = try SyncManager(store: live.local.store, remote: ForceClientRemote(client: live.client))
        #expect(try await rerun.reSync(id: sync.id).status == .done)
        let rest = try #require(await rerun.lastSyncDownSummary[sync.id])
        #expect(rest.received == 300 + atTheMark && rest.keptLocalChanges == 0, "\(rest)")
        #expect(rest.unchanged == (stop ? 0 : atTheMark), "\(rest)")
        #expect(try live.local.documents("contacts").count == 500)
    }
}

extension LiveSyncDownSummaryTests {
    @Test("The sync's own changes coming back count as a new date only, not as news from the server")
    func ownChangesBackAreNotNews() async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        try await live.server.command(["seed", "--contacts", "20"])
        try await live.syncDown()
        let stored = try live.local.documents("contacts").sorted { ($0["Id"]?.stringValue ?? "") < ($1["Id"]?.stringValue ?? "") }
        for record in stored.prefix(3) { try live.saveLocally(Records.edited(record, ["Title": "Mine"]), in: "contacts") }
        let theirs = try #require(stored[10]["Id"]?.stringValue)
        try await LiveSync.nextSecond()
        try await live.server.command(["edit", "Contact", theirs, "Title=Theirs"])
        try await live.syncUp()
        _ = try await live.manager.reSync(name: "syncDownContacts")
        let id = try #require(try await live.manager.getSyncStatus(name: "syncDownContacts")?.id)
        let summary = try #require(await live.manager.lastSyncDownSummary[id])
        #expect(summary.heldAlready == 3, "\(summary)")
        #expect(summary.changedOnServer == 1, "\(summary)")
    }
}

extension LiveSyncDownSummaryTests {
    @Test("New contacts made here and sent up come back held already: their empty fields, missing here, are the server's nulls")
    func ownCreatesBackAreNotNews() async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        try await live.server.command(["seed", "--contacts", "5"])
        try await live.syncDown()
        for index in 0..<4 { try live.saveLocally(Records.created(nil, type: "Contact", fields: ["LastName": .string("Made here \(index)")]), in: "contacts") }
        try await live.syncUp()
        _ = try await live.manager.reSync(name: "syncDownContacts")
        let id = try #require(try await live.manager.getSyncStatus(name: "syncDownContacts")?.id)
        let summary = try #require(await live.manager.lastSyncDownSummary[id])
        #expect(summary.heldAlready == 4 && summary.changedOnServer == 0, "\(summary)")
    }
}
