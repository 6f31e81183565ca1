import ForceJSON
import Foundation
import LocalOrgProcess
import SmartStore
import Testing

/// The TUI's subscriptions as a user meets them: the built binary in tmux, signed in to a real
/// localorg that answers slowly enough for the progress to show.
@Suite("Subscriptions in the TUI", .serialized)
struct SubscriptionTUITests {
    /// The repo's config with its contacts sync narrowed to Oslo: a search finds little here.
    static func osloConfig(in root: String) throws -> String {
        let directory = root + "/oslo"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let config = Forceterm.packageRoot.appendingPathComponent("config")
        try FileManager.default.copyItem(atPath: config.appendingPathComponent("userstore.json").path, toPath: directory + "/userstore.json")
        let text = try String(contentsOf: config.appendingPathComponent("usersyncs.json"), encoding: .utf8)
        guard case var .object(object) = try JSONParser.parse(text), let list = object["syncs"]?.arrayValue else {
            throw LocalOrgProcessError("usersyncs.json has no syncs")
        }
        object["syncs"] = .array(
            list.map { sync in
                guard sync["syncName"]?.stringValue == "syncDownContacts", case var .object(entry) = sync, case var .object(target)? = entry["target"],
                    let query = target["query"]?.stringValue
                else { return sync }
                target["query"] = .string(query + " WHERE MailingCity = 'Oslo'")
                entry["target"] = .object(target)
                return .object(entry)
            })
        try JSONWriter.string(.object(object), pretty: true).write(toFile: directory + "/usersyncs.json", atomically: true, encoding: .utf8)
        return directory
    }

    @Test("A subscription made from a search that finds nothing here: the condition shown first, its fetch's progress on the status line, its row on Syncs, and d removing it")
    func fromASearch() throws {
        let user = try SyncCommandTests.SignedIn(serverArguments: ["--latency", "300"], contacts: 4)
        defer { user.remove() }
        let config = try Self.osloConfig(in: user.root)
        let ids = try SubscriptionCommandTests.serverIds(user, "Contact")
        try #require(ids.count == 4)
        let people = [("Marlow", "Bern"), ("Marlowe", "Zürich"), ("Ada", "Oslo"), ("Bo", "Paris")]
        for (id, (name, city)) in zip(ids, people) {
            _ = try user.server.command(["edit", "Contact", id, "LastName=\(name)", "MailingCity=\(city)", "FirstName="])
        }
        #expect(try user.forceterm(["sync", "--config", config]).exitCode == 0)

        let session = try TmuxSession(
            command: [Forceterm.executable.path, "--store", user.storePath, "--config", config], width: 120, height: 40,
            environment: user.environment.compactMapValues { $0 })
        defer { session.kill() }
        try session.waitFor("Contacts (1)")
        try session.send("/")
        try session.send("marlow", literal: true)
        try session.send("Enter")
        try session.waitFor("0 found")
        try session.send("a")
        let prompt = try session.waitFor("Subscribe to contacts on the server")
        #expect(prompt.contains("Where: FirstName LIKE '%marlow%' OR LastName LIKE '%marlow%'"), "the condition, shown to edit:\n\(prompt)")
        try session.send("Enter")
        try session.waitFor("Name: marlow")
        try session.send("Enter")
        let running = try session.waitFor("Sync down")
        #expect(running.contains("marlow is subscribed; fetching"), "\(running)")
        try session.waitFor("2 found", timeout: 60)
        let done = try session.waitFor("Sync complete!", timeout: 60)
        #expect(done.contains("marlow holds 2 records of contacts"), "\(done)")

        try session.send("3")
        try session.send("G")
        // The detail's Selects line is the Syncs tab's alone (the toast says "2 records of contacts" too).
        let syncs = try session.waitFor("Selects")
        #expect(syncs.contains("2 held") && syncs.contains("marlow, complete") && syncs.contains("2 records of contacts") && syncs.contains("LastName LIKE '%marlow%'"), "\(syncs)")
        try session.send("d")
        try session.waitFor("Stop carrying marlow?")
        try session.send("y")
        try session.waitFor("marlow removed: 2 records left the store")
        try session.send("q")
        #expect(ProcessWatch.waitUntilGone(argument: user.storePath), "forceterm quits on q")
        #expect(try SubscriptionCommandTests.storedContacts(user) == [ids[2]])
    }
}
