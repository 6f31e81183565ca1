import ForceJSON
import Foundation
import SmartStore
import Testing

/// `forceterm subscribe` and `unsubscribe` killed after each store commit in turn, then run again:
/// nothing is left half-held, and a record with an unsent change is never removed.
@Suite("forceterm subscribe and unsubscribe killed after each commit", .serialized)
struct SubscriptionCrashTests {
    static let condition = "MailingCity = 'Zürich'"

    /// A signed-in store on an accounts-only config, and a server with two contacts in Zürich and one elsewhere.
    static func user() throws -> (SyncCommandTests.SignedIn, config: String, slice: Set<String>) {
        let user = try SyncCommandTests.SignedIn(accounts: 1, contacts: 3)
        let config = try SubscriptionCommandTests.accountsOnlyConfig(in: user.root)
        let ids = try SubscriptionCommandTests.serverIds(user, "Contact")
        for (id, city) in zip(ids, ["Zürich", "Zürich", "Bern"]) {
            _ = try user.server.command(["edit", "Contact", id, "MailingCity=\(city)"])
        }
        #expect(try user.forceterm(["sync", "--config", config]).exitCode == 0)
        return (user, config, Set(ids.prefix(2)))
    }

    /// The ids of `soup` that each sync's member rows name, by sync id (-1: waiting to leave).
    static func members(_ user: SyncCommandTests.SignedIn) throws -> [Int64: Set<String>] {
        let store = try SmartStore.asForcetermOpensIt(user.storePath)
        guard try store.hasSoup("sync_members") else { return [:] }
        var rows: [Int64: Set<String>] = [:]
        for row in try store.query(.all("sync_members", pageSize: 100_000)).compactMap(\.objectValue) {
            guard let sync = row["syncId"]?.int64Value, let record = row["record"]?.stringValue else { continue }
            rows[sync, default: []].insert(String(record.dropFirst("contacts/".count)))
        }
        return rows
    }

    /// Runs `arguments` dying after commit `step`; true when it finished before reaching it.
    static func crash(_ user: SyncCommandTests.SignedIn, _ arguments: [String], step: Int) throws -> Bool {
        var environment = user.environment
        environment["FORCETERM_TEST_EXIT_AFTER_COMMIT"] = String(step)
        let crashed = try Forceterm.run(arguments + ["--store", user.storePath], environment: environment)
        if crashed.exitCode != 0 { #expect(crashed.exitCode == 86, "commit \(step): \(crashed)") }
        return crashed.exitCode == 0
    }

    @Test("subscribe killed after each commit of its first sync: run again, it holds exactly its slice")
    func subscribeKilled() throws {
        var step = 1
        var finished = false
        while !finished, step <= 40 {
            let (user, config, slice) = try Self.user()
            defer { user.remove() }
            let subscribe = ["subscribe", "zurich", "--soup", "contacts", "--where", Self.condition, "--config", config]
            finished = try Self.crash(user, subscribe, step: step)
            // Whatever the kill left, every record of the soup is one the slice has.
            #expect(try SubscriptionCommandTests.storedContacts(user).isSubset(of: slice), "commit \(step)")
            let again = try user.forceterm(subscribe)
            #expect(again.exitCode == 0 && again.standardOutput.hasPrefix("zurich: 2 records of contacts held"), "commit \(step): \(again)")
            #expect(try SubscriptionCommandTests.storedContacts(user) == slice, "commit \(step)")
            #expect(try Self.members(user).values.reduce(into: Set<String>()) { $0.formUnion($1) } == slice, "commit \(step)")
            step += 1
        }
        #expect(finished && step > 3, "subscribe commits its state, the page and the ghost check")
    }

    @Test("unsubscribe killed after each commit with an edited member: the edit is never lost, and run again it finishes")
    func unsubscribeKilled() throws {
        var step = 1
        var finished = false
        while !finished, step <= 40 {
            let (user, config, slice) = try Self.user()
            defer { user.remove() }
            #expect(try user.forceterm(["subscribe", "zurich", "--soup", "contacts", "--where", Self.condition, "--config", config]).exitCode == 0)
            let edited = try #require(slice.sorted().first)
            try user.editLocally("contacts", where: "Id", is: edited, ["Title": "Met in the field"])
            finished = try Self.crash(user, ["unsubscribe", "zurich"], step: step)
            #expect(try SubscriptionCommandTests.storedContacts(user).contains(edited), "commit \(step): the edited contact stays")
            if !finished {
                // A sync meanwhile does not run a subscription being removed, nor lose the edit.
                #expect(try user.forceterm(["sync", "--config", config]).exitCode == 0, "commit \(step)")
                // Killed after its last commit, it has nothing left to do.
                let (_, left) = try user.json(["subscriptions"])
                if left["subscriptions"]?.arrayValue?.isEmpty == false {
                    let again = try user.forceterm(["unsubscribe", "zurich"])
                    #expect(again.exitCode == 0, "commit \(step): \(again)")
                }
            }
            let (_, listed) = try user.json(["subscriptions"])
            #expect(listed["subscriptions"]?.arrayValue?.isEmpty == true, "commit \(step)")
            #expect(try user.forceterm(["sync", "--config", config]).exitCode == 0, "commit \(step)")
            #expect(try SubscriptionCommandTests.storedContacts(user).isEmpty, "commit \(step): the edit sent, nothing holds the contact")
            let onServer = try user.server.command(["query", "SELECT Title FROM Contact WHERE Id = '\(edited)'"])
            #expect(onServer.contains("Met in the field"), "commit \(step): \(onServer)")
            step += 1
        }
        #expect(finished && step > 2, "unsubscribe marks, releases and deletes in separate commits")
    }
}
