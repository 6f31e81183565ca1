import ForceJSON
import ForcetermServices
import Foundation
import SmartStore
import Testing

@testable import MobileSync

/// The subscriptions' property, against a real localorg: random subscribes (new names and changed
/// conditions), accounts taken offline, unsubscribes, local edits, records moved and created on
/// the server, and sync runs as `forceterm sync` makes them. After every step no unsent change is
/// gone from the store; after every sync run the store holds exactly what the subscriptions
/// select on the server, and every edit made here is on the server.
@Suite("Subscription property: the store is what the subscriptions select", .serialized)
struct SubscriptionPropertyTests {
    /// `FORCETERM_SUBSCRIPTION_PROPERTY_SEEDS=1,2,3` replays or widens the search.
    static var seeds: [UInt64] {
        let text = ProcessInfo.processInfo.environment["FORCETERM_SUBSCRIPTION_PROPERTY_SEEDS"] ?? "3,8"
        return text.split(separator: ",").compactMap { UInt64($0.trimmingCharacters(in: .whitespaces)) }
    }

    static let cities = ["Zürich", "Bern", "Oslo", "Paris"]

    @Test("Random subscription changes, edits and server moves: nothing unsent is lost, each sync leaves exactly the selected set", arguments: seeds)
    func holdsWhatIsSelected(seed: UInt64) async throws {
        var run = try await SubscriptionRun(seed: seed)
        defer { run.live.remove() }
        for step in 0..<36 { try await run.step(step) }
        try await run.sync()
    }
}

/// One run: the org, the store (its config syncs accounts and sends contacts, fetching none), the
/// subscriptions the test made, and the edits not sent yet.
struct SubscriptionRun {
    let live: LiveSync
    var random: SeededGenerator
    let accounts: [String]
    let entries: [SyncsConfig.Entry]
    /// Each subscription's condition on the server (an account's: its contacts').
    var active: [String: String] = [:]
    /// Contacts edited here and not sent yet: their Title.
    var unsent: [String: String] = [:]
    var log: [String] = []

    init(seed: UInt64) async throws {
        live = try await LiveSync()
        random = SeededGenerator(seed: seed)
        try SyncsSoup(store: live.local.store).delete(name: "syncDownContacts")
        let url = SyncStore.packageRoot.appendingPathComponent("config/usersyncs.json")
        entries = try SyncsConfig(contentsOf: url).entries.filter { $0.name != "syncDownContacts" }
        var accounts: [String] = []
        for name in ["North", "South"] { accounts.append(try await live.createOnServer("Account", ["Name": .string(name)])) }
        self.accounts = accounts
        for index in 0..<16 {
            var fields: JSONObject = ["LastName": .string("P\(index)"), "MailingCity": .string(SubscriptionPropertyTests.cities[index % 4])]
            if index % 3 != 2 { fields["AccountId"] = .string(accounts[index % 2]) }
            _ = try await live.createOnServer("Contact", fields)
        }
        try await sync()
    }

    var conditions: [String] {
        [
            "MailingCity = 'Zürich'", "MailingCity = 'Bern'", "MailingCity IN ('Zürich', 'Oslo')", "MailingCity != 'Paris'",
            "MailingCity = 'Oslo' OR AccountId = '\(accounts[0])'", "(MailingCity = 'Bern' AND AccountId != null)",
        ]
    }

    func stored() throws -> [String: JSONObject] {
        var byId: [String: JSONObject] = [:]
        for record in try live.local.documents("contacts") { if let id = record["Id"]?.stringValue { byId[id] = record } }
        return byId
    }

    mutating func step(_ number: Int) async throws {
        let names = ["s1", "s2", "acc"]
        switch Int.random(in: 0..<10, using: &random) {
        case 0, 1:
            let name = ["s1", "s2"].randomElement(using: &random) ?? "s1"
            let condition = conditions.randomElement(using: &random) ?? conditions[0]
            _ = try await live.manager.subscribe(name: name, soup: "contacts", condition: condition)
            active[name] = condition
            log.append("\(number): subscribe \(name) \(condition)")
        case 2:
            let account = accounts.randomElement(using: &random) ?? accounts[0]
            _ = try await live.manager.subscribe(name: "acc", account: account)
            active["acc"] = "AccountId = '\(account)'"
            log.append("\(number): account offline \(account)")
        case 3:
            guard let name = names.filter({ active[$0] != nil }).randomElement(using: &random) else { return }
            _ = try await live.manager.unsubscribe(name: name)
            active[name] = nil
            log.append("\(number): unsubscribe \(name)")
        case 4, 5:
            guard let (id, record) = try stored().sorted(by: { $0.key < $1.key }).randomElement(using: &random) else { return }
            let title = "Edit \(number)"
            try live.saveLocally(Records.edited(record, ["Title": .string(title)]), in: "contacts")
            unsent[id] = title
            log.append("\(number): edit \(id) here")
        case 6, 7:
            // Records edited here are left alone on the server: a conflict is another property's.
            let ids = try await live.serverRecords("SELECT Id FROM Contact ORDER BY Id").compactMap { $0["Id"]?.stringValue }
            guard let id = ids.filter({ unsent[$0] == nil }).randomElement(using: &random) else { return }
            let city = SubscriptionPropertyTests.cities.randomElement(using: &random) ?? "Bern"
            let account = Bool.random(using: &random) ? (accounts.randomElement(using: &random) ?? accounts[0]) : ""
            _ = try await live.server.command(["edit", "Contact", id, "MailingCity=\(city)", "AccountId=\(account)"])
            log.append("\(number): server moves \(id) to \(city) \(account)")
        case 8:
            let city = SubscriptionPropertyTests.cities.randomElement(using: &random) ?? "Oslo"
            let id = try await live.createOnServer("Contact", ["LastName": .string("New \(number)"), "MailingCity": .string(city)])
            log.append("\(number): server creates \(id) in \(city)")
        default:
            try await sync()
            log.append("\(number): sync")
        }
        let now = try stored()
        for (id, title) in unsent {
            #expect(now[id]?["Title"]?.stringValue == title, "an unsent change is gone: \(id)\n\(log.joined(separator: "\n"))")
        }
    }

    /// A sync run as `forceterm sync` makes it, then the checks.
    mutating func sync() async throws {
        let all = entries + (try SyncsSoup(store: live.local.store).subscriptionEntries())
        let report = try await SyncRun(entries: all, up: true, down: true, forceDelete: false).run(manager: live.manager, store: live.local.store) { _ in }
        try #require(report.failure == nil, "\(String(describing: report.failure))\n\(log.joined(separator: "\n"))")
        var selected = Set<String>()
        for condition in active.values {
            selected.formUnion(try await live.serverRecords("SELECT Id FROM Contact WHERE \(condition)").compactMap { $0["Id"]?.stringValue })
        }
        let held = try stored()
        #expect(Set(held.keys) == selected, "held \(held.keys.sorted()), selected \(selected.sorted())\n\(log.joined(separator: "\n"))")
        for (id, title) in unsent {
            let server = try await live.serverRecords("SELECT Title FROM Contact WHERE Id = '\(id)'").first
            #expect(server?["Title"]?.stringValue == title, "\(id)'s edit never reached the server\n\(log.joined(separator: "\n"))")
        }
        unsent = [:]
        #expect(try live.local.documents("contacts").allSatisfy { $0[LocalField.local]?.boolValue != true }, "everything was sent")
    }
}
