import ForceAPI
import ForceJSON
import ForcetermServices
import Foundation
import LocalOrgProcess
import SmartStore
import Testing

@testable import MobileSync

@Suite("Sync against a real localorg", .serialized)
struct LiveSyncTests {
    @Test("First sync down, then a local create, update and delete reach the server")
    func roundTrip() async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        let acme = try await live.createOnServer("Account", ["Name": "Acme"])
        let ada = try await live.createOnServer("Contact", ["LastName": "Lovelace", "FirstName": "Ada", "AccountId": .string(acme)])
        let bob = try await live.createOnServer("Contact", ["LastName": "Builder", "AccountId": .string(acme)])
        try await live.syncDown()
        #expect(try live.local.documents("accounts").map { $0["Name"] } == ["Acme"])
        #expect(Set(try live.local.documents("contacts").compactMap { $0["Id"]?.stringValue }) == [ada, bob])

        try live.saveLocally(Records.edited(try #require(try live.local.document("contacts", id: ada)), ["Title": "Countess"]), in: "contacts")
        try live.saveLocally(Records.edited(try #require(try live.local.document("contacts", id: bob)), delete: true), in: "contacts")
        try live.saveLocally(Records.created(nil, type: "Contact", fields: ["LastName": "Hopper", "AccountId": .string(acme)]), in: "contacts")
        try await live.syncAll()

        let server = try await live.serverRecords("SELECT Id, LastName, Title FROM Contact ORDER BY LastName")
        #expect(server.map { $0["LastName"] } == ["Hopper", "Lovelace"])
        #expect(server.first { $0["Id"]?.stringValue == ada }?["Title"] == "Countess")
        let contacts = try live.local.documents("contacts")
        #expect(contacts.count == 2)
        #expect(contacts.allSatisfy { !$0.isDirty && $0[LocalField.lastError] == nil })
        #expect(Set(contacts.compactMap { $0["Id"]?.stringValue }) == Set(server.compactMap { $0["Id"]?.stringValue }))
    }

    @Test("A contact created under a locally created account gets the account's server id")
    func referenceRewriting() async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        try live.saveLocally(Records.created("local_account_1", type: "Account", fields: ["Name": "Offline Ltd"]), in: "accounts")
        try live.saveLocally(Records.created(nil, type: "Contact", fields: ["LastName": "Newhire", "AccountId": "local_account_1"]), in: "contacts")
        try await live.syncAll()
        let accounts = try await live.serverRecords("SELECT Id FROM Account WHERE Name = 'Offline Ltd'")
        let contacts = try await live.serverRecords("SELECT Id, AccountId FROM Contact WHERE LastName = 'Newhire'")
        #expect(accounts.count == 1 && contacts.count == 1)
        #expect(contacts.first?["AccountId"] == accounts.first?["Id"])
        #expect(try live.local.documents("contacts").first?["AccountId"] == accounts.first?["Id"])
    }

    @Test("A server edit then a local edit of the same field is a kept conflict (412); take the server's, then keep mine")
    func conflictsBothWays() async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        let id = try await live.createOnServer("Contact", ["LastName": "Curie", "Title": "Original"])
        try await live.syncDown()
        try await LiveSync.nextSecond()
        try await live.server.command(["edit", "Contact", id, "Title=Server"])
        try live.saveLocally(Records.edited(try #require(try live.local.document("contacts", id: id)), ["Title": "Mine"]), in: "contacts")
        _ = try await live.manager.reSync(name: "syncUpContacts")
        var conflicted = try #require(try live.local.document("contacts", id: id))
        #expect(conflicted.hasConflict && conflicted.isDirty && conflicted["Title"] == "Mine")
        #expect(conflicted[LocalField.conflict]?["server"]?["Title"] == "Server")
        #expect(try await live.serverRecords("SELECT Title FROM Contact").first?["Title"] == "Server")

        // Take the server's: the local change goes, the server's value stays.
        let resolver = ConflictResolver(store: live.local.store, soupName: "contacts")
        try resolver.takeServer(entryId: try #require(conflicted.soupEntryId))
        try await live.syncAll()
        #expect(try live.local.document("contacts", id: id)?["Title"] == "Server")
        #expect(try await live.serverRecords("SELECT Title FROM Contact").first?["Title"] == "Server")

        // Again, and keep mine: the next sync up writes the local value.
        try await LiveSync.nextSecond()
        try await live.server.command(["edit", "Contact", id, "Title=Server again"])
        try live.saveLocally(Records.edited(try #require(try live.local.document("contacts", id: id)), ["Title": "Mine again"]), in: "contacts")
        _ = try await live.manager.reSync(name: "syncUpContacts")
        conflicted = try #require(try live.local.document("contacts", id: id))
        #expect(conflicted.hasConflict)
        try resolver.keepLocal(entryId: try #require(conflicted.soupEntryId))
        // Another user changes another field after the choice: both changes survive.
        try await LiveSync.nextSecond()
        try await live.server.command(["edit", "Contact", id, "Department=Physics"])
        try await live.syncAll()
        let server = try #require(try await live.serverRecords("SELECT Title, Department FROM Contact").first)
        #expect(server["Title"] == "Mine again" && server["Department"] == "Physics")
        let resolved = try #require(try live.local.document("contacts", id: id))
        #expect(!resolved.hasConflict && !resolved.isDirty && resolved["Title"] == "Mine again" && resolved["Department"] == "Physics")

        // Kept mine, and then another user changes that same field again: a new conflict, not a silent overwrite.
        try await LiveSync.nextSecond()
        try await live.server.command(["edit", "Contact", id, "Title=Server a third time"])
        try live.saveLocally(Records.edited(resolved, ["Title": "Mine a third time"]), in: "contacts")
        _ = try await live.manager.reSync(name: "syncUpContacts")
        let third = try #require(try live.local.document("contacts", id: id))
        try resolver.keepLocal(entryId: try #require(third.soupEntryId))
        try await LiveSync.nextSecond()
        try await live.server.command(["edit", "Contact", id, "Title=Server a fourth time"])
        _ = try await live.manager.reSync(name: "syncUpContacts")
        #expect(try ConflictResolver(store: live.local.store, soupName: "contacts").conflicts().first?.fields.map(\.name) == ["Title"])
        #expect(try await live.serverRecords("SELECT Title FROM Contact").first?["Title"] == "Server a fourth time")
    }

    @Test("Keep mine writes only the fields in conflict: a field only the server changed keeps the server's value")
    func keepMineWritesOnlyTheConflictingFields() async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        let id = try await live.createOnServer("Contact", ["LastName": "Meitner", "Title": "Original", "Department": "Chemistry"])
        try await live.syncDown()
        try await LiveSync.nextSecond()
        try await live.server.command(["edit", "Contact", id, "Title=Theirs", "Department=Physics"])
        try live.saveLocally(Records.edited(try #require(try live.local.document("contacts", id: id)), ["Title": "Mine"]), in: "contacts")
        try await live.syncAll()
        let conflicted = try #require(try live.local.document("contacts", id: id))
        #expect(conflicted["Department"] == "Physics", "taken from the server while the Title waits")
        try ConflictResolver(store: live.local.store, soupName: "contacts").keepLocal(entryId: try #require(conflicted.soupEntryId))
        try await live.syncAll()
        let server = try #require(try await live.serverRecords("SELECT Title, Department FROM Contact").first)
        #expect(server["Title"] == "Mine" && server["Department"] == "Physics")
    }

    @Test("Edit, sync up only, edit again, sync: no conflict with my own earlier write")
    func noConflictWithOneself() async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        let id = try await live.createOnServer("Contact", ["LastName": "Franklin", "Title": "Original"])
        try await live.syncDown()
        try await LiveSync.nextSecond()
        try live.saveLocally(Records.edited(try #require(try live.local.document("contacts", id: id)), ["Title": "First"]), in: "contacts")
        try await live.syncUp()
        try await LiveSync.nextSecond()
        try live.saveLocally(Records.edited(try #require(try live.local.document("contacts", id: id)), ["Title": "Second"]), in: "contacts")
        try await live.syncAll()
        let record = try #require(try live.local.document("contacts", id: id))
        #expect(!record.hasConflict && !record.isDirty && record["Title"] == "Second")
        #expect(try await live.serverRecords("SELECT Title FROM Contact").first?["Title"] == "Second")
    }

    @Test("A create whose answer was lost, then a sync down only: our record adopts its server copy, none is stored twice")
    func aLostCreateIsAdoptedBeforeASyncDownStoresItAgain() async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        try live.saveLocally(
            LocalEdit.created(
                fields: ["LastName": "Lamarr", "Title": "Inventor"], sObjectType: "Contact",
                localId: "local_lamarr"), in: "contacts")
        // The connection drops after the server made the contact: its answer is lost.
        let dropping = SteppedRemote(
            remote: ForceClientRemote(client: live.client), beforeCall: { _ in },
            afterAnswer: { (_) async throws(SyncRemoteError) in throw .offline("answer lost (test fault)") })
        let lossy = try SyncManager(store: live.local.store, remote: dropping)
        await #expect(throws: (any Error).self) { _ = try await lossy.reSync(name: "syncUpContacts") }
        #expect(try await live.serverRecords("SELECT Id FROM Contact WHERE LastName = 'Lamarr'").count == 1)
        try await live.syncDown()
        let stored = try live.local.documents("contacts").filter { $0["LastName"] == "Lamarr" }
        #expect(stored.count == 1, "one record, not ours plus the server's copy of it: \(stored)")
        #expect(stored.first?["Id"]?.stringValue?.hasPrefix("003") == true && stored.first?.isDirty == false)
        try await live.syncAll()
        #expect(try await live.serverRecords("SELECT Id FROM Contact WHERE LastName = 'Lamarr'").count == 1)
    }

    @Test("A sync up stopped midway reports what its recorded answers did")
    func aStoppedSyncUpCountsWhatItDid() async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        try live.useSyncUpMode(.batch, for: "syncUpContacts")
        for index in 0..<30 {
            try live.saveLocally(Records.created(nil, type: "Contact", fields: ["LastName": .string("Batch \(index)")]), in: "contacts")
        }
        // The second request never leaves: the network is gone.
        let remote = SteppedRemote(
            remote: ForceClientRemote(client: live.client),
            beforeCall: { (call) async throws(SyncRemoteError) in if call == 2 { throw .offline("gone (test fault)") } },
            afterAnswer: { _ in })
        let manager = try SyncManager(store: live.local.store, remote: remote, requestConcurrency: 1)
        await #expect(throws: (any Error).self) { _ = try await manager.reSync(name: "syncUpContacts") }
        let id = try #require(try await manager.getSyncStatus(name: "syncUpContacts")?.id)
        let summary = try #require(await manager.lastSyncUpSummary[id])
        #expect(summary.created == 25 && summary.sent == 25)
        #expect(try await live.serverRecords("SELECT Id FROM Contact").count == 25)
    }

    @Test("An edit saved while its update is on its way is sent by the next sync, not lost")
    func anEditDuringTheSyncIsKept() async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        let id = try await live.createOnServer("Contact", ["LastName": "Noether", "Title": "Original"])
        try await live.syncDown()
        try live.saveLocally(Records.edited(try #require(try live.local.document("contacts", id: id)), ["Title": "First"]), in: "contacts")
        let store = live.local.store
        // The edit lands after the server has applied "First" and before the answer is recorded.
        let remote = SteppedRemote(
            remote: ForceClientRemote(client: live.client),
            afterCall: { _ in
                Records.editStored(store, contact: id, ["Title": "Second"])
            })
        let manager = try SyncManager(store: store, remote: remote)
        for name in LiveSync.syncOrder { _ = try await manager.reSync(name: name) }
        let afterFirst = try #require(try live.local.document("contacts", id: id))
        #expect(afterFirst["Title"] == "Second" && afterFirst.isDirty && !afterFirst.hasConflict)
        #expect(try await live.serverRecords("SELECT Title FROM Contact").first?["Title"] == "First")
        try await live.syncAll()
        #expect(try await live.serverRecords("SELECT Title FROM Contact").first?["Title"] == "Second")
        #expect(try live.local.document("contacts", id: id)?.isDirty == false)
    }

    @Test("A local delete of a record changed on the server is refused (412) and kept as a conflict")
    func conditionalDelete() async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        let id = try await live.createOnServer("Contact", ["LastName": "Keep"])
        try await live.syncDown()
        try await LiveSync.nextSecond()
        try await live.server.command(["edit", "Contact", id, "Title=Promoted"])
        try live.saveLocally(Records.edited(try #require(try live.local.document("contacts", id: id)), delete: true), in: "contacts")
        _ = try await live.manager.reSync(name: "syncUpContacts")
        #expect(try await live.serverRecords("SELECT Id FROM Contact").count == 1)
        #expect(try live.local.document("contacts", id: id)?.hasConflict == true)
    }

    @Test("A server-side delete removes the ghost but never a record with local changes")
    func ghosts() async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        let gone = try await live.createOnServer("Contact", ["LastName": "Gone"])
        let edited = try await live.createOnServer("Contact", ["LastName": "Edited"])
        _ = try await live.createOnServer("Contact", ["LastName": "Stays"])
        try await live.syncDown()
        try live.saveLocally(Records.edited(try #require(try live.local.document("contacts", id: edited)), ["Title": "Local"]), in: "contacts")
        try await live.server.command(["delete", "Contact", gone])
        try await live.server.command(["delete", "Contact", edited])
        try await live.syncDown()
        #expect(try await live.manager.cleanResyncGhosts(name: "syncDownContacts") == 1)
        let names = Set(try live.local.documents("contacts").compactMap { $0["LastName"]?.stringValue })
        #expect(names == ["Edited", "Stays"])
    }

    @Test("Right after a sync down, a ghost check with nothing gone costs one COUNT(), and still finds what went")
    func ghostCheckByCount() async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        var ids: [String] = []
        for name in ["Ada", "Bo", "Cy"] { ids.append(try await live.createOnServer("Contact", ["LastName": .string(name)])) }
        try await live.syncDown()
        let before = live.client.transferStatistics.requests
        #expect(try await live.manager.cleanResyncGhosts(name: "syncDownContacts", justSynced: true) == 0)
        #expect(live.client.transferStatistics.requests - before == 1, "one COUNT(), no id pages")
        // One gone and one new: the counts differ once the new one is stored, so the ids are compared.
        try await live.server.command(["delete", "Contact", ids[0]])
        _ = try await live.createOnServer("Contact", ["LastName": "Di"])
        try await live.syncDown()
        #expect(try await live.manager.cleanResyncGhosts(name: "syncDownContacts", justSynced: true) == 1)
        let names = Set(try live.local.documents("contacts").compactMap { $0["LastName"]?.stringValue })
        #expect(names == ["Bo", "Cy", "Di"])
    }

    @Test("A sync down run before its ghost check asks the COUNT() alongside its pages: the check then asks nothing, and still finds what went")
    func ghostCheckCountAskedAlongside() async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        var ids: [String] = []
        for name in ["Ada", "Bo", "Cy"] { ids.append(try await live.createOnServer("Contact", ["LastName": .string(name)])) }
        try await live.syncDown()
        // Counted from before the sync: the COUNT() asked alongside may still be on its way when
        // the sync down returns (it is the check that waits for it).
        let before = live.client.transferStatistics.requests
        _ = try await live.manager.reSyncBeforeGhostCheck(name: "syncDownContacts")
        #expect(try await live.manager.cleanResyncGhosts(name: "syncDownContacts", justSynced: true) == 0)
        #expect(live.client.transferStatistics.requests - before == 2, "one page and the COUNT() that came with it; the check asked nothing more")
        try await live.server.command(["delete", "Contact", ids[0]])
        _ = try await live.createOnServer("Contact", ["LastName": "Di"])
        _ = try await live.manager.reSyncBeforeGhostCheck(name: "syncDownContacts")
        #expect(try await live.manager.cleanResyncGhosts(name: "syncDownContacts", justSynced: true) == 1)
        let names = Set(try live.local.documents("contacts").compactMap { $0["LastName"]?.stringValue })
        #expect(names == ["Bo", "Cy", "Di"])
    }

    @Test("The mass-deletion guard stops a ghost cleaning that would empty the soup, unless forced")
    func massDeletionGuard() async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        var ids: [String] = []
        for index in 0..<24 { ids.append(try await live.createOnServer("Contact", ["LastName": .string("Person \(index)")])) }
        try await live.syncDown()
        for id in ids.prefix(16) { try await live.server.command(["delete", "Contact", id]) }
        try await live.syncDown()
        await #expect(throws: MobileSyncError.self) { _ = try await live.manager.cleanResyncGhosts(name: "syncDownContacts") }
        #expect(try live.local.documents("contacts").count == 24)
        #expect(try await live.manager.cleanResyncGhosts(name: "syncDownContacts", force: true) == 16)
        #expect(try live.local.documents("contacts").count == 8)
    }

    @Test("Incremental resync picks up a record changed in the same second as the high-water mark")
    func sameSecondChange() async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        var sameSecondSeen = false
        for attempt in 0..<5 where !sameSecondSeen {
            // Start just after a second boundary so the create, the sync and the next create share it.
            let fraction = Date().timeIntervalSince1970.truncatingRemainder(dividingBy: 1)
            try await Task.sleep(for: .milliseconds(Int((1 - fraction) * 1000) + 20))
            let first = try await live.createOnServer("Contact", ["LastName": .string("First \(attempt)")])
            _ = try await live.manager.reSync(name: "syncDownContacts")
            let mark = try #require(try await live.manager.getSyncStatus(name: "syncDownContacts")).maxTimeStamp
            let second = try await live.createOnServer("Contact", ["LastName": .string("Second \(attempt)")])
            let stamps = try await live.serverRecords("SELECT Id, LastModifiedDate FROM Contact WHERE Id IN ('\(first)', '\(second)')")
            sameSecondSeen =
                Set(stamps.compactMap { $0["LastModifiedDate"]?.stringValue }).count == 1
                && SalesforceTimestamp.parse(stamps.first?["LastModifiedDate"]?.stringValue ?? "") == mark
            _ = try await live.manager.reSync(name: "syncDownContacts")
            #expect(try live.local.document("contacts", id: second) != nil, "attempt \(attempt)")
            let all = try live.local.documents("contacts")
            #expect(Set(all.compactMap { $0["Id"]?.stringValue }).count == all.count)
        }
        #expect(sameSecondSeen, "no attempt put both changes in one second; the machine is very loaded")
    }

    @Test("Offline: the sync fails with a clear error and the local changes stay")
    func offline() async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        let id = try await live.createOnServer("Contact", ["LastName": "Offline"])
        try await live.syncDown()
        try live.saveLocally(Records.edited(try #require(try live.local.document("contacts", id: id)), ["Title": "Written offline"]), in: "contacts")
        live.server.stop()
        do {
            _ = try await live.manager.reSync(name: "syncUpContacts")
            Issue.record("a sync up with the server stopped did not fail")
        } catch let error as SyncRemoteError {
            guard case .offline = error else {
                Issue.record("expected offline, got \(error)")
                return
            }
            // A stopped server on this machine refuses: "cannot connect … is the server running".
            #expect("\(error)".contains("cannot connect to Salesforce") && "\(error)".contains("sync again"), "\(error)")
        }
        let kept = try #require(try live.local.document("contacts", id: id))
        #expect(kept.isDirty && kept["Title"] == "Written offline")
        #expect(try await live.manager.getSyncStatus(name: "syncUpContacts")?.status == .failed)
    }
}
