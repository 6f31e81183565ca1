import Foundation
import Testing

/// `forceterm resolve`: a conflict shown and settled without the terminal UI (over SSH, in scripts).
extension SyncCommandTests {
    @Test("resolve shows the conflicting fields, mine beside the server's; --keep-mine --field settles one, --take-server the rest; the sync sends the outcome")
    func resolveFromTheCommandLine() throws {
        let user = try SignedIn(contacts: 2)
        defer { user.remove() }
        #expect(try user.forceterm(["sync"]).exitCode == 0)
        let id = try #require(try user.documents("contacts").first?["Id"]?.stringValue)
        usleep(1_100_000)  // whole-second modification times: the server edit must be newer
        try user.server.command(["edit", "Contact", id, "Title=From the server", "Department=Theirs"])
        try user.editLocally("contacts", where: "Id", is: id, ["Title": "From me", "Department": "Mine"])
        #expect(try user.forceterm(["sync"]).exitCode == 3)

        let shown = try user.forceterm(["resolve", id])
        #expect(shown.exitCode == 0, "\(shown)")
        #expect(shown.standardOutput.contains(#"mine: "From me"   server's: "From the server""#), "\(shown)")
        #expect(shown.standardOutput.contains(#"mine: "Mine"   server's: "Theirs""#), "\(shown)")
        #expect(shown.standardOutput.contains("forceterm resolve \(id) --keep-mine | --take-server"), "\(shown)")

        let one = try user.forceterm(["resolve", id, "--keep-mine", "--field", "title"])
        #expect(one.exitCode == 0 && one.standardError.contains("kept yours for Title; still in conflict: Department"), "\(one)")
        let unknown = try user.forceterm(["resolve", id, "--take-server", "--field", "Email"])
        #expect(unknown.exitCode == 1 && unknown.standardError.contains("not one of the fields in conflict; they are: Department"), "\(unknown)")
        let rest = try user.forceterm(["resolve", id, "--take-server"])
        #expect(rest.exitCode == 0 && rest.standardError.contains("took the server's; forceterm sync --store ") && rest.standardError.contains(" sends the outcome"), "\(rest)")
        let none = try user.forceterm(["resolve", id])
        #expect(none.exitCode == 1 && none.standardError.contains("is not in conflict"), "\(none)")

        let sync = try user.forceterm(["sync"])
        #expect(sync.exitCode == 0, "\(sync)")
        let onServer = try user.server.command(["query", "SELECT Title, Department FROM Contact WHERE Id = '\(id)'"])
        #expect(onServer.contains("From me") && onServer.contains("Theirs") && !onServer.contains("Mine"), "\(onServer)")
        let both = try user.forceterm(["resolve", id, "--keep-mine", "--take-server"])
        #expect(both.exitCode == 2, "\(both)")

        // Taking the server's for all I changed leaves nothing to send, and says so.
        let other = try #require(try user.documents("contacts").compactMap { $0["Id"]?.stringValue }.first { $0 != id })
        usleep(1_100_000)
        try user.server.command(["edit", "Contact", other, "Title=Theirs again"])
        try user.editLocally("contacts", where: "Id", is: other, ["Title": "Mine again"])
        #expect(try user.forceterm(["sync"]).exitCode == 3)
        let theirs = try user.forceterm(["resolve", other, "--take-server"])
        #expect(theirs.exitCode == 0 && theirs.standardError.contains("took the server's; nothing is left to send"), "\(theirs)")
    }
}
