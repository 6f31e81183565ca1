import ForceJSON
import ForcetermServices
import Foundation
import Synchronization
import Testing

@testable import MobileSync

/// A remote whose every write request takes `delay` longer (a slow link's round trip), noting
/// the sObject types of the requests out at once.
final class SlowWritesRemote: ForwardingRemote {
    let remote: any SyncRemote
    let delay: Duration
    private let writes = Mutex((out: [String](), mostAtOnce: [String]()))
    /// The types of the most requests that were out together.
    var mostAtOnce: [String] { writes.withLock { $0.mostAtOnce.sorted() } }

    init(remote: any SyncRemote, delay: Duration) {
        self.remote = remote
        self.delay = delay
    }

    func send(_ batch: [RecordWrite], route: WriteRoute) async throws(SyncRemoteError) -> [RecordOutcome] {
        let type = batch.first?.sobjectType ?? "?"
        writes.withLock { state in
            state.out.append(type)
            if state.out.count > state.mostAtOnce.count { state.mostAtOnce = state.out }
        }
        defer { writes.withLock { state in state.out.remove(at: state.out.firstIndex(of: type) ?? 0) } }
        try? await Task.sleep(for: delay)
        return try await remote.send(batch, route: route)
    }
}

@Suite("forceterm sync runs its sync ups side by side where their order cannot matter", .serialized)
struct LiveSyncRunUpTests {
    static let config = SyncStore.packageRoot.appendingPathComponent("config/usersyncs.json")

    @Test("Edits of accounts and of contacts are sent at once; both reach the server")
    func editsSideBySide() async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        try await live.server.command(["seed", "--accounts", "2", "--contacts", "4"])
        try await live.syncDown()
        let account = try #require(try live.local.documents("accounts").first)
        let contact = try #require(try live.local.documents("contacts").first)
        try live.saveLocally(Records.edited(account, ["Phone": "+1 555 0199"]), in: "accounts")
        try live.saveLocally(Records.edited(contact, ["Title": "Met at the fair"]), in: "contacts")
        let remote = SlowWritesRemote(remote: ForceClientRemote(client: live.client), delay: .milliseconds(300))
        let manager = try SyncManager(store: live.local.store, remote: remote)
        let report = try await SyncRun(entries: try SyncsConfig(contentsOf: Self.config).entries, up: true, down: false, forceDelete: false)
            .run(manager: manager, store: live.local.store) { _ in }
        #expect(report.failure == nil, "\(String(describing: report.failure))")
        #expect(remote.mostAtOnce == ["Account", "Contact"], "the two sync ups' requests were out together")
        #expect(report.updated == 2 && report.sent == 2, "\(report)")
        let phone = try await live.client.query("SELECT Phone FROM Account WHERE Id = '\(account["Id"]?.stringValue ?? "")'").records
        let title = try await live.client.query("SELECT Title FROM Contact WHERE Id = '\(contact["Id"]?.stringValue ?? "")'").records
        #expect(phone.first?["Phone"] == "+1 555 0199" && title.first?["Title"] == "Met at the fair")
    }

    @Test("A contact of an account created here waits for the account's sync up and is sent with its server id")
    func referenceWaits() async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        let localAccount = "local_1700000000000"
        try live.saveLocally(Records.created(localAccount, type: "Account", fields: ["Name": "Field Lead Ltd"]), in: "accounts")
        try live.saveLocally(
            Records.created("local_1700000000001", fields: ["LastName": "Lead", "AccountId": .string(localAccount)]),
            in: "contacts")
        let remote = SlowWritesRemote(remote: ForceClientRemote(client: live.client), delay: .milliseconds(300))
        let manager = try SyncManager(store: live.local.store, remote: remote)
        let report = try await SyncRun(entries: try SyncsConfig(contentsOf: Self.config).entries, up: true, down: false, forceDelete: false)
            .run(manager: manager, store: live.local.store) { _ in }
        #expect(report.failure == nil && report.created == 2, "\(report)")
        #expect(remote.mostAtOnce.count == 1, "one request out at a time: \(remote.mostAtOnce)")
        let rows = try await live.client.query("SELECT Account.Name FROM Contact WHERE LastName = 'Lead'").records
        #expect(rows.first?["Account"]?["Name"] == "Field Lead Ltd")
    }

    @Test("Waves: side by side unless a sync up deletes, refers to a record not on the server yet, or shares a soup")
    func waves() throws {
        let fixture = try SyncStore()
        let entries = try SyncsConfig(contentsOf: Self.config).entries.filter { $0.type == .syncUp }
        let names = { (waves: [[SyncsConfig.Entry]]) in waves.map { $0.map(\.name) } }
        #expect(names(try SyncUpWaves.plan(entries, store: fixture.store)) == [["syncUpAccounts", "syncUpContacts"]])

        // A new contact (its own id local_) and an edited account: still together.
        let account = try fixture.store.create(
            [
                "attributes": ["type": "Account"], "Id": "001000000000001AAA", "Name": "Acme",
                "LastModifiedDate": "2024-05-01T10:00:00.000+0000",
            ], in: "accounts")
        let contact = try fixture.store.create(Records.created("local_2", fields: ["LastName": "New"]), in: "contacts")
        _ = try fixture.store.update(Records.edited(account, ["Name": "Acme Ltd"]), id: try #require(account.soupEntryId), in: "accounts")
        #expect(names(try SyncUpWaves.plan(entries, store: fixture.store)) == [["syncUpAccounts", "syncUpContacts"]])

        // The contact now refers to an account created here.
        var referring = contact
        referring["AccountId"] = "local_1"
        _ = try fixture.store.update(referring, id: try #require(contact.soupEntryId), in: "contacts")
        #expect(names(try SyncUpWaves.plan(entries, store: fixture.store)) == [["syncUpAccounts"], ["syncUpContacts"]])
        // …or to its account by an external id, which the accounts' sync up may be creating.
        referring["AccountId"] = ["Ext__c": "ACME-1"]
        _ = try fixture.store.update(referring, id: try #require(contact.soupEntryId), in: "contacts")
        #expect(names(try SyncUpWaves.plan(entries, store: fixture.store)) == [["syncUpAccounts"], ["syncUpContacts"]])
        referring["AccountId"] = "001000000000001AAA"
        _ = try fixture.store.update(referring, id: try #require(contact.soupEntryId), in: "contacts")
        #expect(names(try SyncUpWaves.plan(entries, store: fixture.store)) == [["syncUpAccounts", "syncUpContacts"]])

        // A contact kept in the accounts soup too: the same sObject type on both sides, in file order.
        let stray = try fixture.store.create(Records.edited(Records.contact("003000000000009AAA", last: "Stray"), ["Title": "Both"]), in: "accounts")
        #expect(names(try SyncUpWaves.plan(entries, store: fixture.store)) == [["syncUpAccounts"], ["syncUpContacts"]])
        try fixture.store.delete([try #require(stray.soupEntryId)], from: "accounts")

        // The account deleted here: its contacts may go with it on the server.
        _ = try fixture.store.update(LocalEdit.deleted(account), id: try #require(account.soupEntryId), in: "accounts")
        #expect(names(try SyncUpWaves.plan(entries, store: fixture.store)) == [["syncUpAccounts"], ["syncUpContacts"]])

        // Two sync ups of one soup stay one after another.
        #expect(names(try SyncUpWaves.plan([entries[1], entries[1]], store: fixture.store)) == [["syncUpContacts"], ["syncUpContacts"]])
    }
}
