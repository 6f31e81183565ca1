import ForceJSON
import Foundation
import SmartStore
import Testing

/// mbsync's test: a `forceterm sync` that dies after each step in turn, then runs again, ends in the
/// state an uninterrupted sync gives, with no local edit lost and no record created twice. A step is
/// either a server call (its answer lost) or a store commit with no server call beside it.
@Suite("forceterm sync killed after each step")
struct CrashPointTests {
    static func contents(_ documents: [JSONObject], _ fields: [String]) -> [String] {
        documents.map { record in fields.map { record[$0]?.stringValue ?? "-" }.joined(separator: "|") }.sorted()
    }

    @Test("After each server call in turn (the answer is lost)")
    func afterEachCall() throws {
        try Self.loop(over: "FORCETERM_TEST_EXIT_AFTER_CALL", atLeast: 5)
    }

    @Test("After each store commit in turn")
    func afterEachCommit() throws {
        try Self.loop(over: "FORCETERM_TEST_EXIT_AFTER_COMMIT", atLeast: 8)
    }

    /// Crashes at step 1, 2, … until a run goes through without reaching its step.
    static func loop(over variable: String, atLeast minimumSteps: Int) throws {
        var step = 1
        var uninterrupted = false
        while !uninterrupted, step <= 80 {
            uninterrupted = try crashAndRerun(variable: variable, step: step)
            step += 1
        }
        #expect(uninterrupted, "the sync still had steps left after 80")
        #expect(step > minimumSteps, "a sync with creates, updates, deletes and two downloads has more than \(minimumSteps - 1) such steps")
    }

    /// One round: a signed-in store with local creates, an update and a delete; a sync that ends at
    /// `step` of `variable`; a rerun; then the store and the server compared with what an
    /// uninterrupted sync gives. True when the sync had fewer steps than `step`.
    static func crashAndRerun(variable: String, step: Int) throws -> Bool {
        let user = try SyncCommandTests.SignedIn(contacts: 4)
        defer { user.remove() }
        #expect(try user.forceterm(["sync"]).exitCode == 0)
        let seeded = try user.documents("contacts")
        let edited = try #require(seeded[0]["Id"]?.stringValue)
        let deleted = try #require(seeded[1]["Id"]?.stringValue)
        try user.editLocally("contacts", where: "Id", is: edited, ["Title": "Edited offline"])
        try user.editLocally("contacts", where: "Id", is: deleted, [:], delete: true)
        for index in 0..<3 { try user.createLocally("contacts", type: "Contact", ["LastName": .string("Crash \(index)")]) }
        try user.createLocally("accounts", type: "Account", ["Name": "Crash Account"])
        var expected = seeded.filter { $0["Id"]?.stringValue != deleted }.map { record -> JSONObject in
            var record = record
            if record["Id"]?.stringValue == edited { record["Title"] = "Edited offline" }
            return record
        }
        expected += (0..<3).map { ["LastName": .string("Crash \($0)")] }

        var environment = user.environment
        environment[variable] = String(step)
        let crashed = try Forceterm.run(["sync", "--store", user.storePath], environment: environment)
        let uninterrupted = crashed.exitCode == 0
        if !uninterrupted { #expect(crashed.exitCode == 86, "\(variable)=\(step): \(crashed)") }
        let rerun = try user.forceterm(["sync"])
        #expect(rerun.exitCode == 0, "\(variable)=\(step): \(rerun)")

        // The store: the expected records, all clean, with server ids, none twice.
        let contacts = try user.documents("contacts")
        #expect(contents(contacts, ["LastName", "Title"]) == contents(expected, ["LastName", "Title"]), "\(variable)=\(step)")
        #expect(contacts.allSatisfy { $0["__local__"] == false && ($0["Id"]?.stringValue?.hasPrefix("003") ?? false) }, "\(variable)=\(step)")
        let accounts = try user.documents("accounts")
        #expect(
            accounts.count == 1 && accounts.allSatisfy { $0["__local__"] == false && $0["Id"]?.stringValue?.hasPrefix("001") == true },
            "\(variable)=\(step)")
        // The server: a fresh store fetches exactly the same records.
        let freshPath = user.root + "/fresh.sqlite"
        let fresh = try Forceterm.run(["sync", "--down-only", "--store", freshPath], environment: user.environment)
        #expect(fresh.exitCode == 0, "\(variable)=\(step): \(fresh)")
        let freshStore = try SmartStore.asForcetermOpensIt(freshPath)
        let serverContacts = try freshStore.query(.all("contacts", orderPath: SmartStore.soupEntryId, pageSize: 100_000)).compactMap(\.objectValue)
        #expect(contents(serverContacts, ["Id", "LastName", "Title"]) == contents(contacts, ["Id", "LastName", "Title"]), "\(variable)=\(step)")
        let serverAccounts = try freshStore.query(.all("accounts", orderPath: SmartStore.soupEntryId, pageSize: 100_000)).compactMap(\.objectValue)
        #expect(serverAccounts.map { $0["Name"] } == ["Crash Account"], "\(variable)=\(step)")
        return uninterrupted
    }
}
