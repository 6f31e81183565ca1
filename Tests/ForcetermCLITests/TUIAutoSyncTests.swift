import ForceJSON
import Foundation
import LocalOrgProcess
import Testing

/// The real TUI in tmux against localorg over HTTPS with automatic sync on, no key pressed after
/// the edits: the org's changes appear, saves reach the org, and a save made while the org was
/// down reaches it once it is back.
@Suite("forceterm's TUI syncs by itself", .serialized)
struct TUIAutoSyncTests {
    @Test("No key pressed: a server edit appears as the org announces it, a saved edit reaches the org, and one saved while the org was down reaches it when it is back")
    func syncsByItself() throws {
        let user = try SyncCommandTests.SignedIn(accounts: 1, contacts: 3)
        defer { user.remove() }
        // The timer is an hour away: what comes down comes because the org announced it.
        try user.writeSettings("[sync]\ninterval = 3600\n")
        let session = try user.tui()
        defer { session.kill() }
        try session.waitFor("Contacts (3)", timeout: 60)
        try session.send("3")
        try session.waitFor("the server announces changes to Account, Contact", timeout: 30)
        try session.send("1")
        try session.waitFor("Contacts (3)")
        let token = try OrgREST.accessToken(user.server)
        let contacts = try OrgREST.query("SELECT Id, LastName FROM Contact ORDER BY LastName", server: user.server, token: token)
        let first = try #require(contacts.first?["Id"]?.stringValue)
        let serverEditAt = Date()
        _ = try user.server.command(["edit", "Contact", first, "Title=Changed on the server"])
        try session.waitFor("Changed on the server", timeout: 30)
        // Within seconds (a generous bound for a loaded machine; make bench-field measures it).
        #expect(Date().timeIntervalSince(serverEditAt) < 15)

        // An edit saved in the form: the highlighted contact gets a new title (Title is the third field).
        try editTitle(of: session, to: "Field manager")
        try session.waitFor("Saved locally; it syncs within seconds")
        try waitUntil("the edit reaches the org") {
            try OrgREST.query("SELECT Id FROM Contact WHERE Title = 'Field manager'", server: user.server, token: token).count == 1
        }
        let edited = try #require(
            try OrgREST.query("SELECT Id FROM Contact WHERE Title = 'Field manager'", server: user.server, token: token)
                .first?["Id"]?.stringValue)

        // The org goes down; an edit saved meanwhile waits, said on the status line, and goes up once it is back.
        let port = user.server.port
        user.server.stop()
        try editTitle(of: session, to: "Out of the tunnel")
        let waiting = try session.waitFor("offline since", timeout: 60)
        #expect(waiting.contains("next try") && waiting.contains("1 waiting to send"), "\(waiting)")
        // The Syncs tab lists it: waiting since the save, tried, why it failed, and when it is tried next.
        try session.send("3")
        try session.waitFor("Waiting to send (1)")
        // The save is listed at once; its row names the error after the first try made for it.
        var outbox = ""
        try waitUntil("the waiting edit's row shows its failed try", timeout: 60) {
            outbox = try session.screen()
            return outbox.contains("connection refused") && outbox.split(separator: "\n").contains { $0.contains("update") && $0.contains("connection refused") }
        }
        let row = outbox.split(separator: "\n").first { $0.contains("update") && $0.contains("connection refused") }
        #expect(row.map { $0.range(of: #"\d\d:\d\d"#, options: .regularExpression) != nil } == true, "a next try's time:\n\(outbox)")
        try session.send("1")
        let back = try LocalOrgProcess(arguments: ["--port", String(port)], dataDirectory: user.server.dataDirectory)
        defer { back.stop() }
        try waitUntil("the edit saved offline reaches the org once it is back") {
            try OrgREST.query("SELECT Title FROM Contact WHERE Id = '\(edited)'", server: back, token: OrgREST.accessToken(back)).first?["Title"]
                == "Out of the tunnel"
        }
        try session.waitFor("0 local changes", timeout: 30)
    }

    @Test("[sync] auto = false: nothing goes up or comes down until s")
    func offUntilS() throws {
        let user = try SyncCommandTests.SignedIn(accounts: 1, contacts: 2)
        defer { user.remove() }
        try user.writeSettings("[sync]\nauto = false\ninterval = 5\n")
        let session = try user.tui()
        defer { session.kill() }
        try session.waitFor("Contacts (0)")
        Thread.sleep(forTimeInterval: 7)
        let quiet = try session.screen()
        #expect(quiet.contains("Contacts (0)") && quiet.contains("never synced"), "nothing synced by itself: \(quiet)")
        try session.send("s")
        try session.waitFor("Sync complete!", timeout: 60)
        try session.waitFor("Contacts (2)")
    }

    /// `e` on the highlighted contact, a new Title (the third field), saved.
    func editTitle(of session: TmuxSession, to title: String) throws {
        try session.send("e")
        try session.waitFor("Edit ")
        try session.send("Tab")
        try session.send("Tab")
        try session.send("C-u")
        try session.send(title, literal: true)
        try session.send("C-s")
    }

    func waitUntil(_ what: String, timeout: TimeInterval = 30, _ condition: () throws -> Bool) throws {
        let deadline = Date() + timeout
        while Date() < deadline {
            if (try? condition()) == true { return }
            Thread.sleep(forTimeInterval: 0.25)
        }
        Issue.record("\(what): not within \(Int(timeout)) s")
    }
}
