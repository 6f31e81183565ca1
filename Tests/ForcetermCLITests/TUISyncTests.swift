import ForceJSON
import Foundation
import SmartStore
import Testing

/// The TUI's `s` key against a real localorg: the signed-in user's changes go up and the org's
/// records come down, with the keyboard live and a toast at the end.
@Suite("forceterm's TUI syncs with s", .serialized)
struct TUISyncTests {
    @Test("A contact created in the TUI reaches the org on s, and the org's contacts arrive")
    func syncKey() throws {
        let user = try SyncCommandTests.SignedIn(accounts: 2, contacts: 6)
        defer { user.remove() }
        let environment = user.environment.compactMapValues { $0 }
        let session = try TmuxSession(
            command: [Forceterm.executable.path, "--store", user.storePath], width: 120, height: 40,
            environment: environment)
        defer { session.kill() }
        try session.waitFor("Contacts (0)")
        try session.send("n")
        try session.waitFor("New contact")
        try session.send("Ngozi", literal: true)
        try session.send("Tab")
        try session.send("Okafor", literal: true)
        try session.send("C-s")
        try session.waitFor("Saved locally")

        try session.send("s")
        try session.waitFor("Sync complete! Sent 1 change; ")
        try session.waitFor("Okafor")
        try session.send("q")
        #expect(ProcessWatch.waitUntilGone(argument: user.storePath), "forceterm quits on q")

        let contacts = try user.documents("contacts")
        #expect(contacts.count >= 7, "the 6 seeded contacts (and any the org had) plus the new one")
        let created = try #require(contacts.first { $0["LastName"] == "Okafor" })
        #expect(created["__local__"] == false)
        #expect(created["Id"]?.stringValue?.hasPrefix("003") == true, "the server's id replaced the local one")
        #expect(contacts.allSatisfy { $0["__local__"] == false })
    }

    @Test("The running TUI uses a sign-in made in another terminal; after a sync that cannot reach the org it says offline, last sync unchanged")
    func signInLaterAndOffline() throws {
        let user = try SyncCommandTests.SignedIn(accounts: 1, contacts: 3)
        defer { user.remove() }
        let environment = user.environment.compactMapValues { $0 }
        let credentials = user.root + "/data/forceterm/credentials.json"
        let saved = try Data(contentsOf: URL(fileURLWithPath: credentials))
        try FileManager.default.removeItem(atPath: credentials)
        let session = try TmuxSession(
            command: [Forceterm.executable.path, "--store", user.storePath], width: 120, height: 30,
            environment: environment)
        defer { session.kill() }
        try session.waitFor("not signed in — forceterm login")
        try session.send("s")
        try session.waitFor("Not signed in: run forceterm login, then s;")

        // forceterm login in another terminal, while the TUI runs.
        try saved.write(to: URL(fileURLWithPath: credentials))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: credentials)
        try session.send("s")
        try session.waitFor("Sync complete!")
        let synced = try session.waitFor("online")
        let lastSync = try #require(synced.split(separator: "\n").last { $0.contains("last sync") })
            .components(separatedBy: "last sync ").last?.prefix(19)

        user.server.stop()
        try session.send("s")
        // In words that fit 80 columns and say nothing was lost, not the engine's sync names.
        let toast = try session.waitFor("Offline: org unreachable; 0 local changes stay queued (s retries)")
        #expect(!toast.contains("syncUp") && !toast.contains("syncDown"), "\(toast)")
        let offline = try session.waitFor("offline ·")
        let status = try #require(offline.split(separator: "\n").last { $0.contains("last sync") })
        #expect(status.contains("offline") && !status.contains("online"), "\(status)")
        #expect(lastSync.map { status.contains("last sync \($0)") } == true, "the last successful sync stays: \(status) vs \(String(describing: lastSync))")
        try session.send("q")
    }
}
