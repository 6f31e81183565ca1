import ForceJSON
import Foundation
import SmartStore
import Testing

@testable import MobileSync

/// Subscribing again with the same name and another condition, against a real localorg: the
/// store, which holds the old set, receives only the difference, and lets go of what the new
/// condition leaves out once the new set is known.
@Suite("Changing a subscription's condition")
struct LiveSubscriptionChangeTests {
    static func stored(_ live: LiveSync) throws -> Set<String> {
        Set(try live.local.documents("contacts").compactMap { $0["Id"]?.stringValue })
    }

    /// One run of the subscription as `forceterm sync` runs it: the sync down, then its ghost check.
    static func run(_ live: LiveSync, _ name: String) async throws -> (received: Int, arrived: Int, removed: Int) {
        let state = try await live.manager.reSync(name: name)
        try #require(state.status == .done)
        let received = await live.manager.lastSyncDownSummary[state.id]?.received ?? -1
        let removed = try await live.manager.cleanResyncGhosts(id: state.id, justSynced: true)
        return (received, await live.manager.lastArrivals[state.id] ?? 0, removed)
    }

    @Test(
        "Widening fetches only the records the old condition left out; narrowing fetches nothing and lets the rest go, past the mass-deletion guard; a change before the last one ran still fetches only the difference"
    )
    func difference() async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        try SyncsSoup(store: live.local.store).delete(name: "syncDownContacts")
        #expect(try await live.manager.reSync(name: "syncDownContactMetadata").status == .done)
        // Zürich's contacts are older than the high-water mark the Bern slice reaches: an
        // incremental run of the wider condition does not return them.
        let zurich = [
            try await live.createOnServer("Contact", ["LastName": "Ada", "MailingCity": "Zürich"]),
            try await live.createOnServer("Contact", ["LastName": "Bo", "MailingCity": "Zürich"]),
        ]
        let oslo = try await live.createOnServer("Contact", ["LastName": "Oda", "MailingCity": "Oslo"])
        try await Task.sleep(for: .milliseconds(1100))
        var bern: [String] = []
        for name in ["Cy", "Dee", "Eve"] { bern.append(try await live.createOnServer("Contact", ["LastName": .string(name), "MailingCity": "Bern"])) }

        _ = try await live.manager.subscribe(name: "cities", soup: "contacts", condition: "MailingCity = 'Bern'")
        let first = try await Self.run(live, "cities")
        #expect(first.received == 3)
        #expect(try Self.stored(live) == Set(bern))
        let mark = try #require(try SyncsSoup(store: live.local.store).state(name: "cities")).maxTimeStamp
        #expect(try SyncsSoup(store: live.local.store).state(name: "cities")?.subscription?.state == .complete)

        let widened = try await live.manager.subscribe(name: "cities", soup: "contacts", condition: "MailingCity = 'Bern' OR MailingCity = 'Zürich'")
        #expect(widened.maxTimeStamp == mark && widened.subscription?.previousCondition == "MailingCity = 'Bern'")
        let comparedBefore = try #require(try SyncsSoup(store: live.local.store).state(name: "cities")).idsComparedAt
        let wider = try await Self.run(live, "cities")
        #expect(wider.arrived == 2 && wider.removed == 0, "Zürich's two came with the difference's query: \(wider)")
        #expect(try SyncsSoup(store: live.local.store).state(name: "cities")?.idsComparedAt == comparedBefore, "no id crossed for the whole set")
        #expect(wider.received <= 3, "the incremental run returns at most the mark's second again: \(wider)")
        #expect(try Self.stored(live) == Set(bern + zurich))
        let complete = try #require(try SyncsSoup(store: live.local.store).state(name: "cities"))
        #expect(complete.subscription?.state == .complete && complete.subscription?.previousCondition == nil)

        // Changed twice before running: still the difference from the set the store holds.
        _ = try await live.manager.subscribe(name: "cities", soup: "contacts", condition: "MailingCity = 'Zürich'")
        let twice = try await live.manager.subscribe(name: "cities", soup: "contacts", condition: "MailingCity = 'Zürich' OR MailingCity = 'Oslo'")
        #expect(twice.maxTimeStamp > 0 && twice.subscription?.previousCondition == "MailingCity = 'Bern' OR MailingCity = 'Zürich'")
        // Three of six leave: more than the guard lets a ghost check remove unasked.
        let narrowed = try await Self.run(live, "cities")
        #expect(narrowed.arrived == 1 && narrowed.removed == 3, "\(narrowed)")
        #expect(try Self.stored(live) == Set(zurich + [oslo]))

