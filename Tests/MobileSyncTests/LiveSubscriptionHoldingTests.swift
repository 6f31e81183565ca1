import ForceJSON
import Foundation
import SmartStore
import Testing

@testable import MobileSync

/// How a subscription's sync down holds what it fetches (a member row per record, the config
/// sync's `__sync_id__` left alone), and how a config sync's ghost check treats those records:
/// against a real localorg, on a real store file.
@Suite("Subscriptions hold their records beside the config's syncs")
struct LiveSubscriptionHoldingTests {
    static let fields = "Id, LastName, MailingCity, LastModifiedDate"

    /// A subscription state into `soup`, as `forceterm subscribe` stores it.
    static func subscribe(_ live: LiveSync, name: String, condition: String, soup: String = "contacts") throws -> SyncState {
        var state = SyncState(
            name: name, target: .down(.soql("SELECT \(fields) FROM Contact WHERE (\(condition))")),
            options: SyncOptions(mergeMode: .leaveIfChanged), soupName: soup)
        state.subscription = Subscription(name: name, selection: .condition(condition))
        return try SyncsSoup(store: live.local.store).create(state)
    }

    static func ids(heldBy syncId: Int64, soup: String = "contacts", in live: LiveSync) throws -> Set<String> {
        let members = try SyncMembers(store: live.local.store)
        return try live.local.store.read { try Set(members.ids(syncId: syncId, soup: soup, in: $0)) }
    }

    static func syncIds(_ live: LiveSync, soup: String = "contacts") throws -> [String: Int64] {
        var owners: [String: Int64] = [:]
        for record in try live.local.documents(soup) {
            if let id = record["Id"]?.stringValue { owners[id] = record[LocalField.syncId]?.int64Value }
        }
        return owners
    }

    @Test("A subscription's sync writes a member row for each record it returns and leaves the config sync's __sync_id__ as it was")
    func membersWithoutTakingRecords() async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        let ada = try await live.createOnServer("Contact", ["LastName": "Ada", "MailingCity": "Zürich"])
        let cy = try await live.createOnServer("Contact", ["LastName": "Cy", "MailingCity": "Bern"])
        try await live.syncDown()
        let config = try #require(try SyncsSoup(store: live.local.store).state(name: "syncDownContacts")).id
        let bo = try await live.createOnServer("Contact", ["LastName": "Bo", "MailingCity": "Zürich"])
        let zurich = try Self.subscribe(live, name: "zurich", condition: "MailingCity = 'Zürich'")
        let done = try await live.manager.reSync(name: "zurich")
        #expect(done.status == .done)
        #expect(try Self.ids(heldBy: zurich.id, in: live) == [ada, bo])
        // Ada was the config sync's and stays so; Bo came first through the subscription.
        #expect(try Self.syncIds(live) == [ada: config, cy: config, bo: zurich.id])
        // Run again with nothing changed: the same rows, none doubled.
        _ = try await live.manager.reSync(name: "zurich")
        #expect(try live.local.documents(SyncMembers.soupName).count == 2)
    }

    @Test("A config sync's ghost check in a soup without a __sync_id__ index removes its own ghosts and never what a subscription holds")
    func unindexedConfigGhostCheckKeepsMembers() async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        // As the Mobile SDK's Swift template keeps contacts: no index on __sync_id__, so every
        // clean record of the soup is a candidate of the config sync's ghost check.
        _ = try live.local.store.registerSoup(
            "people", indexSpecs: [IndexSpec(path: "Id", type: .string), IndexSpec(path: "LastModifiedDate", type: .string), IndexSpec(path: "__local__", type: .string)])
        let ada = try await live.createOnServer("Contact", ["LastName": "Ada", "MailingCity": "Zürich"])
        let bo = try await live.createOnServer("Contact", ["LastName": "Bo", "MailingCity": "Zürich"])
        let cy = try await live.createOnServer("Contact", ["LastName": "Cy", "MailingCity": "Bern"])
        let dee = try await live.createOnServer("Contact", ["LastName": "Dee", "MailingCity": "Bern"])
        _ = try await live.manager.syncDown(
            .soql("SELECT \(Self.fields) FROM Contact WHERE MailingCity = 'Bern'"), options: SyncOptions(mergeMode: .leaveIfChanged),
            soupName: "people", name: "bern")
        _ = try Self.subscribe(live, name: "zurich", condition: "MailingCity = 'Zürich'", soup: "people")
        _ = try await live.manager.reSync(name: "zurich")
        #expect(Set(try Self.syncIds(live, soup: "people").keys) == [ada, bo, cy, dee])

        #expect(try await live.manager.cleanResyncGhosts(name: "bern") == 0, "Ada and Bo are the subscription's, not ghosts of bern")
        try await live.server.command(["delete", "Contact", cy])
        #expect(try await live.manager.cleanResyncGhosts(name: "bern") == 1)
        #expect(Set(try Self.syncIds(live, soup: "people").keys) == [ada, bo, dee])
    }

    @Test("A ghost of the config sync that a subscription holds stays, and passes to the subscription")
    func aConfigGhostPassesToItsSubscription() async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        let ada = try await live.createOnServer("Contact", ["LastName": "Ada", "MailingCity": "Zürich"])
        let bo = try await live.createOnServer("Contact", ["LastName": "Bo", "MailingCity": "Bern"])
        try await live.syncDown()
        let zurich = try Self.subscribe(live, name: "zurich", condition: "MailingCity = 'Zürich'")
        _ = try await live.manager.reSync(name: "zurich")
        // The config sync leaves Ada (as a sharing change or a narrowed config would): here by
        // narrowing its query to Bern.
        var config = try #require(try SyncsSoup(store: live.local.store).state(name: "syncDownContacts"))
        config.target = .down(.soql("SELECT \(Self.fields) FROM Contact WHERE MailingCity = 'Bern'"))
        try SyncsSoup(store: live.local.store).save(config)
        #expect(try await live.manager.cleanResyncGhosts(name: "syncDownContacts") == 0)
        #expect(try Self.syncIds(live) == [ada: zurich.id, bo: config.id])
    }

    @Test("A config sync holds again what a subscription brought first, so its count of its own records matches the server's")
    func theConfigSyncClaimsWhatItReturns() async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        _ = try await live.createOnServer("Contact", ["LastName": "Ada", "MailingCity": "Zürich"])
        try await live.syncDown()
        let config = try #require(try SyncsSoup(store: live.local.store).state(name: "syncDownContacts")).id
        let zurich = try Self.subscribe(live, name: "zurich", condition: "MailingCity = 'Zürich'")
        // Bo reaches the store through the subscription before the config sync runs again.
        let bo = try await live.createOnServer("Contact", ["LastName": "Bo", "MailingCity": "Zürich"])
        _ = try await live.manager.reSync(name: "zurich")
        #expect(try Self.syncIds(live)[bo] == zurich.id)
        let cleaner = GhostCleaner(soupName: "contacts", syncId: config)
        #expect(try live.local.store.read { try cleaner.syncedCount(in: $0) } == 1)

        #expect(try await live.manager.cleanResyncGhosts(name: "syncDownContacts") == 0)
        #expect(try Self.syncIds(live)[bo] == config)
        #expect(try live.local.store.read { try cleaner.syncedCount(in: $0) } == 2, "the server's count for syncDownContacts")
        #expect(try Self.ids(heldBy: zurich.id, in: live).contains(bo), "the subscription still holds Bo")
    }
}
