import ForceAPI
import ForceJSON
import ForcetermServices
import Foundation
import LocalOrgProcess
import Synchronization
import Testing

@testable import MobileSync

/// Counts token refreshes heard from ForceClient.
final class RefreshCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func heard(_: OAuthCredentials) { lock.withLock { count += 1 } }
    var refreshes: Int { lock.withLock { count } }
}

@Suite("Sync against a faulty localorg", .serialized)
struct LiveSyncFaultTests {
    /// LastNames of the server's contacts, sorted, duplicates kept.
    static func serverNames(_ live: LiveSync, client: ForceClient? = nil) async throws -> [String] {
        let rows = try await (client ?? live.client).query("SELECT LastName FROM Contact ORDER BY LastName").records
        return rows.compactMap { $0["LastName"]?.stringValue }
    }

    @Test("503s on reads and idempotent writes are retried; the sync ends DONE without an error")
    func idempotentCallsRetried() async throws {
        // Three refusals: the first query is tried four times and then answers.
        let live = try await LiveSync(serverArguments: ["--fail-first", "3"], retryPolicy: RetryPolicy())
        defer { live.remove() }
        try await live.server.command(["seed", "--contacts", "5"])
        let down = try await live.manager.reSync(name: "syncDownContacts")
        #expect(down.status == .done && down.error.isEmpty, "\(down.error)")
        #expect(try live.local.documents("contacts").count == 5)
    }

    @Test(
        "A 503 on a create is not retried blindly; the rerun creates each record exactly once",
        arguments: SyncUpTarget.Mode.allCases)
    func createNeverDuplicated(mode: SyncUpTarget.Mode) async throws {
        let live = try await LiveSync(serverArguments: ["--fail-first", "1"], retryPolicy: RetryPolicy())
        defer { live.remove() }
        try live.useSyncUpMode(mode, for: "syncUpContacts")
        for index in 0..<3 { try live.saveLocally(Records.created(nil, type: "Contact", fields: ["LastName": .string("New \(index)")]), in: "contacts") }
        do {
            _ = try await live.manager.reSync(name: "syncUpContacts")
            Issue.record("\(mode): a create refused with 503 was retried or ignored")
        } catch let error as SyncRemoteError {
            guard case .server(503, _, _) = error else {
                Issue.record("\(mode): expected a 503, got \(error)")
                return
            }
        }
        #expect(try live.local.documents("contacts").allSatisfy(\.isDirty), "\(mode)")
        #expect(try await live.manager.reSync(name: "syncUpContacts").status == .done, "\(mode)")
        #expect(try await Self.serverNames(live) == ["New 0", "New 1", "New 2"], "\(mode)")
        #expect(try live.local.documents("contacts").allSatisfy { !$0.isDirty && $0[LocalField.createInFlight] == nil }, "\(mode)")
    }

