import ForceAPI
import ForceJSON
import ForcetermServices
import Foundation
import LocalOrgProcess
import SmartStore
import Testing

@testable import MobileSync

/// The engine against localorg answering as a production org: each rule a real org enforces met
/// with nothing lost, nothing sent twice, and the refusal named with its way out.
@Suite("Sync against a strict org", .serialized)
struct LiveProductionOrgTests {
    /// Lost answers, as `LiveSyncFaultTests` loses them: the create reaches the org, its answer not.
    static func loseTheNextAnswer(_ live: LiveSync, sync: String = "syncUpContacts") async throws {
        let losing = DroppingRemote.wrapping(ForceClientRemote(client: live.client), dice: DroppingRemote.Dice(seed: 1), dropBefore: 0, dropAfter: 1)
        await #expect(throws: SyncRemoteError.self) { _ = try await SyncManager(store: live.local.store, remote: losing).reSync(name: sync) }
    }

    @Test("A lost create with a long description is found by the fields a real org can filter on, not sent twice")
    func lostCreateWithALongDescription() async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        let notes = String(repeating: "Met at the fair; wants a demo of the new line. ", count: 40)
        try live.saveLocally(
            Records.created(
                nil, type: "Contact",
                fields: [
                    "LastName": "Long", "FirstName": "Lena", "Email": "lena@example.org",
                    "Description": .string(notes),
                ]), in: "contacts")
        try await Self.loseTheNextAnswer(live)
        #expect(try await live.manager.reSync(name: "syncUpContacts").status == .done)
        let rows = try await live.serverRecords("SELECT Id FROM Contact WHERE LastName = 'Long'")
        #expect(rows.count == 1, "the org has one copy")
        let contact = try #require(try live.local.documents("contacts").first)
        #expect(!contact.isDirty && contact["Id"] == rows.first?["Id"] && contact[LocalField.lastError] == nil)
    }

    @Test("A create that never left is sent, though a record here holds every value it has and more (the lookup skips empty fields)")
    func lostCreateNotTakenForAHeldRecord() async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        let held = try await live.createOnServer("Contact", ["LastName": "Smith", "FirstName": "Sam", "Email": "sam@example.org"])
        try await live.syncDown()
        try live.saveLocally(Records.created(nil, type: "Contact", fields: ["LastName": "Smith", "FirstName": "Sam", "Email": .null]), in: "contacts")
        let refused = DroppingRemote.wrapping(ForceClientRemote(client: live.client), dice: DroppingRemote.Dice(seed: 1), dropBefore: 1, dropAfter: 0)
        await #expect(throws: SyncRemoteError.self) { _ = try await SyncManager(store: live.local.store, remote: refused).reSync(name: "syncUpContacts") }
        #expect(try await live.manager.reSync(name: "syncUpContacts").status == .done)
        let rows = try await live.serverRecords("SELECT Id FROM Contact WHERE LastName = 'Smith'")
        #expect(rows.count == 2, "the new one was sent once: \(rows)")
        let local = try live.local.documents("contacts")
        #expect(local.count == 2 && Set(local.compactMap { $0["Id"]?.stringValue }) == Set(rows.compactMap { $0["Id"]?.stringValue }))
        #expect(try live.local.document("contacts", id: held)?["Email"] == "sam@example.org", "the held record keeps its own values")
    }

    @Test("A lost create whose value the org's flow changed on save waits in doubt with its candidate; adopting it settles it, once")
    func lostCreateChangedOnSaveWaitsInDoubt() async throws {
        let directory = NSTemporaryDirectory() + "localorg-flow-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // The class exercise's flow: phone numbers stored as digits.
        try #"{"fieldUpdates": {"Contact": [{"name": "Phone Digits", "field": "Phone", "transform": "digitsOnly"}]}}"#
            .write(toFile: directory + "/custom-schema.json", atomically: true, encoding: .utf8)
        let server = try await LocalOrgProcess(dataDirectory: directory)
        let live = try await LiveSync(server: server)
        defer { live.remove() }
        try live.saveLocally(Records.created(nil, type: "Contact", fields: ["LastName": "Flow", "Phone": "+41 44 668 18 00"]), in: "contacts")
        try await Self.loseTheNextAnswer(live)
        #expect(try await live.manager.reSync(name: "syncUpContacts").status == .done)
        let rows = try await live.serverRecords("SELECT Id, Phone FROM Contact WHERE LastName = 'Flow'")
        #expect(rows.count == 1 && rows.first?["Phone"] == "+41446681800", "\(rows)")
        let waiting = try #require(try live.local.documents("contacts").first)
        #expect(waiting.isCreateInDoubt && waiting.isDirty)
        #expect(waiting[LocalField.createInDoubt]?["candidates"]?.arrayValue?.first?["Id"] == rows.first?["Id"])
        #expect(RecordError.stored(waiting[LocalField.lastError]).first?.errorCode == "CREATE_IN_DOUBT")
        // More syncs send nothing while it waits; the candidate shows beside it meanwhile.
        try await live.syncAll()
        #expect(try await live.serverRecords("SELECT Id FROM Contact WHERE LastName = 'Flow'").count == 1)
        #expect(try live.local.documents("contacts").count == 2)
        // The user takes the candidate.
        try CreateDecisions(store: live.local.store, soupName: "contacts")
            .adopt(entryId: try #require(waiting.soupEntryId), serverId: try #require(rows.first?["Id"]?.stringValue))
        try await live.syncAll()
        #expect(try live.local.documents("contacts").count == 1, "the candidate's copy is this record now")
        let settled = try #require(try live.local.documents("contacts").first)
        #expect(!settled.isDirty && settled["Id"] == rows.first?["Id"] && settled["Phone"] == "+41446681800")
        #expect(try await live.serverRecords("SELECT Id FROM Contact WHERE LastName = 'Flow'").count == 1)
    }

    @Test("A duplicate is refused with the records the org matched, named; saved anyway, it is created once")
    func duplicateRefusedThenSavedAnyway() async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        let existing = try await live.createOnServer("Contact", ["LastName": "Lovelace", "FirstName": "Ada", "Email": "ada@example.org"])
        try live.saveLocally(
            Records.created(nil, type: "Contact", fields: ["LastName": "King", "FirstName": "Augusta", "Email": "ada@example.org"]),
            in: "contacts")
        #expect(try await live.manager.reSync(name: "syncUpContacts").status == .done)
        let refused = try #require(try live.local.documents("contacts").first)
        let error = try #require(RecordError.stored(refused[LocalField.lastError]).first)
        #expect(error.errorCode == "DUPLICATES_DETECTED")
        #expect(error.duplicates == [RecordReference(id: existing, name: "Ada Lovelace")], "named, though sObject Collections answer without them")
        // Sent again as it is: refused again, nothing made.
        #expect(try await live.manager.reSync(name: "syncUpContacts").status == .done)
        #expect(try await live.serverRecords("SELECT Id FROM Contact").count == 1)
        try CreateDecisions(store: live.local.store, soupName: "contacts").allowDuplicate(entryId: try #require(refused.soupEntryId))
        #expect(try await live.manager.reSync(name: "syncUpContacts").status == .done)
        #expect(try await live.serverRecords("SELECT Id FROM Contact").count == 2)
        let saved = try #require(try live.local.documents("contacts").first)
        #expect(!saved.isDirty && saved[LocalField.allowDuplicate] == nil && saved[LocalField.lastError] == nil)
    }

    @Test("A field the org hides from the user: the sync down brings the rest, and the sync up sends nothing the user may not write")
    func hiddenAndReadOnlyFields() async throws {
        let live = try await LiveSync(username: "trainer@localorg.test", password: "localorg-trainer")
        defer { live.remove() }
        _ = try await live.server.command(["profile", "add", "Field Sales", "--hidden", "Contact.Department", "--read-only", "Contact.HomePhone"])
        _ = try await live.server.command(["user", "profile", "trainer@localorg.test", "Field Sales"])
        let admin = try await LiveSync.signIn(to: live.server)
        defer { admin.shutdown() }
        let id = try await admin.create("Contact", fields: ["LastName": "Hidden", "Title": "Engineer", "HomePhone": "1", "Department": "R&D"])
        // No describe kept yet: the org's refusal of the query names the field, which is left out.
        let first = try await live.manager.reSync(name: "syncDownContacts")
        #expect(first.status == .done)
        #expect(await live.manager.lastSyncDownSummary[first.id]?.leftOutFields == ["Department"])
        #expect(try live.local.document("contacts", id: id)?["Title"] == "Engineer")
        // With the describe kept, the query leaves it out before asking.
        #expect(try await live.manager.reSync(name: "syncDownContactMetadata").status == .done)
        let second = try await live.manager.reSync(name: "syncDownContacts")
        #expect(await live.manager.lastSyncDownSummary[second.id]?.leftOutFields == ["Department"])

        // A create leaves out the empty fields the user may not write; an edit of a read-only one waits, named.
        try live.saveLocally(
            Records.created(nil, type: "Contact", fields: ["LastName": "New", "Department": .null, "HomePhone": .null, "Title": "Intern"]),
            in: "contacts")
        let held = try #require(try live.local.document("contacts", id: id))
        try live.saveLocally(Records.edited(held, ["HomePhone": "2"]), in: "contacts")
        #expect(try await live.manager.reSync(name: "syncUpContacts").status == .done)
        #expect(try await live.serverRecords("SELECT Title FROM Contact WHERE LastName = 'New'").first?["Title"] == "Intern")
        let waiting = try #require(try live.local.document("contacts", id: id))
        let error = try #require(RecordError.stored(waiting[LocalField.lastError]).first)
        #expect(error.errorCode == "FIELD_NOT_WRITABLE" && error.fields == ["HomePhone"] && waiting.isDirty)
        #expect(error.message.contains("read-only for you"))
    }

    @Test("Records newly shared with the user, their dates untouched, arrive at the next sync")
    func newlySharedRecordsArrive() async throws {
        let live = try await LiveSync(serverArguments: ["--sharing", "private"], username: "trainer@localorg.test", password: "localorg-trainer")
        defer { live.remove() }
        await live.manager.setIdComparisonInterval(.zero)
        let admin = try await LiveSync.signIn(to: live.server)
        defer { admin.shutdown() }
        let mine = try await live.createOnServer("Contact", ["LastName": "Mine"])
        let account = try await admin.create("Account", fields: ["Name": "Territory Account"])
        let theirs = try await admin.create("Contact", fields: ["LastName": "Under The Account", "AccountId": .string(account)])
        try await live.syncAll()
        _ = try await live.manager.cleanResyncGhosts(name: "syncDownContacts", justSynced: true)
        #expect(try live.local.documents("contacts").compactMap { $0["Id"]?.stringValue } == [mine])
        // The territory realignment: the account is the trainer's to see now. No record changes.
        try await LiveSync.nextSecond()
        _ = try await live.server.command(["share", "add", "trainer@localorg.test", account, "--reason", "territory"])
        try await live.syncAll()
        let removed = try await live.manager.cleanResyncGhosts(name: "syncDownContacts", justSynced: true)
        _ = try await live.manager.cleanResyncGhosts(name: "syncDownAccounts", justSynced: true)
        #expect(removed == 0)
        #expect(Set(try live.local.documents("contacts").compactMap { $0["Id"]?.stringValue }) == [mine, theirs])
        #expect(try live.local.documents("accounts").compactMap { $0["Id"]?.stringValue } == [account])
        // Taken away again: the records leave at the next check.
        _ = try await live.server.command(["share", "remove", "trainer@localorg.test", account])
        try await live.syncAll()
        _ = try await live.manager.cleanResyncGhosts(name: "syncDownContacts", justSynced: true)
        #expect(try live.local.documents("contacts").compactMap { $0["Id"]?.stringValue } == [mine])
    }

    @Test("Children of an account another job holds locked are sent again within the same sync, and land")
    func lockedParentIsRetried() async throws {
        let live = try await LiveSync(serverArguments: ["--lock-wait", "0"])
        defer { live.remove() }
        await live.manager.setSyncUpRetryDelays([.seconds(2), .seconds(2), .seconds(2)])
        let account = try await live.createOnServer("Account", ["Name": "Busy"])
        let ids = [
            try await live.createOnServer("Contact", ["LastName": "One", "AccountId": .string(account)]),
            try await live.createOnServer("Contact", ["LastName": "Two", "AccountId": .string(account)]),
        ]
        try await live.syncDown()
        for id in ids {
            try live.saveLocally(Records.edited(try #require(try live.local.document("contacts", id: id)), ["Title": "Edited"]), in: "contacts")
        }
        _ = try await live.server.command(["lock", account, "--for", "3"])
        let state = try await live.manager.reSync(name: "syncUpContacts")
        #expect(state.status == .done)
        #expect(try await live.serverRecords("SELECT Title FROM Contact").allSatisfy { $0["Title"] == "Edited" })
        #expect(try live.local.documents("contacts").allSatisfy { !$0.isDirty && $0[LocalField.lastError] == nil })
    }
}

extension SyncManager {
    func setIdComparisonInterval(_ interval: Duration) { idComparisonInterval = interval }
    func setSyncUpRetryDelays(_ delays: [Duration]) { syncUpRetryDelays = delays }
}
