import ForceJSON
import Foundation
import LocalOrgProcess
import SmartStore
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The real forceterm in tmux against localorg answering as a production org: a duplicate the
/// org's rule refuses is saved anyway with `c`, and a country is picked from the org's list.
@Suite("forceterm's TUI against a strict org", .serialized)
struct TUIProductionOrgTests {
    @Test("A duplicate refused by the org: c names the match, a saves it anyway, and the next s creates it once")
    func duplicateSavedAnyway() throws {
        let user = try SyncCommandTests.SignedIn(contacts: 3)
        defer { user.remove() }
        #expect(try user.forceterm(["sync"]).exitCode == 0)
        let existing = try #require(try user.documents("contacts").first { ($0["Email"]?.stringValue ?? "").isEmpty == false })
        let email = try #require(existing["Email"]?.stringValue)
        try user.createLocally("contacts", type: "Contact", ["LastName": "Twinning", "FirstName": "Tess", "Email": .string(email)])

        let session = try user.tui()
        defer { session.kill() }
        try session.waitFor("Contacts (4)")
        try session.send("s")
        try session.waitFor("Sync", timeout: 60)
        try session.send("/")
        try session.send("twinning", literal: true)
        try session.waitFor("1 found")
        try session.send("Enter")
        try session.waitFor("duplicate rule found records like it", timeout: 60)
        try session.waitFor("c decides")
        try session.send("c")
        try session.waitFor("a = save anyway")
        let dialog = try session.screen()
        #expect(dialog.contains(existing["Id"]?.stringValue ?? "?"), "the org's match is named: \(dialog)")
        try session.send("a")
        try session.waitFor("sends it again")
        try session.send("s")
        try session.waitFor("Sync complete!", timeout: 60)
        try session.send("q")
        #expect(ProcessWatch.waitUntilGone(argument: user.storePath), "forceterm quits on q")

        let token = try OrgREST.accessToken(user.server)
        let rows = try OrgREST.query("SELECT Id FROM Contact WHERE Email = '\(email)'", server: user.server, token: token)
        #expect(rows.count == 2, "saved once, beside the existing one: \(rows)")
        #expect(try user.documents("contacts").allSatisfy { $0["__local__"] == false && $0["__last_error__"] == nil })
    }

    @Test("A new contact's country is picked from the org's list and reaches the org with its code")
    func countryPickedFromTheOrgsList() throws {
        let user = try SyncCommandTests.SignedIn(contacts: 1)
        defer { user.remove() }
        #expect(try user.forceterm(["sync"]).exitCode == 0, "the describe with the org's countries comes with the first sync")
        let session = try user.tui()
        defer { session.kill() }
        try session.waitFor("Contacts (1)")
        try session.send("n")
        try session.waitFor("New contact")
        try session.send("Tab")
        try session.send("Okafor", literal: true)
        // Down to Mailing Country, the 15th field of the config's, then its list: "germ" narrows it to Germany.
        for _ in 0..<13 { try session.send("Tab") }
        try session.send("Enter")
        try session.send("germ", literal: true)
        try session.waitFor("Germany")
        try session.send("Enter")
        try session.send("C-s")
        try session.waitFor("Saved locally")
        try session.send("s")
        try session.waitFor("Sync complete!", timeout: 60)
        try session.send("q")
        #expect(ProcessWatch.waitUntilGone(argument: user.storePath), "forceterm quits on q")
        let token = try OrgREST.accessToken(user.server)
        let rows = try OrgREST.query("SELECT MailingCountry, MailingCountryCode FROM Contact WHERE LastName = 'Okafor'", server: user.server, token: token)
        #expect(rows.first?["MailingCountry"] == "Germany" && rows.first?["MailingCountryCode"] == "DE", "\(rows)")
    }
}

extension OrgREST {
    static func query(_ soql: String, server: LocalOrgProcess, token: String) throws -> [JSONValue] {
        let output = try ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"),
            [
                "curl", "-s", "--cacert", server.caFile, "-H", "Authorization: Bearer \(token)", "-G",
                "--data-urlencode", "q=\(soql)", server.url + "/services/data/v62.0/query",
            ])
        return try JSONParser.parse(output.standardOutput)["records"]?.arrayValue ?? []
    }
}
