import ForceJSON
import Foundation
import SmartStore
import Testing

/// `forceterm sync` against orgs larger than the old built-in LIMIT 10000, and its counts when the
/// server dies in the middle of a sync down.
extension SyncCommandTests {
    @Test("20,000 contacts: the first sync stores them all, the second stores and removes nothing; exit 0 both times")
    func moreContactsThanTheOldLimitSettle() throws {
        let user = try SignedIn(contacts: 20_000)
        defer { user.remove() }
        let (first, summary) = try user.json(["sync"])
        #expect(first.exitCode == 0, "\(first)")
        #expect(summary["failure"] == .null, "no mass-deletion guard: \(first)")
        #expect(summary["received"] == 20_000 && summary["stored"] == 20_000 && summary["ghostsRemoved"] == 0, "\(first)")
        #expect(summary["syncDowns"]?["syncDownContacts"]?["stored"] == 20_000, "\(first)")
        #expect(try user.count("contacts") == 20_000)

        let (second, again) = try user.json(["sync"])
        #expect(second.exitCode == 0, "\(second)")
        #expect(again["stored"] == 0 && again["ghostsRemoved"] == 0 && again["failure"] == .null, "\(second)")
        #expect(again["received"] == again["unchanged"], "only the last second's records again, skipped: \(second)")
        #expect(try user.count("contacts") == 20_000)
    }

    @Test("The server killed (SIGKILL) during the sync down: exit 1 offline, and the summary counts what the store holds")
    func serverKilledDuringSyncDown() throws {
        let total = 5_000  // pages of 2,000: the kill lands after the first commits
        let user = try SignedIn(serverArguments: ["--latency", "200"], contacts: total)
        defer { user.remove() }
        var killed = false
        let sync = try ChildProcess.run(Forceterm.executable, ["sync", "--json", "--store", user.storePath], environment: user.environment) { errors in
            // A progress line above 0 % is printed once a page of contacts has committed.
            guard !killed, errors.split(separator: "\n").contains(where: { $0.hasPrefix("syncDownContacts: running") && !$0.contains(" 0%") })
            else { return }
            user.server.killAbruptly()
            killed = true
        }
        #expect(killed, "\(sync)")
        #expect(sync.exitCode == 1, "\(sync)")
        // A broken connection ("cannot reach") or, asking again, the refusal of the dead server's port.
        #expect(
            (sync.standardError.contains("cannot reach") || sync.standardError.contains("cannot connect"))
                && sync.standardError.contains("Local changes are kept"), "\(sync)")
        let summary = try JSONParser.parse(sync.standardOutput)
        let stored = try user.count("contacts")
        #expect(stored > 0 && stored < total, "\(sync)")
        #expect(summary["syncDowns"]?["syncDownContacts"]?["stored"] == .int(Int64(stored)), "\(sync)")
        #expect(summary["received"] == .int(Int64(stored)) && summary["stored"] == .int(Int64(stored)), "\(sync)")
        #expect(summary["failure"]?.stringValue?.contains("syncDownContacts stopped") == true, "\(sync)")
    }
}

extension SyncCommandTests.SignedIn {
    /// How many records a soup of the store holds, without reading them.
    func count(_ soup: String) throws -> Int {
        try SmartStore.asForcetermOpensIt(storePath).count(.all(soup))
    }
}