    @Test("A lost answer to the create of a contact under an offline account is recognised, not sent twice")
    func lostCreateWithRewrittenReference() async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        try live.saveLocally(Records.created("local_account_9", type: "Account", fields: ["Name": "Offline Ltd"]), in: "accounts")
        try live.saveLocally(Records.created(nil, type: "Contact", fields: ["LastName": "Once", "AccountId": "local_account_9"]), in: "contacts")
        #expect(try await live.manager.reSync(name: "syncUpAccounts").status == .done)
        // The contact's create reaches the server; its answer does not come back.
        let losing = DroppingRemote.wrapping(ForceClientRemote(client: live.client), dice: DroppingRemote.Dice(seed: 1), dropBefore: 0, dropAfter: 1)
        await #expect(throws: SyncRemoteError.self) { _ = try await SyncManager(store: live.local.store, remote: losing).reSync(name: "syncUpContacts") }
        #expect(try await live.manager.reSync(name: "syncUpContacts").status == .done)
        let rows = try await live.serverRecords("SELECT Id, AccountId FROM Contact WHERE LastName = 'Once'")
        let account = try await live.serverRecords("SELECT Id FROM Account WHERE Name = 'Offline Ltd'")
        #expect(rows.count == 1, "\(rows)")
        #expect(rows.first?["AccountId"] == account.first?["Id"])
        let contact = try #require(try live.local.documents("contacts").first)
        #expect(!contact.isDirty && contact["Id"] == rows.first?["Id"])
    }

    @Test("Random 503s (a third of the calls): reruns converge on the same state, nothing duplicated")
    func randomFailuresConverge() async throws {
        let live = try await LiveSync(serverArguments: ["--fail-rate", "0.35"], retryPolicy: RetryPolicy())
        defer { live.remove() }
        try await live.server.command(["seed", "--contacts", "6"])
        try live.useSyncUpMode(.batch, for: "syncUpContacts")
        for index in 0..<40 { try live.saveLocally(Records.created(nil, type: "Contact", fields: ["LastName": .string("Zed \(index)")]), in: "contacts") }
        var runs = 0
        var finished = false
        while !finished, runs < 60 {
            runs += 1
            do {
                try await live.syncAll()
                finished = true
            } catch is SyncRemoteError {
                continue
            }
        }
        #expect(finished, "no sync finished in \(runs) runs")
        // Read the result from the same org without injected faults.
        live.server.stop()
        let calm = try await LocalOrgProcess(dataDirectory: live.server.dataDirectory)
        defer { calm.stop() }
        let names = try await Self.serverNames(live, client: try await LiveSync.signIn(to: calm))
        let created = names.filter { $0.hasPrefix("Zed ") }
        #expect(names.count == 46 && created.count == 40 && Set(created).count == 40, "\(names)")
        let contacts = try live.local.documents("contacts")
        #expect(contacts.count == 46 && contacts.allSatisfy { !$0.isDirty && $0[LocalField.lastError] == nil })
        #expect(Set(contacts.compactMap { $0["Id"]?.stringValue }).count == 46)
    }

    @Test("An access token that expires mid-sync is refreshed transparently", arguments: SyncUpTarget.Mode.allCases)
    func tokenExpiresMidSync(mode: SyncUpTarget.Mode) async throws {
        let refreshes = RefreshCounter()
        // Whole-second expiry: a 6 s token lives at least 5 s, enough to sign in, and a refreshed one
        // outlives its replay on a machine loaded by parallel suites (4 s was seen to fall short
        // once the model-based property ran beside it).
        let live = try await LiveSync(serverArguments: ["--token-ttl", "6"], onRefresh: { refreshes.heard($0) })
        defer { live.remove() }
        try await live.server.command(["seed", "--contacts", "3"])
        try live.useSyncUpMode(mode, for: "syncUpContacts")
        for index in 0..<4 { try live.saveLocally(Records.created(nil, type: "Contact", fields: ["LastName": .string("Late \(index)")]), in: "contacts") }
        // After the first call, wait past the token's lifetime: the next call meets a 401.
        let stepped = SteppedRemote(remote: ForceClientRemote(client: live.client)) { call in
            if call == 1 { try? await Task.sleep(for: .milliseconds(6_100)) }
        }
        let manager = try SyncManager(store: live.local.store, remote: stepped)
        #expect(try await manager.reSync(name: "syncUpContacts").status == .done, "\(mode)")
        #expect(try await manager.reSync(name: "syncDownContacts").status == .done, "\(mode)")
        #expect(refreshes.refreshes >= 1, "\(mode): the token never expired, so nothing was tested")
        #expect(try live.local.documents("contacts").count == 7, "\(mode)")
        #expect(try await Self.serverNames(live).count == 7, "\(mode)")
    }

    @Test("A cursor the server lost mid-sync down is resumed from the newest record stored, not from the start")
    func lostQueryCursorResumes() async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        try await live.server.command(["seed", "--accounts", "10", "--contacts", "5000"])
        // Call 1 is the first page; call 2, the next page's cursor, is refused as Salesforce
        // refuses an expired one. Pages are 2,000 records.
        let stepped = SteppedRemote(
            remote: ForceClientRemote(client: live.client),
            beforeCall: { call throws(SyncRemoteError) in
                if call == 2 { throw .server(status: 400, errorCode: "INVALID_QUERY_LOCATOR", message: "invalid query locator") }
            }, afterAnswer: { _ in })
        let manager = try SyncManager(store: live.local.store, remote: stepped)
        let sync = try await manager.reSync(name: "syncDownContacts")
        #expect(sync.status == .done)
        let contacts = try live.local.documents("contacts")
        #expect(contacts.count == 5000)
        #expect(Set(contacts.compactMap { $0["Id"]?.stringValue }).count == 5000)
        let summary = try #require(await manager.lastSyncDownSummary[sync.id])
        // The first page was not fetched again: only the records of its last second came twice.
        #expect(summary.received < 5000 + 50, "\(summary)")
        #expect(summary.stored == 5000, "\(summary)")
    }

    @Test(
        "The server stopped mid-sync: the sync fails as offline, done records stay done, a rerun finishes",
        arguments: SyncUpTarget.Mode.allCases)
    func serverStoppedMidSync(mode: SyncUpTarget.Mode) async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        try live.useSyncUpMode(mode, for: "syncUpContacts")
        // Enough creates for several requests in every mode: 30 singles, 2 batches, ... ; the
        // collection target gets its second request from the updates it sends as composite.
        try await live.server.command(["seed", "--contacts", "3"])
        try await live.syncDown()
        for record in try live.local.documents("contacts") { try live.saveLocally(Records.edited(record, ["Title": "Edited"]), in: "contacts") }
        for index in 0..<30 { try live.saveLocally(Records.created(nil, type: "Contact", fields: ["LastName": .string("Queued \(index)")]), in: "contacts") }
        let server = live.server
        let stepped = SteppedRemote(remote: ForceClientRemote(client: live.client)) { call in
            if call == 1 { server.stop() }
        }
        let manager = try SyncManager(store: live.local.store, remote: stepped)
        do {
            _ = try await manager.reSync(name: "syncUpContacts")
            Issue.record("\(mode): a sync up with the server stopped did not fail")
        } catch let error as SyncRemoteError {
            guard case .offline = error else {
                Issue.record("\(mode): expected offline, got \(error)")
                return
            }
        }
        #expect(try await manager.getSyncStatus(name: "syncUpContacts")?.status == .failed, "\(mode)")
        let done = try live.local.documents("contacts").filter { !$0.isDirty }
        #expect(!done.isEmpty, "\(mode): the first request's records were not recorded as done")
        let doneIds = Set(done.compactMap { $0["Id"]?.stringValue })

        // Restart the same org (a new port) and sign in again: the rerun finishes the rest.
        let restarted = try await LocalOrgProcess(dataDirectory: live.server.dataDirectory)
        defer { restarted.stop() }
        let client = try await LiveSync.signIn(to: restarted)
        let rerun = try SyncManager(store: live.local.store, remote: ForceClientRemote(client: client))
        #expect(try await rerun.reSync(name: "syncUpContacts").status == .done, "\(mode)")
        let contacts = try live.local.documents("contacts")
        #expect(contacts.count == 33 && contacts.allSatisfy { !$0.isDirty }, "\(mode)")
        #expect(doneIds.isSubset(of: Set(contacts.compactMap { $0["Id"]?.stringValue })), "\(mode)")
        let rows = try await client.query("SELECT LastName, Title FROM Contact").records
        let queued = rows.compactMap { $0["LastName"]?.stringValue }.filter { $0.hasPrefix("Queued") }
        #expect(rows.count == 33 && queued.count == 30 && Set(queued).count == 30, "\(mode)")
        #expect(rows.filter { $0["Title"] == "Edited" }.count == 3, "\(mode)")
    }
}

