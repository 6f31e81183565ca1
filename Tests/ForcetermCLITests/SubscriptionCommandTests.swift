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

    /// The server's ids of `object`, in order.
    static func serverIds(_ user: SyncCommandTests.SignedIn, _ object: String) throws -> [String] {
        let rows = try JSONParser.parse(try user.server.command(["query", "SELECT Id FROM \(object) ORDER BY Id", "--json"])).arrayValue ?? []
        return rows.compactMap { $0["Id"]?.stringValue }
    }

    static func storedContacts(_ user: SyncCommandTests.SignedIn) throws -> Set<String> {
        let store = try SmartStore.asForcetermOpensIt(user.storePath)
        return Set(try store.query(.all("contacts")).compactMap { $0.objectValue?["Id"]?.stringValue })
    }

    @Test(
        "The issue's scenario: a slice by a condition and an account taken offline; unsubscribing the slice keeps the account's contacts and an edited one until it is sent; the account's new contact and a queued slice arrive at the next sync"
    )
    func subscribeUnsubscribeAndQueue() throws {
        let user = try SyncCommandTests.SignedIn(accounts: 2, contacts: 6)
        defer { user.remove() }
        let config = try Self.accountsOnlyConfig(in: user.root)
        let accounts = try Self.serverIds(user, "Account")
        let ids = try Self.serverIds(user, "Contact")
        try #require(accounts.count == 2 && ids.count == 6)
        let (offline, other) = (accounts[0], accounts[1])
        let placed = [("Zürich", other), ("Zürich", other), ("Zürich", offline), ("Bern", offline), ("Oslo", other), ("Bern", other)]
        for (id, (city, account)) in zip(ids, placed) {
            _ = try user.server.command(["edit", "Contact", id, "MailingCity=\(city)", "AccountId=\(account)"])
        }

        #expect(try user.forceterm(["sync", "--config", config]).exitCode == 0)
        #expect(try Self.storedContacts(user).isEmpty, "the config fetches no contacts")

        // Refused before anything is stored.
        let refused = try user.forceterm(["subscribe", "bad", "--soup", "contacts", "--where", "1=1) OR (Name != null", "--config", config])
        #expect(refused.exitCode == 1 && refused.standardError.contains("is not one SOQL condition") && refused.standardError.contains("nothing was stored"), "\(refused)")
        let longText = try user.forceterm(["subscribe", "bad", "--soup", "contacts", "--where", "Description = 'x'", "--config", config])
        #expect(longText.exitCode == 1 && longText.standardError.contains("Contact.Description cannot be filtered"), "\(longText)")
        let notAnAccount = try user.forceterm(["subscribe", "bad", "--account", ids[0], "--config", config])
        #expect(notAnAccount.exitCode == 1 && notAnAccount.standardError.contains("is not an account id"), "\(notAnAccount)")
        let usage = try user.forceterm(["subscribe", "bad", "--soup", "contacts", "--config", config])
        #expect(usage.exitCode == 2, "\(usage)")

        let made = try user.forceterm(["subscribe", "zurich", "--soup", "contacts", "--where", "MailingCity = 'Zürich'", "--config", config])
        #expect(made.exitCode == 0 && made.standardOutput == "zurich: 3 records of contacts held (3 fetched)\n", "\(made)")
        let acme = try user.forceterm(["subscribe", "acme", "--account", offline, "--config", config])
        #expect(acme.exitCode == 0 && acme.standardOutput == "acme: 1 record of accounts and 2 records of contacts held (3 fetched)\n", "\(acme)")
        #expect(try Self.storedContacts(user) == Set(ids[0...3]))
        let (_, listed) = try user.json(["subscriptions"])
        let first = try #require(listed["subscriptions"]?.arrayValue?.first)
        #expect(first["name"] == "zurich" && first["soup"] == "contacts" && first["where"] == "MailingCity = 'Zürich'")
        #expect(first["state"] == "complete" && first["held"] == 3 && first["lastSync"]?.stringValue != nil)
        // An account's subscription is two syncs, one per soup, both named as the user named it.
        let rows = listed["subscriptions"]?.arrayValue ?? []
        #expect(rows.compactMap { $0["name"]?.stringValue } == ["zurich", "acme", "acme"])
        #expect(rows.compactMap { $0["soup"]?.stringValue } == ["contacts", "accounts", "contacts"])
        #expect(rows.dropFirst().allSatisfy { $0["account"]?.stringValue == offline })

        try user.editLocally("contacts", where: "Id", is: ids[1], ["Title": "Met in the field"])
        let removed = try user.forceterm(["unsubscribe", "zurich"])
        #expect(
            removed.exitCode == 0
                && removed.standardOutput
                    == "zurich: 1 record removed from contacts, 1 waits to send its change (leaving after the next sync), 1 kept (other syncs hold them)\n",
            "\(removed)")
        #expect(try Self.storedContacts(user) == [ids[1], ids[2], ids[3]], "the account's contacts and the edited one")
        let waiting = try user.forceterm(["subscriptions"])
        #expect(waiting.standardOutput.contains("1 record of contacts waits to send a change, then leaves"), "\(waiting)")

        // The server gives the offline account another contact; a slice is queued offline. The
        // next sync sends the edit (which then leaves), and brings the account's new contact and Bern.
        Thread.sleep(forTimeInterval: 1.1)  // whole-second modification times: the edit must be newer than the last sync
        _ = try user.server.command(["edit", "Contact", ids[4], "AccountId=\(offline)"])
        let queued = try user.forceterm(["subscribe", "bern", "--soup", "contacts", "--where", "MailingCity = 'Bern'", "--no-wait", "--config", config])
        #expect(queued.exitCode == 0 && queued.standardOutput == "bern: stored; the next forceterm sync fetches its records\n", "\(queued)")
        let sync = try user.forceterm(["sync", "--config", config])
        #expect(sync.exitCode == 0 && sync.standardOutput.contains("1 record left the store once its change was sent"), "\(sync)")
        #expect(try Self.storedContacts(user) == [ids[2], ids[3], ids[4], ids[5]])
        let onServer = try user.server.command(["query", "SELECT Title FROM Contact WHERE Id = '\(ids[1])'"])
        #expect(onServer.contains("Met in the field"), "\(onServer)")
        let text = try user.forceterm(["subscriptions"]).standardOutput
        #expect(text.hasPrefix("NAME  SOUP      STATE     HELD  LAST SYNC"), "\(text)")
        #expect(text.contains("bern  contacts  complete  2") && text.hasSuffix("MailingCity = 'Bern'\n"), "\(text)")

        // The TUI gives the subscribed contacts their tab, though the config syncs no contacts down.
        let session = try TmuxSession(
            command: [Forceterm.executable.path, "--store", user.storePath, "--config", config], width: 120, height: 30,
            environment: user.environment.compactMapValues { $0 })
        defer { session.kill() }
        try session.waitFor("Contacts (4)")
        try session.send("q")
        #expect(ProcessWatch.waitUntilGone(argument: user.storePath), "forceterm quits on q")

        // Unsubscribing the account removes what nothing else holds: the contacts but Bern's; the
        // account itself is the config's.
        let gone = try user.forceterm(["unsubscribe", "acme"])
        #expect(gone.exitCode == 0 && gone.standardOutput == "acme: 2 records removed from accounts and contacts, 2 kept (other syncs hold them)\n", "\(gone)")
    }
}
