import ForceJSON
import Foundation
import LocalOrgProcess
import Testing

/// A trainer restores the class's starting snapshot while laptops still hold the last class's
/// store: nothing of the old org may be shown as the new org's, and unsent changes are set aside,
/// never sent to the new org.
@Suite("An org restored from a snapshot is a new org to forceterm", .serialized)
struct OrgResetTests {
    typealias Home = SignInCommandTests.Home

    @Test("After a restore: sync says sign in again; login names the new org and the file of unsent changes; the next sync starts a fresh store")
    func restoreWhileLaptopsHoldChanges() throws {
        let server = try LocalOrgProcess()
        let home = try Home()
        defer {
            server.remove()
            home.remove()
        }
        try server.command(["seed", "--accounts", "3", "--contacts", "20"])
        try server.command(["snapshot", "save", "class-start"])
        let login = { () throws -> CommandOutput in
            try ChildProcess.run(
                Forceterm.executable,
                [
                    "login", "--username", "demo@localorg.test", "--password-stdin",
                    "--login-url", server.url, "--cacert", server.caFile,
                ],
                environment: home.environment, input: "localorg-demo\n")
        }
        #expect(try login().exitCode == 0)
        #expect(try Forceterm.run(["sync"], environment: home.environment).exitCode == 0)

        // The class: the server changes a contact (so this laptop holds it "clean" with the class's
        // value); the trainee edits another and creates one, and does not sync.
        let listed = try Forceterm.run(["list", "contacts", "--format", "json"], environment: home.environment)
        let contacts = try #require(try JSONParser.parse(Data(listed.standardOutput.utf8)).arrayValue)
        let serverEdited = try #require(contacts.first?["id"]?.stringValue)
        let traineeEdited = try #require(contacts.last?["id"]?.stringValue)
        let original = try #require(contacts.first?["LastName"]?.stringValue)
        try server.command(["edit", "Contact", serverEdited, "LastName=Class Value"])
        #expect(try Forceterm.run(["sync"], environment: home.environment).exitCode == 0)
        #expect(try Forceterm.run(["update", traineeEdited, "Title=Edited In Class"], environment: home.environment).exitCode == 0)
        #expect(try Forceterm.run(["create", "contacts", "LastName=Made In Class"], environment: home.environment).exitCode == 0)

        let restore = try server.command(["snapshot", "restore", "class-start"])
        #expect(restore.contains("New organization id"), "\(restore)")

        let refused = try Forceterm.run(["sync"], environment: home.environment)
        #expect(refused.exitCode != 0 && refused.standardError.contains("forceterm login"), "\(refused)")

        let again = try login()
        #expect(again.exitCode == 0, "\(again)")
        #expect(again.standardOutput.contains("is a new org"), "\(again)")
        let aside = try #require(again.standardOutput.components(separatedBy: "set aside in ").last?.prefix { !$0.isWhitespace }.dropLast(1))
        // Sealed with the old store's key: nothing of the records readable in the file itself.
        let file = try Data(contentsOf: URL(fileURLWithPath: String(aside)))
        #expect(!file.contains(Data("Made In Class".utf8)) && !file.contains(Data("Edited In Class".utf8)))
        #expect(try FileManager.default.attributesOfItem(atPath: String(aside))[.posixPermissions] as? Int == 0o600)
        let asideFiles = try Forceterm.run(["aside"], environment: home.environment)
        #expect(asideFiles.exitCode == 0 && asideFiles.standardOutput.contains(String(aside)) && asideFiles.standardOutput.contains("2 changes"), "\(asideFiles)")
        let shownAside = try Forceterm.run(["aside", String(aside)], environment: home.environment)
        #expect(shownAside.exitCode == 0, "\(shownAside)")
        let document = try JSONParser.parse(shownAside.standardOutput)
        let changes = try #require(document["changes"]?.arrayValue)
        #expect(changes.count == 2)
        #expect(changes.contains { $0["change"]?.stringValue == "created" && $0["record"]?["LastName"]?.stringValue == "Made In Class" })
        #expect(changes.contains { $0["change"]?.stringValue == "updated" && $0["record"]?["Title"]?.stringValue == "Edited In Class" })
        let updated = try #require(changes.first { $0["change"]?.stringValue == "updated" })
        #expect(updated["changedFields"] == ["Title"], "which field was changed here: \(updated)")
        #expect(updated["serverValuesBefore"]?["Title"] != nil, "and what the old org had in it: \(updated)")

        // The old store is bound to the old org: syncing it by path sends nothing to the new one.
        let oldStore = try #require(document["store"]?.stringValue)
        let mixed = try Forceterm.run(["sync", "--store", oldStore], environment: home.environment)
        #expect(mixed.exitCode == 1 && mixed.standardError.contains("holds records of the org"), "\(mixed)")
        #expect(try server.command(["info"]).contains("Contact          20 live"))

        let unsynced = try Forceterm.run(["status"], environment: home.environment)
        #expect(unsynced.exitCode == 1 && unsynced.standardError.contains("signed in, but nothing is synced yet"), "\(unsynced)")
        let fresh = try Forceterm.run(["sync"], environment: home.environment)
        #expect(fresh.exitCode == 0, "\(fresh)")
        #expect(fresh.standardOutput.contains("Sent 0 changes"), "\(fresh)")
        let shown = try Forceterm.run(["show", serverEdited, "--json"], environment: home.environment)
        #expect(try JSONParser.parse(Data(shown.standardOutput.utf8))["LastName"]?.stringValue == original, "\(shown)")
        let status = try Forceterm.run(["status"], environment: home.environment)
        #expect(status.standardOutput.contains("contacts: 0 pending (0 created, 0 updated, 0 deleted)"), "\(status)")
        let info = try server.command(["info"])
        #expect(info.contains("Contact          20 live"), "\(info)")
    }
}
