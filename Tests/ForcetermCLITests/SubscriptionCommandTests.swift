import ForceJSON
import Foundation
import LocalOrgProcess
import SmartStore
import Testing

/// `forceterm subscribe`, `unsubscribe` and `subscriptions` as built binaries, signed in to a real
/// localorg over HTTPS, with a config that syncs accounts only (contacts are only sent).
@Suite("forceterm subscribe, unsubscribe and subscriptions", .serialized)
struct SubscriptionCommandTests {
    /// The repo's config without its contacts sync down.
    static func accountsOnlyConfig(in root: String) throws -> String {
        let directory = root + "/accounts-only"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let config = Forceterm.packageRoot.appendingPathComponent("config")
        try FileManager.default.copyItem(atPath: config.appendingPathComponent("userstore.json").path, toPath: directory + "/userstore.json")
        var syncs = try JSONParser.parse(try String(contentsOf: config.appendingPathComponent("usersyncs.json"), encoding: .utf8))
        guard case var .object(object) = syncs, let list = object["syncs"]?.arrayValue else { throw LocalOrgProcessError("usersyncs.json has no syncs") }
        object["syncs"] = .array(list.filter { $0["syncName"]?.stringValue != "syncDownContacts" })
        syncs = .object(object)
        try JSONWriter.string(syncs, pretty: true).write(toFile: directory + "/usersyncs.json", atomically: true, encoding: .utf8)
        return directory
    }

    /// The server's contact ids, in order.
    static func serverContacts(_ user: SyncCommandTests.SignedIn) throws -> [String] {
        let rows = try JSONParser.parse(try user.server.command(["query", "SELECT Id FROM Contact ORDER BY Id", "--json"])).arrayValue ?? []
        return rows.compactMap { $0["Id"]?.stringValue }
    }

    static func storedContacts(_ user: SyncCommandTests.SignedIn) throws -> Set<String> {
        let store = try SmartStore.asForcetermOpensIt(user.storePath)
        return Set(try store.query(.all("contacts")).compactMap { $0.objectValue?["Id"]?.stringValue })
    }

    @Test("A slice subscribed by a condition arrives, an edited contact outlives its unsubscribe until sent, and a queued one joins the next sync")
    func subscribeUnsubscribeAndQueue() throws {
        let user = try SyncCommandTests.SignedIn(accounts: 1, contacts: 4)
        defer { user.remove() }
        let config = try Self.accountsOnlyConfig(in: user.root)
        let ids = try Self.serverContacts(user)
        try #require(ids.count == 4)
        // Two in Zürich, one in Bern, one elsewhere.
        for (id, city) in zip(ids, ["Zürich", "Zürich", "Bern", "Oslo"]) {
            _ = try user.server.command(["edit", "Contact", id, "MailingCity=\(city)"])
        }
        let (zurich1, zurich2, bern) = (ids[0], ids[1], ids[2])

        #expect(try user.forceterm(["sync", "--config", config]).exitCode == 0)
        #expect(try Self.storedContacts(user).isEmpty, "the config fetches no contacts")

        // Refused before anything is stored.
        let refused = try user.forceterm(["subscribe", "bad", "--soup", "contacts", "--where", "1=1) OR (Name != null", "--config", config])
        #expect(refused.exitCode == 1 && refused.standardError.contains("is not one SOQL condition") && refused.standardError.contains("nothing was stored"), "\(refused)")
        let hidden = try user.forceterm(["subscribe", "bad", "--soup", "contacts", "--where", "Description = 'x'", "--config", config])
        #expect(hidden.exitCode == 1 && hidden.standardError.contains("Contact.Description cannot be filtered"), "\(hidden)")

        let made = try user.forceterm(["subscribe", "zurich", "--soup", "contacts", "--where", "MailingCity = 'Zürich'", "--config", config])
        #expect(made.exitCode == 0 && made.standardOutput == "zurich: 2 records of contacts held (2 fetched)\n", "\(made)")
        #expect(try Self.storedContacts(user) == [zurich1, zurich2])
        let (_, listed) = try user.json(["subscriptions"])
        let first = try #require(listed["subscriptions"]?.arrayValue?.first)
        #expect(first["name"] == "zurich" && first["soup"] == "contacts" && first["where"] == "MailingCity = 'Zürich'")
        #expect(first["state"] == "complete" && first["held"] == 2 && first["lastSync"]?.stringValue != nil)

        try user.editLocally("contacts", where: "Id", is: zurich2, ["Title": "Met in the field"])
        let removed = try user.forceterm(["unsubscribe", "zurich"])
        #expect(
            removed.exitCode == 0
                && removed.standardOutput == "zurich: 1 record removed from contacts, 1 waits to send its change (leaving after the next sync)\n",
            "\(removed)")
        #expect(try Self.storedContacts(user) == [zurich2])
        let waiting = try user.forceterm(["subscriptions"])
        #expect(waiting.standardOutput.contains("1 record of contacts waits to send a change, then leaves"), "\(waiting)")

        // Queued offline, then the next sync sends the edit (which then leaves) and fetches Bern.
        let queued = try user.forceterm(["subscribe", "bern", "--soup", "contacts", "--where", "MailingCity = 'Bern'", "--no-wait", "--config", config])
        #expect(queued.exitCode == 0 && queued.standardOutput == "bern: stored; the next forceterm sync fetches its records\n", "\(queued)")
        let sync = try user.forceterm(["sync", "--config", config])
        #expect(sync.exitCode == 0 && sync.standardOutput.contains("1 record left the store once its change was sent"), "\(sync)")
        #expect(try Self.storedContacts(user) == [bern])
        let onServer = try user.server.command(["query", "SELECT Title FROM Contact WHERE Id = '\(zurich2)'"])
        #expect(onServer.contains("Met in the field"), "\(onServer)")
        let text = try user.forceterm(["subscriptions"]).standardOutput
        #expect(text.hasPrefix("NAME  SOUP      STATE     HELD  LAST SYNC"), "\(text)")
        #expect(text.contains("bern  contacts  complete  1") && text.hasSuffix("MailingCity = 'Bern'\n"), "\(text)")
    }
}