        // A change after the new condition's run failed is fetched whole: that run may have moved
        // the high-water mark past changes to the old set's records.
        _ = try await live.manager.subscribe(name: "cities", soup: "contacts", condition: "MailingCity = 'Bern'")
        let state = try #require(try SyncsSoup(store: live.local.store).state(name: "cities"))
        var failed = state
        failed.subscription?.state = .error
        failed.transition(to: .failed, now: SyncManager.now())
        try SyncsSoup(store: live.local.store).save(failed)
        let whole = try await live.manager.subscribe(name: "cities", soup: "contacts", condition: "MailingCity = 'Oslo'")
        #expect(whole.maxTimeStamp == -1)
    }

    @Test("A record of the old set that left it on the server after the mark shows in the count, and every id is compared: it goes too")
    func differenceFallsBack() async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        try SyncsSoup(store: live.local.store).delete(name: "syncDownContacts")
        #expect(try await live.manager.reSync(name: "syncDownContactMetadata").status == .done)
        let ada = try await live.createOnServer("Contact", ["LastName": "Ada", "MailingCity": "Zürich"])
        var bern: [String] = []
        for name in ["Cy", "Dee"] { bern.append(try await live.createOnServer("Contact", ["LastName": .string(name), "MailingCity": "Bern"])) }
        _ = try await live.manager.subscribe(name: "cities", soup: "contacts", condition: "MailingCity = 'Bern'")
        _ = try await Self.run(live, "cities")
        let compared = try #require(try SyncsSoup(store: live.local.store).state(name: "cities")).idsComparedAt
        try await live.server.command(["delete", "Contact", bern[0]])
        _ = try await live.manager.subscribe(name: "cities", soup: "contacts", condition: "MailingCity = 'Bern' OR MailingCity = 'Zürich'")
        try await Task.sleep(for: .milliseconds(20))
        let wider = try await Self.run(live, "cities")
        #expect(wider.removed == 1, "\(wider)")
        #expect(try Self.stored(live) == [ada, bern[1]])
        let state = try #require(try SyncsSoup(store: live.local.store).state(name: "cities"))
        #expect(state.idsComparedAt > compared && state.subscription?.state == .complete && state.subscription?.previousCondition == nil)
    }

    @Test(
        "A quiet resync of a condition on the records' own fields checks one count, not every id; a record deleted on the server changes the count, and then the ids are compared; a relative date is always compared by id"
    )
    func countShortcut() async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        try SyncsSoup(store: live.local.store).delete(name: "syncDownContacts")
        #expect(try await live.manager.reSync(name: "syncDownContactMetadata").status == .done)
        var bern: [String] = []
        for name in ["Cy", "Dee", "Eve"] { bern.append(try await live.createOnServer("Contact", ["LastName": .string(name), "MailingCity": "Bern"])) }
        let made = try await live.manager.subscribe(name: "bern", soup: "contacts", condition: "MailingCity = 'Bern'")
        #expect(made.subscription?.countable == true)
        _ = try await Self.run(live, "bern")
        let compared = try #require(try SyncsSoup(store: live.local.store).state(name: "bern")).idsComparedAt
        try await Task.sleep(for: .milliseconds(20))
        let quiet = try await Self.run(live, "bern")
        #expect(quiet.removed == 0 && quiet.arrived == 0)
        #expect(try SyncsSoup(store: live.local.store).state(name: "bern")?.idsComparedAt == compared, "counted, not compared")

        try await live.server.command(["delete", "Contact", bern[0]])
        let deleted = try await Self.run(live, "bern")
        #expect(deleted.removed == 1, "\(deleted)")
        #expect(try Self.stored(live) == Set(bern.dropFirst()))
        #expect(try #require(try SyncsSoup(store: live.local.store).state(name: "bern")).idsComparedAt > compared)

        let recent = try await live.manager.subscribe(name: "recent", soup: "contacts", condition: "LastModifiedDate = LAST_N_DAYS:7")
        #expect(recent.subscription?.countable == false)
        _ = try await Self.run(live, "recent")
        let first = try #require(try SyncsSoup(store: live.local.store).state(name: "recent")).idsComparedAt
        try await Task.sleep(for: .milliseconds(20))
        _ = try await Self.run(live, "recent")
        #expect(try #require(try SyncsSoup(store: live.local.store).state(name: "recent")).idsComparedAt > first)
    }
}
