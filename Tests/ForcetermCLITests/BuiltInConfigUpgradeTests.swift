import ForceJSON
import Foundation
import Testing

/// A store made with an earlier built-in config (the MobileSyncExplorer fields only) takes the
/// contacts manager's fields (business phone, mailing address, description) on the next sync,
/// without losing a record or an unsent change.
@Suite("a store from the earlier built-in config", .serialized)
struct BuiltInConfigUpgradeTests {
    /// forceterm's built-in usersyncs.json before the contacts manager's fields.
    static let earlierSyncs = """
        {"syncs": [
          {"syncName": "syncDownAccounts", "syncType": "syncDown", "soupName": "accounts",
           "target": {"type": "soql", "query": "SELECT Name, Industry, Phone, Website, BillingStreet, BillingCity, BillingPostalCode, BillingCountry FROM Account"},
           "options": {"mergeMode": "LEAVE_IF_CHANGED"}},
          {"syncName": "syncUpAccounts", "syncType": "syncUp", "soupName": "accounts",
           "target": {"createFieldlist": ["Name", "Industry", "Phone", "Website", "BillingStreet", "BillingCity", "BillingPostalCode", "BillingCountry"]},
           "options": {"fieldlist": ["Id", "Name", "Industry", "Phone", "Website", "BillingStreet", "BillingCity", "BillingPostalCode", "BillingCountry"], "mergeMode": "LEAVE_IF_CHANGED"}},
          {"syncName": "syncDownContacts", "syncType": "syncDown", "soupName": "contacts",
           "target": {"type": "soql", "query": "SELECT FirstName, LastName, Title, MobilePhone, Email, Department, HomePhone, AccountId FROM Contact"},
           "options": {"mergeMode": "LEAVE_IF_CHANGED"}},
          {"syncName": "syncUpContacts", "syncType": "syncUp", "soupName": "contacts",
           "target": {"createFieldlist": ["FirstName", "LastName", "Title", "MobilePhone", "Email", "Department", "HomePhone", "AccountId"]},
           "options": {"fieldlist": ["Id", "FirstName", "LastName", "Title", "MobilePhone", "Email", "Department", "HomePhone", "AccountId"], "mergeMode": "LEAVE_IF_CHANGED"}}
        ]}
        """

    @Test("the next sync fetches the new fields for every record and still sends the change made before it")
    func upgrade() throws {
        let user = try SyncCommandTests.SignedIn(accounts: 2, contacts: 12)
        defer { user.remove() }
        let earlier = user.root + "/earlier-config"
        try FileManager.default.createDirectory(atPath: earlier, withIntermediateDirectories: true)
        try ExchangeCommandTests.write(Self.earlierSyncs, to: earlier + "/usersyncs.json")
        let first = try user.forceterm(["sync", "--config", earlier])
        #expect(first.exitCode == 0, "\(first)")
        let before = try user.documents("contacts")
        #expect(before.count == 12 && before.allSatisfy { $0["MailingCity"] == nil }, "the earlier config fetched no address")

        // On the server, a business phone and a city the earlier config never fetched; here, an unsent edit.
        let target = try #require(before.first?["Id"]?.stringValue)
        let edited = try #require(before.last?["Id"]?.stringValue)
        _ = try user.server.command(["edit", "Contact", target, "Phone=+47 22 00 00 01", "MailingCity=Tromsø"])
        try user.editLocally("contacts", where: "Id", is: edited, ["Title": "Changed before the upgrade"])

        let upgraded = try user.forceterm(["sync"])
        #expect(upgraded.exitCode == 0, "\(upgraded)")
        #expect(upgraded.standardError.contains("sync syncDownContacts changed") && upgraded.standardError.contains("starts over"), "\(upgraded)")
        let after = try user.documents("contacts")
        #expect(after.count == 12, "no record lost or doubled")
        #expect(after.allSatisfy { $0.keys.contains("Phone") && $0.keys.contains("MailingCity") && $0.keys.contains("Description") }, "every record has the new fields")
        let phoned = try #require(after.first { $0["Id"]?.stringValue == target })
        #expect(phoned["Phone"] == "+47 22 00 00 01" && phoned["MailingCity"] == "Tromsø", "\(phoned)")
        let sent = try OrgREST.contact(edited, server: user.server, token: try OrgREST.accessToken(user.server))
        #expect(sent["Title"] == "Changed before the upgrade", "the change made before the upgrade reached the org: \(sent)")
        #expect(after.allSatisfy { $0["__local__"] == false })
    }
}
