import ForceJSON
import Foundation
import SmartStore
import Testing

@testable import MobileSync

/// `SyncManager.subscribe` and `unsubscribe` against a real localorg: what is refused before
/// anything is stored, and what an unsubscribe removes, keeps and leaves waiting.
@Suite("Subscribing and unsubscribing")
struct LiveSubscribeTests {
    /// The reason a subscribe gives, or nil when it was accepted.
    static func refusal(_ live: LiveSync, _ name: String, soup: String = "contacts", _ condition: String) async -> String? {
        do {
            _ = try await live.manager.subscribe(name: name, soup: soup, condition: condition)
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test(
        "A field the object lacks (in the kept describe or the org's), one the sync does not fetch, a long text area, two conditions, a config sync's name: each refused with its reason, nothing stored"
    )
    func refusals() async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        // No describe kept yet: the org's is asked for (a config without a metadata sync).
        #expect(await Self.refusal(live, "early", "MailingCity = 'Zürich'") == nil)
        #expect(await Self.refusal(live, "early", "Nickname__c = 'Ada'")?.contains("Contact has no field Nickname__c") == true)
        _ = try await live.manager.unsubscribe(name: "early")
        #expect(try await live.manager.reSync(name: "syncDownContactMetadata").status == .done)
        let before = try SyncsSoup(store: live.local.store).all().count

        let cases: [(String, String)] = [
            ("Nickname__c = 'Ada'", "Contact has no field Nickname__c, or your profile does not let you read it"),
            ("LeadSource = 'Web'", "the sync of Contact does not fetch LeadSource"),
            ("Description = 'met at the fair'", "Contact.Description cannot be filtered"),
            ("1=1) OR (Name != null", "is not one SOQL condition"),
            ("MailingCity = 'Zürich' ORDER BY LastName", "is not one SOQL condition"),
            ("MailingCity = 'Zürich' AND Title = 'x' OR Phone = '1'", "is not one SOQL condition"),
            ("AccountId IN (SELECT Id FROM Account)", "a subquery"),
            ("", "the condition is empty"),
        ]
        for (condition, reason) in cases {
            let refused = await Self.refusal(live, "slice", condition)
            #expect(refused?.contains(reason) == true, "\(condition): \(refused ?? "accepted")")
            #expect(refused?.hasSuffix("nothing was stored") == true)
        }
        let configName = await Self.refusal(live, "syncDownContacts", "MailingCity = 'Zürich'")
        #expect(configName?.contains("usersyncs.json has a sync named syncDownContacts, and the config's syncs cannot be changed") == true)
        let caseOnly = await Self.refusal(live, "syncdowncontacts", "MailingCity = 'Zürich'")
        #expect(caseOnly?.contains("usersyncs.json has a sync named syncDownContacts, which differs only in case") == true, "\(caseOnly ?? "accepted")")
        let unknownSoup = await Self.refusal(live, "slice", soup: "leads", "Status = 'Open'")
        #expect(unknownSoup?.contains("no sync of the config fetches or sends the soup leads") == true)
        #expect(try SyncsSoup(store: live.local.store).all().count == before)

        // Accepted: a condition over fetched fields, mixing AND and OR with parentheses.
        let state = try await live.manager.subscribe(name: "slice", soup: "contacts", condition: "(MailingCity = 'Zürich' OR MailingCity = 'Bern') AND AccountId != null")
        #expect(state.status == .new && state.subscription?.state == .pending)
        guard case let .down(target) = state.target, case let .soql(query, _) = target.kind else { throw MobileSyncError.invalidTarget("not SOQL") }
        #expect(query.hasPrefix("SELECT FirstName, LastName, Title") && query.hasSuffix("FROM Contact WHERE ((MailingCity = 'Zürich' OR MailingCity = 'Bern') AND AccountId != null)"))
    }

    @Test("A field the user's profile hides is refused as missing: the stored describe is the user's")
    func hiddenField() async throws {
        let live = try await LiveSync(username: "trainer@localorg.test", password: "localorg-trainer")
        defer { live.remove() }
        _ = try await live.server.command(["profile", "add", "Field Sales", "--hidden", "Contact.Department"])
        _ = try await live.server.command(["user", "profile", "trainer@localorg.test", "Field Sales"])
        #expect(try await live.manager.reSync(name: "syncDownContactMetadata").status == .done)
        let refused = await Self.refusal(live, "sales", "Department = 'Sales'")
        #expect(refused?.contains("Contact has no field Department, or your profile does not let you read it") == true, "\(refused ?? "accepted")")
        #expect(await Self.refusal(live, "sales", "Title = 'Sales'") == nil)
    }

    @Test("Unsubscribing removes what nothing else holds, keeps an unsent change until it is sent, and the subscription's state goes")
    func unsubscribe() async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        // Contacts are only sent by this config: the subscription alone brings them.
        try SyncsSoup(store: live.local.store).delete(name: "syncDownContacts")
        #expect(try await live.manager.reSync(name: "syncDownContactMetadata").status == .done)
        let ada = try await live.createOnServer("Contact", ["LastName": "Ada", "MailingCity": "Zürich"])
        let bo = try await live.createOnServer("Contact", ["LastName": "Bo", "MailingCity": "Zürich"])
        _ = try await live.createOnServer("Contact", ["LastName": "Cy", "MailingCity": "Bern"])
        let made = try await live.manager.subscribe(name: "zurich", soup: "contacts", condition: "MailingCity = 'Zürich'")
        #expect(try await live.manager.reSync(name: "zurich").status == .done)
        #expect(Set(try live.local.documents("contacts").compactMap { $0["Id"]?.stringValue }) == [ada, bo])

        // Subscribing again with another condition changes it, and runs it whole next time.
        let changed = try await live.manager.subscribe(name: "zurich", soup: "contacts", condition: "MailingCity = 'Zürich' AND LastName != null")
        #expect(changed.id == made.id && changed.status == .new && changed.maxTimeStamp == -1)
        #expect(changed.subscription?.previousCondition == nil, "the first run had not marked it complete")

        try live.saveLocally(Records.edited(try #require(try live.local.document("contacts", id: bo)), ["Title": "Edited here"]), in: "contacts")
        let outcome = try await live.manager.unsubscribe(name: "zurich")
        #expect(outcome == SubscriptionRelease.Outcome(removed: 1, waiting: 1, kept: 0))
        #expect(try live.local.documents("contacts").compactMap { $0["Id"]?.stringValue } == [bo])
        #expect(try SyncsSoup(store: live.local.store).state(name: "zurich") == nil)

        // Sent, then let go by the sweep.
        #expect(try await live.manager.reSync(name: "syncUpContacts").status == .done)
        let members = try SyncMembers(store: live.local.store)
        let release = SubscriptionRelease(soupName: "contacts", configHolders: [], members: members)
        #expect(try live.local.store.write { try release.sweepLeaving(in: $0) } == 1)
        #expect(try live.local.documents("contacts").isEmpty)
        #expect(try await live.serverRecords("SELECT Title FROM Contact WHERE LastName = 'Bo'").first?["Title"] == "Edited here")

        let configSync = await { () async -> String in
            do { _ = try await live.manager.unsubscribe(name: "syncUpContacts") } catch { return "\(error)" }
            return "accepted"
        }()
        #expect(configSync.contains("it is a sync of usersyncs.json, not a subscription"))
    }

    @Test("An account taken offline brings its contacts; one created under it arrives at the next sync, one moved away leaves")
    func anAccountAndItsContacts() async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        try SyncsSoup(store: live.local.store).delete(name: "syncDownContacts")
        let acme = try await live.createOnServer("Account", ["Name": "Acme"])
        let other = try await live.createOnServer("Account", ["Name": "Other"])
        let ada = try await live.createOnServer("Contact", ["LastName": "Ada", "AccountId": .string(acme)])
        let bo = try await live.createOnServer("Contact", ["LastName": "Bo", "AccountId": .string(acme)])
        _ = try await live.createOnServer("Contact", ["LastName": "Cy", "AccountId": .string(other)])
        #expect(try await live.manager.reSync(name: "syncDownAccounts").status == .done)
        let notAnId = await Self.refusalOfAccount(live, "Acme Inc")
        #expect(notAnId?.contains("is not an account id") == true)
        let states = try await live.manager.subscribe(name: "acme", account: acme)
        #expect(states.map(\.name) == ["acme", "acme.contacts"] && states.map(\.soupName) == ["accounts", "contacts"])
        for state in states {
            #expect(try await live.manager.reSync(id: state.id).status == .done)
            _ = try await live.manager.cleanResyncGhosts(id: state.id, justSynced: true)
        }
        #expect(Set(try live.local.documents("contacts").compactMap { $0["Id"]?.stringValue }) == [ada, bo])

        try await LiveSync.nextSecond()
        let dee = try await live.createOnServer("Contact", ["LastName": "Dee", "AccountId": .string(acme)])
        try await live.client.update("Contact", id: bo, fields: ["AccountId": .string(other)])
        #expect(try await live.manager.reSync(name: "acme.contacts").status == .done)
        #expect(try await live.manager.cleanResyncGhosts(name: "acme.contacts") == 1, "Bo moved to another account")
        #expect(Set(try live.local.documents("contacts").compactMap { $0["Id"]?.stringValue }) == [ada, dee])

        // Another account under the same name: the same two syncs, to run whole next time.
        let moved = try await live.manager.subscribe(name: "acme", account: other)
        #expect(moved.map(\.id) == states.map(\.id) && moved.allSatisfy { $0.status == .new && $0.maxTimeStamp == -1 })
        #expect(moved.allSatisfy { $0.subscription?.selection == .account(other) && $0.subscription?.state == .pending })

        // Unsubscribed: both syncs go; the account stays, the config's accounts sync holds it.
        #expect(try await live.manager.unsubscribe(name: "acme") == SubscriptionRelease.Outcome(removed: 2, waiting: 0, kept: 1))
        #expect(try SyncsSoup(store: live.local.store).subscriptions().isEmpty)
        #expect(try live.local.documents("contacts").isEmpty)
        #expect(try live.local.documents("accounts").compactMap { $0["Id"]?.stringValue }.sorted() == [acme, other].sorted())
    }

    static func refusalOfAccount(_ live: LiveSync, _ account: String) async -> String? {
        do {
            _ = try await live.manager.subscribe(name: "acme", account: account)
            return nil
        } catch {
            return "\(error)"
        }
    }
}
