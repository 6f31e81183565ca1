import ForceJSON
import Foundation
import SmartStore
import Testing

@testable import MobileSync

/// A subscription is a named sync down whose state says so (`subscription`), kept beside the
/// config's syncs in syncs_soup.
@Suite("Subscriptions in syncs_soup")
struct SubscriptionStateTests {
    static func zurich(state: Subscription.State = .pending) -> SyncState {
        var sync = SyncState(
            name: "zurich", target: .down(.soql("SELECT FirstName, LastName FROM Contact WHERE (MailingCity = 'Zürich')")),
            options: SyncOptions(mergeMode: .leaveIfChanged), soupName: "contacts")
        sync.subscription = Subscription(name: "zurich", selection: .condition("MailingCity = 'Zürich'"), state: state)
        return sync
    }

    @Test func aSubscriptionSurvivesEverySaveOfItsState() throws {
        let fixture = try SyncStore()
        let syncs = try SyncsSoup(store: fixture.store)
        var created = try syncs.create(Self.zurich())
        #expect(created.subscription == Subscription(name: "zurich", selection: .condition("MailingCity = 'Zürich'")))
        created.transition(to: .running, now: 1_000)
        created.transition(to: .done, now: 2_000)
        created.subscription?.state = .complete
        created.subscription?.previousCondition = "MailingCity = 'Bern'"
        try syncs.save(created)
        let reread = try #require(try syncs.state(name: "zurich"))
        #expect(reread == created)
        #expect(reread.subscription?.previousCondition == "MailingCity = 'Bern'")
    }

    @Test func anAccountSubscriptionNamesItsAccountAndPlainSyncsHaveNoKey() throws {
        var account = SyncState(name: "acme", target: .down(.soql("SELECT Name FROM Account WHERE Id = '001000000000001AAA'")), options: SyncOptions(), soupName: "accounts")
        account.subscription = Subscription(name: "acme", selection: .account("001000000000001AAA"))
        let document = JSONValue.object(account.json)
        #expect(document["subscription"]?["account"]?.stringValue == "001000000000001AAA")
        #expect(document["subscription"]?["where"] == nil)
        #expect(try SyncState(json: account.json) == account)

        let plain = SyncState(name: "syncDownAccounts", target: .down(.soql("SELECT Name FROM Account")), options: SyncOptions(), soupName: "accounts")
        #expect(plain.json["subscription"] == nil, "a config sync's document keeps exactly the SDK's keys")
        #expect(try SyncState(json: plain.json).subscription == nil)
    }

    @Test(arguments: [
        (#"{"name": "x"}"#, "the subscription x needs either \"where\" or \"account\""),
        (#"{"name": "x", "where": "A = 1", "account": "001"}"#, "the subscription x needs either \"where\" or \"account\""),
        (#"{"name": "x", "where": "A = 1", "state": "done"}"#, "the subscription x has an unknown state \"done\"; use one of pending, complete, error, removing"),
        (#"{"where": "A = 1"}"#, "a subscription needs a \"name\""),
        (#""zurich""#, "a sync's \"subscription\" must be an object, found \"zurich\""),
    ])
    func aDamagedSubscriptionIsNamedNotDropped(subscription: String, message: String) throws {
        var document = Self.zurich().json
        document["subscription"] = try JSONParser.parse(subscription)
        #expect(throws: MobileSyncError.invalidConfig(message)) { try SyncState(json: document) }
    }

    @Test func aConfigSyncOfTheSameNameIsRefusedAndTheSubscriptionKept() throws {
        let fixture = try SyncStore()
        let syncs = try SyncsSoup(store: fixture.store)
        var stored = try syncs.create(Self.zurich(state: .complete))
        stored.maxTimeStamp = 1_700_000_000_000
        try syncs.save(stored)
        let config = try SyncsConfig(
            json: """
                {"syncs": [{"syncName": "zurich", "syncType": "syncDown", "soupName": "contacts",
                            "target": {"type": "soql", "query": "SELECT LastName FROM Contact"}}]}
                """)
        #expect(
            throws: MobileSyncError.invalidConfig(
                "usersyncs.json names the sync zurich, which is a subscription (forceterm subscribe): remove it with forceterm unsubscribe zurich, or give the config's sync another name"
            )
        ) { try syncs.apply(config) }
        #expect(try syncs.state(name: "zurich") == stored, "nothing of the subscription changed")
    }
}
