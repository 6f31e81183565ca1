import ForceJSON
import Foundation
import LocalOrgProcess
import MobileSync
import SmartStore
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 14's reports, replayed with the real binaries against a real localorg: the TUI in tmux
/// for an edit saved while `s` runs and for keep mine, the CLI for an edit after an up-only sync.
/// (More than 10,000 contacts and a server killed mid-sync are `SyncCountsTests`.)
@Suite("Sync correctness as users found it", .serialized)
struct SyncCorrectnessTests {
    /// The contact with `field` = `value` in the store, read fresh.
    static func contact(_ user: SyncCommandTests.SignedIn, where field: String, is value: String) throws -> JSONObject? {
        try user.documents("contacts").first { $0[field]?.stringValue == value }
    }

    /// Opens the form of the selected record, replaces its Title (the third field) and saves.
    static func editTitle(_ session: TmuxSession, to title: String) throws {
        try session.send("e")
        try session.waitFor("Edit ")
        try session.send("Tab", "Tab", "C-u")
        try session.send(title, literal: true)
        try session.send("C-s")
        try session.waitFor("Saved locally")
    }

    @Test("An edit saved while s runs is kept, marked pending, and sent by the next s")
    func editDuringSync() throws {
        let user = try SyncCommandTests.SignedIn(serverArguments: ["--latency", "700"], contacts: 3)
        defer { user.remove() }
        #expect(try user.forceterm(["sync"]).exitCode == 0)
        let session = try user.tui()
        defer { session.kill() }
        try session.waitFor("Contacts (3)")
        try Self.editTitle(session, to: "First edit")
        let id = try #require(try Self.contact(user, where: "Title", is: "First edit")?["Id"]?.stringValue)

        try session.send("s")
        try session.waitFor("Sync up")
        try Self.editTitle(session, to: "Second edit")
        let duringSave = try session.screen()
        #expect(duringSave.contains("Sync up") || duringSave.contains("Sync down"), "the second edit was saved while the sync ran:\n\(duringSave)")
        try session.waitFor("Sync complete!", timeout: 60)

        let afterFirst = try #require(try Self.contact(user, where: "Id", is: id))
        #expect(
            afterFirst["Title"] == "Second edit" && afterFirst["__local__"] == true && afterFirst["__conflict__"] == nil,
            "the newer edit stays, pending: \(afterFirst)")
        let token = try OrgREST.accessToken(user.server)
        #expect(try OrgREST.contact(id, server: user.server, token: token)["Title"] == "First edit")
        let screen = try session.screen()
        #expect(screen.contains("1 local change"), "the status line counts it:\n\(screen)")

        // The first sync's toast may still show: the count tells this one has ended.
        try session.send("s")
        try session.waitFor("0 local changes", timeout: 60)
        try session.waitUntilGone(["Sync up", "Sync down"], timeout: 60)
        try session.send("q")
        #expect(ProcessWatch.waitUntilGone(argument: user.storePath))
        #expect(try OrgREST.contact(id, server: user.server, token: token)["Title"] == "Second edit")
        let settled = try #require(try Self.contact(user, where: "Id", is: id))
        #expect(settled["Title"] == "Second edit" && settled["__local__"] == false)
    }

    @Test("Keep mine writes only the field both sides changed: the server's other change stays")
    func keepMineWritesOnlyTheConflictingField() throws {
        let user = try SyncCommandTests.SignedIn(contacts: 1)
        defer { user.remove() }
        #expect(try user.forceterm(["sync"]).exitCode == 0)
        let id = try #require(try user.documents("contacts").first?["Id"]?.stringValue)
        usleep(1_100_000)  // whole-second modification times: the server's edit must be newer
        try user.server.command(["edit", "Contact", id, "Title=Server title", "Department=Server department"])

        let session = try user.tui()
        defer { session.kill() }
        try session.waitFor("Contacts (1)")
        try Self.editTitle(session, to: "My title")
        try session.send("s")
        try session.waitFor("1 conflict (c)", timeout: 60)
        try session.waitFor("both sides changed Title")
        try session.send("c")
        try session.waitFor("m = keep mine")
        try session.send("m")
        try session.waitFor("Kept your version")
        try session.send("s")
        try session.waitFor("0 local changes", timeout: 60)
        try session.waitUntilGone(["Sync up", "Sync down"], timeout: 60)
        try session.send("q")
        #expect(ProcessWatch.waitUntilGone(argument: user.storePath))

        let server = try OrgREST.contact(id, server: user.server, token: try OrgREST.accessToken(user.server))
        #expect(server["Title"] == "My title")
        #expect(server["Department"] == "Server department", "a field I never changed keeps the server's value")
        let stored = try #require(try Self.contact(user, where: "Id", is: id))
        #expect(stored["Department"] == "Server department" && stored["__local__"] == false)
    }

    @Test("Edit, sync --up-only, edit again, sync: exit 0, no conflict with my own first edit")
    func noConflictWithOneself() throws {
        let user = try SyncCommandTests.SignedIn(contacts: 2)
        defer { user.remove() }
        #expect(try user.forceterm(["sync"]).exitCode == 0)
        let id = try #require(try user.documents("contacts").first?["Id"]?.stringValue)
        try user.editLocally("contacts", where: "Id", is: id, ["Title": "First"])
        let up = try user.forceterm(["sync", "--up-only"])
        #expect(up.exitCode == 0, "\(up)")
        usleep(1_100_000)
        try user.editLocally("contacts", where: "Id", is: id, ["Title": "Second"])
        let (sync, summary) = try user.json(["sync"])
        #expect(sync.exitCode == 0, "no conflict with my own earlier write: \(sync)")
        #expect(summary["conflicts"] == 0 && summary["updated"] == 1)
        #expect(try OrgREST.contact(id, server: user.server, token: try OrgREST.accessToken(user.server))["Title"] == "Second")
        let (status, report) = try user.json(["status"])
        let contacts = report["soups"]?.arrayValue?.first { $0["soup"] == "contacts" || $0["soupName"] == "contacts" }
        #expect(status.exitCode == 0 && contacts?["conflicts"] == 0 && contacts?["updated"] == 0, "\(status)")
        #expect(try Self.contact(user, where: "Id", is: id)?["__local__"] == false)
    }
}
