import ForceJSON
import Foundation
import LocalOrgProcess
import Testing

/// The org's rules in the TUI, against a real localorg: forms from the describe the metadata sync
/// down keeps, and the org's refusals (a restricted picklist, validation rules) shown on the
/// fields they name, then repaired.
@Suite("forceterm's forms follow the org's rules", .serialized)
struct TUIOrgRulesTests {
    /// A team's config: accounts with their record type and Type, contacts with LeadSource and
    /// Email; `metadata` adds the describe syncs of both objects.
    static func config(metadata: Bool) throws -> String {
        let directory = NSTemporaryDirectory() + "forceterm-rules-config-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: LocalOrgProcess.packageRoot.appendingPathComponent("config/userstore.json").path,
            toPath: directory + "/userstore.json")
        let describes =
            metadata
            ? #"""
            ,
            {"syncName": "contactMetadata", "syncType": "syncDown", "soupName": "sobject_metadata",
             "target": {"type": "metadata", "sobjectType": "Contact"}, "options": {"mergeMode": "OVERWRITE"}},
            {"syncName": "accountMetadata", "syncType": "syncDown", "soupName": "sobject_metadata",
             "target": {"type": "metadata", "sobjectType": "Account"}, "options": {"mergeMode": "OVERWRITE"}}
            """# : ""
        let syncs = #"""
            {"syncs": [
              {"syncName": "accountsDown", "syncType": "syncDown", "soupName": "accounts",
               "target": {"type": "soql", "query": "SELECT Name, RecordTypeId, Type, Website FROM Account"},
               "options": {"mergeMode": "LEAVE_IF_CHANGED"}},
              {"syncName": "accountsUp", "syncType": "syncUp", "soupName": "accounts",
               "target": {"createFieldlist": ["RecordTypeId", "Name", "Type", "Website"]},
               "options": {"fieldlist": ["RecordTypeId", "Name", "Type", "Website"], "mergeMode": "LEAVE_IF_CHANGED"}},
              {"syncName": "contactsDown", "syncType": "syncDown", "soupName": "contacts",
               "target": {"type": "soql", "query": "SELECT FirstName, LastName, LeadSource, Email, AccountId FROM Contact"},
               "options": {"mergeMode": "LEAVE_IF_CHANGED"}},
              {"syncName": "contactsUp", "syncType": "syncUp", "soupName": "contacts",
               "target": {"createFieldlist": ["FirstName", "LastName", "LeadSource", "Email", "AccountId"]},
               "options": {"fieldlist": ["FirstName", "LastName", "LeadSource", "Email", "AccountId"], "mergeMode": "LEAVE_IF_CHANGED"}}\#(describes)
            ]}
            """#
        try syncs.write(toFile: directory + "/usersyncs.json", atomically: true, encoding: .utf8)
        return directory
    }

    static func tui(_ user: SyncCommandTests.SignedIn, config: String) throws -> TmuxSession {
        try TmuxSession(
            command: [Forceterm.executable.path, "--store", user.storePath, "--config", config], width: 120, height: 40,
            environment: user.environment.compactMapValues { $0 })
    }

    @Test("With the describe: a partner account's record type and its own types picked from lists; the org's validation rule shown on Website and repaired")
    func describedForm() throws {
        let user = try SyncCommandTests.SignedIn(accounts: 1, contacts: 1)
        defer { user.remove() }
        let config = try Self.config(metadata: true)
        defer { try? FileManager.default.removeItem(atPath: config) }
        let first = try user.forceterm(["sync", "--config", config])
        #expect(first.exitCode == 0, "\(first)")

        let session = try Self.tui(user, config: config)
        defer { session.kill() }
        try session.waitFor("Contacts (1)")
        try session.send("2")
        try session.send("n")
        try session.waitFor("Customer Account")
        let form = try session.waitFor("Account Name")
        #expect(!form.contains("Built-in rules"), "\(form)")
        // Record type: Enter opens the org's record types; pick Partner.
        try session.send("Enter")
        try session.waitFor("Partner Account")
        try session.send("Down")
        try session.send("Enter")
        try session.waitFor("Record Type*  Partner Account")
        try session.send("Tab")
        try session.send("Fin Partners", literal: true)
        try session.send("Tab")
        try session.send("Enter")
        let picker = try session.waitFor("Technology Partner")
        #expect(!picker.contains("Prospect"), "a partner's types only:\n\(picker)")
        try session.send("tech", literal: true)
        try session.send("Enter")
        try session.waitFor("Account Type  Technology Partner")
        try session.send("C-s")
        try session.waitFor("Saved locally")

        // The org's validation rule: a partner needs its website.
        try session.send("s")
        try session.waitFor("1 error (e)")
        try session.waitFor("a validation rule of the org refused it — A partner account needs its")
        try session.send("e")
        try session.waitFor("↳ A partner account needs its website.")
        try session.send("fin.example", literal: true)
        try session.send("C-s")
        try session.waitFor("Saved locally")
        try session.send("s")
        try session.waitFor("Sync complete!")
        try session.send("q")

        let partnerType = try #require(
            try user.documents("sobject_metadata").first { $0["Id"] == "Account" }?["recordTypeInfos"]?
                .arrayValue?.first { $0["developerName"] == "Partner" }?["recordTypeId"]?.stringValue)
        // As the sync down of the same run brought it back from the org.
        let stored = try #require(try user.documents("accounts").first { $0["Name"] == "Fin Partners" })
        #expect(stored["__local__"] == false && stored["Id"]?.stringValue?.hasPrefix("001") == true)
        #expect(stored["RecordTypeId"]?.stringValue == partnerType && stored["Type"] == "Technology Partner" && stored["Website"] == "fin.example")
    }

    @Test("Without a describe: the form says so; a value the restricted picklist lacks and a web lead without email are refused by the org and shown on their fields")
    func refusedByTheOrg() throws {
        let user = try SyncCommandTests.SignedIn(accounts: 1, contacts: 1)
        defer { user.remove() }
        let config = try Self.config(metadata: false)
        defer { try? FileManager.default.removeItem(atPath: config) }
        let session = try Self.tui(user, config: config)
        defer { session.kill() }
        try session.waitFor("Contacts (0)")
        try session.send("n")
        try session.waitFor("Built-in rules: usersyncs.json has no metadata sync for Contact")
        try session.send("Wen", literal: true)
        try session.send("Tab")
        try session.send("Web", literal: true)
        try session.send("Tab")
        try session.send("Web", literal: true)
        try session.send("C-s")
        try session.waitFor("Saved locally")
        try session.send("2")
        try session.send("n")
        try session.waitFor("New account")
        try session.send("Bogus Ltd", literal: true)
        try session.send("Tab")
        try session.send("Bogus", literal: true)
        try session.send("C-s")
        try session.waitFor("Saved locally")

        try session.send("s")
        try session.waitFor("2 errors (e)")
        // The account: the restricted picklist's refusal, on Type (f, f: the records with errors).
        try session.send("f")
        try session.send("f")
        try session.waitFor("Accounts with sync errors (1)")
        try session.waitFor("the org does not offer that picklist value")
        try session.send("e")
        try session.waitFor("↳ the org does not offer that picklist value")
        try session.send("C-u")
        try session.send("Prospect", literal: true)
        try session.send("C-s")
        try session.waitFor("Saved locally")
        // The contact: the validation rule's own words, on Email.
        try session.send("1")
        try session.send("f")
        try session.send("f")
        try session.waitFor("Contacts with sync errors (1)")
        try session.send("e")
        try session.waitFor("↳ A contact who came from the web needs an email")
        try session.send("wen@example.com", literal: true)
        try session.send("C-s")
        try session.waitFor("Saved locally")
        try session.send("s")
        try session.waitFor("Sync complete! Sent 2 changes")
        try session.send("q")
        #expect(try user.documents("contacts").allSatisfy { $0["__local__"] == false })
        #expect(try user.documents("accounts").first { $0["Name"] == "Bogus Ltd" }?["Type"] == "Prospect")
    }
}

/// Records a user can repair, in the TUI against a real localorg: a contact moved to an account
/// created here reaches the org linked to it; a contact refused by the org is put back by `r`.
@Suite("forceterm's TUI: lookups to local records, and repair by reverting", .serialized)
struct TUIRepairTests {
    @Test("A contact moved to an account created here: one account and one contact on the org, linked")
    func contactToLocalAccount() throws {
        let user = try SyncCommandTests.SignedIn(accounts: 1, contacts: 1)
        defer { user.remove() }
        #expect(try user.forceterm(["sync"]).exitCode == 0)
        let session = try user.tui()
        defer { session.kill() }
        try session.waitFor("Contacts (1)")
        try session.send("2")
        try session.send("n")
        try session.waitFor("New account")
        try session.send("Harbour Local Co", literal: true)
        try session.send("C-s")
        try session.waitFor("Saved locally")
        try session.send("1")
        try session.send("e")
        try session.waitFor("Edit ")
        for _ in 0..<7 { try session.send("Tab") }
        try session.send("Enter")
        try session.waitFor("Pick the account")
        try session.send("Harbour", literal: true)
        try session.send("Enter")
        try session.waitFor("Harbour Local Co")
        try session.send("C-s")
        try session.waitFor("Saved locally")
        try session.send("s")
        try session.waitFor("Sync complete! Sent 2 changes")
        try session.send("q")

        let account = try #require(try user.documents("accounts").first { $0["Name"] == "Harbour Local Co" })
        let accountId = try #require(account["Id"]?.stringValue)
        #expect(accountId.hasPrefix("001") && account["__local__"] == false)
        let contact = try #require(try user.documents("contacts").first)
        #expect(contact["AccountId"]?.stringValue == accountId, "the local id was replaced by the org's")
        let onServer = try OrgREST.contact(try #require(contact["Id"]?.stringValue), server: user.server, token: try OrgREST.accessToken(user.server))
        #expect(onServer["AccountId"]?.stringValue == accountId)
    }

    @Test("A contact the org refuses (its new account was deleted there) is put back with r, and the next sync is clean")
    func repairByReverting() throws {
        let user = try SyncCommandTests.SignedIn(accounts: 2, contacts: 1)
        defer { user.remove() }
        #expect(try user.forceterm(["sync"]).exitCode == 0)
        let contact = try #require(try user.documents("contacts").first)
        let original = contact["AccountId"]?.stringValue
        let other = try #require(try user.documents("accounts").first { $0["Id"]?.stringValue != original })
        let otherName = try #require(other["Name"]?.stringValue)
        _ = try user.server.command(["delete", "Account", try #require(other["Id"]?.stringValue)])

        let session = try user.tui()
        defer { session.kill() }
        try session.waitFor("Contacts (1)")
        try session.send("e")
        try session.waitFor("Edit ")
        for _ in 0..<7 { try session.send("Tab") }
        try session.send("Enter")
        try session.waitFor("Pick the account")
        try session.send(String(otherName.prefix(6)), literal: true)
        try session.send("Enter")
        try session.send("C-s")
        try session.waitFor("Saved locally")
        try session.send("s")
        try session.waitFor("1 error (e)")
        try session.waitFor("The org refused the last sync of this record")
        try session.send("r")
        try session.waitFor("y = yes")
        try session.send("y")
        try session.send("s")
        try session.waitFor("Sync complete! Sent 0 changes")
        try session.send("q")
        let after = try #require(try user.documents("contacts").first)
        #expect(after["__local__"] == false && after["AccountId"]?.stringValue == original)
        #expect(after["__last_error__"] == nil || after["__last_error__"] == .null)
    }
}
