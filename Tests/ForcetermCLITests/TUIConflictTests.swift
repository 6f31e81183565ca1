import ForceJSON
import Foundation
import LocalOrgProcess
import SmartStore
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Conflicts end to end: the real forceterm in tmux against a real localorg. Two contacts are
/// changed here and on the server, `s` finds both in conflict, `c` settles one each way, and after
/// another `s` the server's REST API holds what the user chose.
@Suite("forceterm's TUI resolves conflicts with c", .serialized)
struct TUIConflictTests {
    @Test("Keep mine sends my value to the org; take the server's keeps the org's")
    func resolveBothWays() throws {
        let user = try SyncCommandTests.SignedIn(contacts: 2)
        defer { user.remove() }
        let first = try user.forceterm(["sync"])
        #expect(first.exitCode == 0, "\(first)")
        let ids = try user.documents("contacts").compactMap { $0["Id"]?.stringValue }
        try #require(ids.count == 2)
        let (mineId, theirsId) = (ids[0], ids[1])
        usleep(1_100_000)  // whole-second modification times: the server edits must be newer
        try user.server.command(["edit", "Contact", mineId, "Title=Server Alpha"])
        try user.server.command(["edit", "Contact", theirsId, "Title=Server Bravo"])
        try user.editLocally("contacts", where: "Id", is: mineId, ["Title": "Mine Alpha"])
        try user.editLocally("contacts", where: "Id", is: theirsId, ["Title": "Mine Bravo"])

        let session = try user.tui()
        defer { session.kill() }
        try session.waitFor("Contacts (2)")
        try session.send("s")
        try session.waitFor("2 conflicts (c)", timeout: 60)
        try session.waitFor("≠")

        // Keep mine on the first: search it by my title, open the dialog, m.
        try session.send("/")
        try session.send("mine alpha", literal: true)
        try session.waitFor("1 found")
        try session.send("Enter")
        try session.waitFor("Server Alpha")
        try session.send("c")
        try session.waitFor("m = keep mine")
        try session.send("m")
        try session.waitFor("Kept your version")

        // Take the server's on the second.
        try session.send("Escape")
        try session.send("/")
        try session.send("mine bravo", literal: true)
        try session.waitFor("1 found")
        try session.send("Enter")
        try session.send("c")
        try session.waitFor("m = keep mine")
        try session.send("t")
        try session.waitFor("Took the server's version")

        try session.send("s")
        try session.waitFor("Sync complete!", timeout: 60)
        let screen = try session.screen()
        #expect(!screen.contains("in conflict"), "\(screen)")
        try session.send("q")
        #expect(ProcessWatch.waitUntilGone(argument: user.storePath), "forceterm quits on q")

        let token = try OrgREST.accessToken(user.server)
        #expect(try OrgREST.contact(mineId, server: user.server, token: token)["Title"] == "Mine Alpha")
        #expect(try OrgREST.contact(theirsId, server: user.server, token: token)["Title"] == "Server Bravo")
        let local = try user.documents("contacts")
        #expect(local.allSatisfy { $0["__local__"] == false && $0["__conflict__"] == nil })
        #expect(local.first { $0["Id"]?.stringValue == theirsId }?["Title"] == "Server Bravo")
    }
}

/// The org's REST API read with curl, an independent client, to check what the server holds.
enum OrgREST {
    static func accessToken(_ server: LocalOrgProcess) throws -> String {
        let output = try ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"),
            [
                "curl", "-s", "--cacert", server.caFile, "-d", "grant_type=password", "-d", "client_id=forceterm",
                "-d", "username=demo@localorg.test", "-d", "password=localorg-demo", server.url + "/services/oauth2/token",
            ])
        guard let token = (try? JSONParser.parse(output.standardOutput))?["access_token"]?.stringValue else {
            throw LocalOrgProcessError("no access token from the org: \(output)")
        }
        return token
    }

    static func contact(_ id: String, server: LocalOrgProcess, token: String) throws -> JSONValue {
        let output = try ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"),
            [
                "curl", "-s", "--cacert", server.caFile, "-H", "Authorization: Bearer \(token)",
                server.url + "/services/data/v62.0/sobjects/Contact/\(id)",
            ])
        return try JSONParser.parse(output.standardOutput)
    }
}
