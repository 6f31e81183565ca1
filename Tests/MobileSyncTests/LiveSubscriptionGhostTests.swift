import ForceJSON
import Foundation
import SmartStore
import Testing

@testable import MobileSync

/// A subscription's ghost check against a real localorg: records that left its set go unless
/// something else holds them, or wait while they have unsent changes.
@Suite("A subscription's ghost check")
struct LiveSubscriptionGhostTests {
    @Test("Records that left the slice: one another subscription holds stays, one the config holds stays, an edited one waits, the rest go")
    func leftTheSlice() async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        let soup = try SyncsSoup(store: live.local.store)
        // The config's contacts sync holds Bern only.
        var config = try #require(try soup.state(name: "syncDownContacts"))
        config.target = .down(.soql("SELECT FirstName, LastName, Title, MailingCity FROM Contact WHERE MailingCity = 'Bern'"))
        try soup.save(config)
        #expect(try await live.manager.reSync(name: "syncDownContactMetadata").status == .done)
        var created: [String] = []
        for name in ["Ada", "Bo", "Cy", "Dee", "Eve"] {
            created.append(try await live.createOnServer("Contact", ["LastName": .string(name), "MailingCity": "Zürich"]))
        }
        let (ada, bo, cy, dee, eve) = (created[0], created[1], created[2], created[3], created[4])
        let zurich = try await live.manager.subscribe(name: "zurich", soup: "contacts", condition: "MailingCity = 'Zürich'")
        _ = try await live.manager.subscribe(name: "ada", soup: "contacts", condition: "LastName = 'Ada'")
        for name in ["syncDownContacts", "zurich", "ada"] { #expect(try await live.manager.reSync(name: name).status == .done) }
        #expect(try await live.manager.cleanResyncGhosts(name: "zurich") == 0)
        #expect(try soup.state(name: "zurich")?.subscription?.state == .complete)
        #expect(try live.local.documents("contacts").count == 5)

        try await LiveSync.nextSecond()
        try await live.client.update("Contact", id: ada, fields: ["MailingCity": "Basel"])
        try await live.client.update("Contact", id: bo, fields: ["MailingCity": "Bern"])
        try await live.client.update("Contact", id: cy, fields: ["MailingCity": "Genf"])
        try await live.server.command(["delete", "Contact", eve])
        try live.saveLocally(Records.edited(try #require(try live.local.document("contacts", id: cy)), ["Title": "Edited here"]), in: "contacts")

        for name in ["syncDownContacts", "zurich", "ada"] { #expect(try await live.manager.reSync(name: name).status == .done) }
        #expect(try await live.manager.cleanResyncGhosts(name: "syncDownContacts") == 0)
        #expect(try await live.manager.cleanResyncGhosts(name: "zurich") == 1, "Eve, deleted on the server and held by nothing else")
        let left = Set(try live.local.documents("contacts").compactMap { $0["LastName"]?.stringValue })
        #expect(left == ["Ada", "Bo", "Cy", "Dee"])
        let members = try SyncMembers(store: live.local.store)
        try live.local.store.read { (transaction) throws in
            #expect(try members.ids(syncId: zurich.id, soup: "contacts", in: transaction) == [dee])
            #expect(try members.ids(syncId: SyncMembers.leaving, soup: "contacts", in: transaction) == [cy])
        }
        // Cy waits while its edit is unsent (here in conflict with the server's move to Genf).
        let release = SubscriptionRelease(
            soupName: "contacts", configHolders: try live.local.store.read { try soup.configHolders(of: "contacts", in: $0) }, members: members)
        #expect(try live.local.store.write { try release.sweepLeaving(in: $0) } == 0)
        #expect(try live.local.document("contacts", id: cy)?.isDirty == true)
    }

    @Test("A record the subscription's set gains without being edited (shared with the user since) arrives at its ghost check")
    func arrivalsJoinTheSubscription() async throws {
        let live = try await LiveSync(serverArguments: ["--sharing", "private"], username: "trainer@localorg.test", password: "localorg-trainer")
        defer { live.remove() }
        try SyncsSoup(store: live.local.store).delete(name: "syncDownContacts")
        #expect(try await live.manager.reSync(name: "syncDownContactMetadata").status == .done)
        let admin = try await LiveSync.signIn(to: live.server)
        defer { admin.shutdown() }
        let account = try await admin.create("Account", fields: ["Name": "Territory Account"])
        let hidden = try await admin.create("Contact", fields: ["LastName": "Shared later", "MailingCity": "Zürich", "AccountId": .string(account)])
        // One of the trainer's own, newer: the incremental query then starts after the hidden one's date.
        try await LiveSync.nextSecond()
        let mine = try await live.createOnServer("Contact", ["LastName": "Mine", "MailingCity": "Zürich"])
        let zurich = try await live.manager.subscribe(name: "zurich", soup: "contacts", condition: "MailingCity = 'Zürich'")
        #expect(try await live.manager.reSync(name: "zurich").status == .done)
        #expect(try live.local.documents("contacts").compactMap { $0["Id"]?.stringValue } == [mine])
        // A territory realignment: the account is the trainer's to see now, and no record changes.
        try await LiveSync.nextSecond()
        _ = try await live.server.command(["share", "add", "trainer@localorg.test", account, "--reason", "territory"])
        #expect(try await live.manager.reSync(name: "zurich").status == .done)
        #expect(try await live.manager.cleanResyncGhosts(name: "zurich") == 0)
        #expect(await live.manager.lastArrivals[zurich.id] == 1)
        #expect(try live.local.document("contacts", id: hidden) != nil)
        let members = try SyncMembers(store: live.local.store)
        #expect(Set(try live.local.store.read { try members.ids(syncId: zurich.id, soup: "contacts", in: $0) }) == [mine, hidden])
    }
}