/// The most requests a remote had in flight at once.
final class InFlightGauge: Sendable {
    private let counts = Mutex<(now: Int, most: Int)>((0, 0))
    var most: Int { counts.withLock { $0.most } }
    func wrapping(_ remote: any SyncRemote) -> SteppedRemote {
        SteppedRemote(
            remote: remote,
            beforeCall: { (_) async throws(SyncRemoteError) in
                self.counts.withLock {
                    $0.now += 1
                    $0.most = max($0.most, $0.now)
                }
            },
            afterAnswer: { (_) async throws(SyncRemoteError) in
                self.counts.withLock { $0.now -= 1 }
            })
    }
}

extension LiveSyncFaultTests {
    /// An org at 100 ms and a store of twenty contacts whose creates reached it with their answers lost.
    static func twentyLostCreates() async throws -> LiveSync {
        let live = try await LiveSync(serverArguments: ["--latency", "100"])
        for index in 0..<20 {
            try live.saveLocally(Records.created(nil, type: "Contact", fields: ["LastName": .string("Lost \(index)")]), in: "contacts")
        }
        let losing = DroppingRemote.wrapping(ForceClientRemote(client: live.client), dice: DroppingRemote.Dice(seed: 1), dropBefore: 0, dropAfter: 1)
        await #expect(throws: SyncRemoteError.self) { _ = try await SyncManager(store: live.local.store, remote: losing).reSync(name: "syncUpContacts") }
        return live
    }

    @Test("A create that never left is not taken for another user's record with the same values: it is sent again")
    func lostCreateNotAdoptedFromAnotherUser() async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        try live.saveLocally(Records.created(nil, type: "Contact", fields: ["LastName": "Triplet", "FirstName": "Tom"]), in: "contacts")
        let refused = DroppingRemote.wrapping(ForceClientRemote(client: live.client), dice: DroppingRemote.Dice(seed: 1), dropBefore: 1, dropAfter: 0)
        await #expect(throws: SyncRemoteError.self) { _ = try await SyncManager(store: live.local.store, remote: refused).reSync(name: "syncUpContacts") }
        // Meanwhile, in the training room, the trainer types the same exercise contact.
        let trainer = try await LiveSync.signIn(to: live.server, username: "trainer@localorg.test", password: "localorg-trainer")
        let theirs = try await trainer.create("Contact", fields: ["LastName": "Triplet", "FirstName": "Tom"])
        #expect(try await live.manager.reSync(name: "syncUpContacts").status == .done)
        let mine = try #require(try live.local.documents("contacts").first { $0["LastName"] == "Triplet" })
        let myId = try #require(mine["Id"]?.stringValue)
        #expect(myId != theirs && myId.hasPrefix("003") && !mine.isDirty)
        #expect(try await live.serverRecords("SELECT Id FROM Contact WHERE LastName = 'Triplet'").count == 2)
    }

    @Test("Twenty creates whose answer was lost are looked up several at a time, each adopted once")
    func lostCreatesAreLookedUpTogether() async throws {
        let live = try await Self.twentyLostCreates()
        defer { live.remove() }
        #expect(try await live.serverRecords("SELECT Id FROM Contact WHERE LastName LIKE 'Lost %'").count == 20)
        let gauge = InFlightGauge()
        let manager = try SyncManager(store: live.local.store, remote: gauge.wrapping(ForceClientRemote(client: live.client)))
        #expect(try await manager.reSync(name: "syncUpContacts").status == .done)
        #expect(gauge.most > 1, "the lookups went one at a time")
        let stored = try live.local.documents("contacts").filter { $0["LastName"]?.stringValue?.hasPrefix("Lost ") == true }
        #expect(stored.count == 20 && stored.allSatisfy { !$0.isDirty && $0["Id"]?.stringValue?.hasPrefix("003") == true })
        #expect(try await live.serverRecords("SELECT Id FROM Contact WHERE LastName LIKE 'Lost %'").count == 20, "none created twice")
    }

    @Test("A stop asked while lost creates are looked up: no new lookup leaves, those answered are adopted, the rerun adopts the rest")
    func lostCreateLookupsHonourAStop() async throws {
        let live = try await Self.twentyLostCreates()
        defer { live.remove() }
        let stopper = LiveSyncDownSummaryTests.Stopper()
        let calls = Mutex(0)
        let stepped = SteppedRemote(
            remote: ForceClientRemote(client: live.client),
            beforeCall: { (call) async throws(SyncRemoteError) in
                calls.withLock { $0 = max($0, call) }
                if call == 2 { await stopper.stop() }
            }, afterAnswer: { _ in })
        let manager = try SyncManager(store: live.local.store, remote: stepped)
        stopper.manager.withLock { $0 = manager }
        let status = try await manager.reSync(name: "syncUpContacts").status
        #expect(status == .stopped)
        #expect(calls.withLock { $0 } <= SyncManager.defaultRequestConcurrency * 2, "lookups went on after the stop")
        let adopted = try live.local.documents("contacts").filter { $0["Id"]?.stringValue?.hasPrefix("003") == true }
        #expect(adopted.count < 20 && adopted.allSatisfy { !$0.isDirty }, "\(adopted.count) adopted")
        #expect(try await SyncManager(store: live.local.store, remote: ForceClientRemote(client: live.client)).reSync(name: "syncUpContacts").status == .done)
        let stored = try live.local.documents("contacts")
        #expect(stored.count == 20 && stored.allSatisfy { !$0.isDirty && $0["Id"]?.stringValue?.hasPrefix("003") == true })
        #expect(try await live.serverRecords("SELECT Id FROM Contact WHERE LastName LIKE 'Lost %'").count == 20, "none created twice")
    }
}

extension LiveSyncFaultTests {
    @Test("Records that wait for no server copy are sent at once: one marked updated without an Id is created, one without a type is refused by name")
    func recordsTheReadLeavesAloneAreNotHeldBack() async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        // As another app may write them: changed here (not created), with no date and no Id.
        let flags: JSONObject = [LocalField.local: true, LocalField.locallyUpdated: true, LocalField.locallyCreated: false, LocalField.locallyDeleted: false]
        try live.saveLocally(flags.merging(["attributes": ["type": "Contact"], "LastName": "Idless"]) { $1 }, in: "contacts")
        try live.saveLocally(flags.merging(["Id": "003000000000009AAA", "LastName": "Typeless"]) { $1 }, in: "contacts")
        _ = try await live.manager.reSync(name: "syncUpContacts")
        #expect(try await live.serverRecords("SELECT Id FROM Contact WHERE LastName = 'Idless'").count == 1)
        let typeless = try #require(try live.local.documents("contacts").first { $0["LastName"] == "Typeless" })
        #expect(typeless[LocalField.lastError]?.stringValue?.contains("NO_SOBJECT_TYPE") == true, "\(typeless)")
    }

    @Test("An edit saved while a sync up reads server copies, of a record our last write left at an unknown date, waits and meets the server's change as a conflict")
    func anEditDuringTheServerCopyReadWaitsForItsPrecondition() async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        let read = try await live.createOnServer("Contact", ["LastName": "Read", "Title": "Original"])
        let late = try await live.createOnServer("Contact", ["LastName": "Late", "Title": "Original"])
        try await live.syncDown()
        // Our own updates leave both at an unknown date (no sync down after them).
        for id in [read, late] {
            try live.saveLocally(Records.edited(try #require(try live.local.document("contacts", id: id)), ["Title": "First"]), in: "contacts")
        }
        try await live.syncUp()
        try await LiveSync.nextSecond()
        try await live.server.command(["edit", "Contact", late, "Title=Server"])
        // "Read" changed again: the next sync up reads its server copy first (call 1), and "Late"
        // is changed here while that read is on its way.
        try live.saveLocally(Records.edited(try #require(try live.local.document("contacts", id: read)), ["Department": "Mine"]), in: "contacts")
        let store = live.local.store
        let stepped = SteppedRemote(
            remote: ForceClientRemote(client: live.client),
            beforeCall: { (call) async throws(SyncRemoteError) in
                if call == 1 { Records.editStored(store, contact: late, ["Title": "Mine"]) }
            }, afterAnswer: { _ in })
        #expect(try await SyncManager(store: store, remote: stepped).reSync(name: "syncUpContacts").status == .done)
        #expect(
            try await live.serverRecords("SELECT Title FROM Contact WHERE Id = '\(late)'").first?["Title"] == "Server",
            "sent without a precondition over another user's change")
        #expect(try await live.serverRecords("SELECT Department FROM Contact WHERE Id = '\(read)'").first?["Department"] == "Mine")
        #expect(try live.local.document("contacts", id: late)?.isDirty == true)
        _ = try await live.manager.reSync(name: "syncUpContacts")
        let conflicted = try #require(try live.local.document("contacts", id: late))
        #expect(conflicted.hasConflict && conflicted["Title"] == "Mine")
        #expect(conflicted[LocalField.conflict]?["server"]?["Title"] == "Server")
    }
}
