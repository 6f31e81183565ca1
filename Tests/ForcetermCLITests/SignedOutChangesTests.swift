import ForceJSON
import Foundation
import LocalOrgProcess
import MobileSync
import SmartStore
import Testing

/// A new user records contacts before ever signing in (an import from another address book, a
/// script, the TUI offline); signing in must bring them along, not leave them in a store no sync
/// reads. The built binaries against a real localorg.
@Suite("Changes made while nobody is signed in", .serialized)
struct SignedOutChangesTests {
    /// A private XDG home with nobody signed in, and a localorg to sign in to.
    final class NewUser {
        let root: String
        let server: LocalOrgProcess
        var environment: [String: String?] { ["XDG_DATA_HOME": root + "/data", "XDG_CONFIG_HOME": root + "/config"] }
        var signedOutStore: String { root + "/data/forceterm/store.sqlite" }

        init() throws {
            root = NSTemporaryDirectory() + "forceterm-signed-out-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
            server = try LocalOrgProcess()
        }

        func remove() {
            server.remove()
            try? FileManager.default.removeItem(atPath: root)
        }

        /// forceterm with no --store: the store is whichever the signed-in state picks.
        func forceterm(_ arguments: [String]) throws -> CommandOutput {
            try Forceterm.run(arguments, environment: environment)
        }

        func login() throws -> CommandOutput {
            try ChildProcess.run(
                Forceterm.executable,
                [
                    "login", "--username", "demo@localorg.test", "--password-stdin",
                    "--login-url", server.url, "--cacert", server.caFile,
                ],
                environment: environment, input: "localorg-demo\n")
        }

        /// The signed-in user's own store (`users/<org>/<user>/store.sqlite`).
        func userStore() throws -> String {
            let users = root + "/data/forceterm/users"
            let org = try #require(try FileManager.default.contentsOfDirectory(atPath: users).first)
            let user = try #require(try FileManager.default.contentsOfDirectory(atPath: users + "/" + org).first)
            return "\(users)/\(org)/\(user)/store.sqlite"
        }

        static func documents(_ soup: String, in path: String) throws -> [JSONObject] {
            let store = try SmartStore.asForcetermOpensIt(path)
            return try store.query(.all(soup, orderPath: SmartStore.soupEntryId, pageSize: 10_000)).compactMap(\.objectValue)
        }
    }

    static let cards = """
        BEGIN:VCARD\r
        VERSION:3.0\r
        N:Berg;Ingrid;;;\r
        FN:Ingrid Berg\r
        ORG:Fjord Foods\r
        EMAIL;TYPE=WORK:ingrid@fjord.example\r
        END:VCARD\r

        """

    @Test("create and import make the store signed out and say so; login moves the records, links kept; sync sends them; a second login moves nothing")
    func loginBringsThemAlong() throws {
        let user = try NewUser()
        defer { user.remove() }
        let list = try user.forceterm(["list"])
        #expect(list.exitCode == 1 && list.standardError.contains("nobody is signed in and nothing was saved while signed out"), "\(list)")

        let file = user.root + "/cards.vcf"
        try Self.cards.write(toFile: file, atomically: true, encoding: .utf8)
        let dryRun = try user.forceterm(["import", file, "--dry-run"])
        #expect(dryRun.exitCode == 0 && dryRun.standardOutput.contains("create"), "\(dryRun)")
        #expect(!FileManager.default.fileExists(atPath: user.signedOutStore), "a dry run writes no store")

        let account = try user.forceterm(["create", "accounts", "Name=Fjord Foods"])
        #expect(account.exitCode == 0, "\(account)")
        #expect(account.standardError.contains("nobody is signed in: forceterm login moves it into your own store"), "\(account)")
        let contact = try user.forceterm(["create", "contacts", "LastName=Dahl", "AccountId=Fjord Foods"])
        #expect(contact.exitCode == 0, "\(contact)")
        let imported = try user.forceterm(["import", file])
        #expect(imported.exitCode == 0 && imported.standardError.contains("forceterm login moves it"), "the ORG card names the account created above: \(imported)")
        #expect(try NewUser.documents("contacts", in: user.signedOutStore).count == 2)
        #expect(
            try !PasscodeTests.isPlain(user.signedOutStore) && FileManager.default.fileExists(atPath: user.signedOutStore + ".key"),
            "the signed-out store is encrypted too")
        #expect(try !Data(contentsOf: URL(fileURLWithPath: user.signedOutStore)).contains(Data("ingrid@fjord.example".utf8)))

        let login = try user.login()
        #expect(login.exitCode == 0, "\(login)")
        #expect(
            login.standardOutput.contains("Moved 3 records created while nobody was signed in (accounts: 1, contacts: 2) from \(user.signedOutStore) into your store"),
            "\(login)")
        #expect(try NewUser.documents("contacts", in: user.signedOutStore).isEmpty, "gone from the signed-out store")
        let moved = try NewUser.documents("contacts", in: try user.userStore())
        #expect(moved.count == 2 && moved.allSatisfy { $0["__locally_created__"] == true && $0["Id"]?.stringValue?.hasPrefix("local_") == true })

        let sync = try user.forceterm(["sync"])
        #expect(sync.exitCode == 0 && sync.standardOutput.contains("Sent 3 changes (3 created"), "\(sync)")
        let token = try OrgREST.accessToken(user.server)
        let fjord = try #require(try NewUser.documents("accounts", in: try user.userStore()).first { $0["Name"] == "Fjord Foods" })
        for name in ["Dahl", "Berg"] {
            let synced = try #require(try NewUser.documents("contacts", in: try user.userStore()).first { $0["LastName"]?.stringValue == name })
            let onServer = try OrgREST.contact(try #require(synced["Id"]?.stringValue), server: user.server, token: token)
            #expect(onServer["AccountId"] == fjord["Id"], "\(name) reached the org linked to the account created before signing in: \(onServer)")
        }

        let again = try user.login()
        #expect(again.exitCode == 0 && !again.standardOutput.contains("Moved"), "\(again)")
    }

    @Test("while a forceterm opened before sign-in syncs the signed-out store, login leaves its records (that sync sends them); the next login moves what is left")
    func aSyncOfTheSignedOutStoreKeepsItsRecords() throws {
        let user = try NewUser()
        defer { user.remove() }
        #expect(try user.forceterm(["create", "contacts", "LastName=Racing"]).exitCode == 0)
        var held: SyncLock? = try #require(try SyncLock.tryAcquire(storePath: user.signedOutStore), "as a TUI's sync holds it")
        let login = try user.login()
        #expect(login.exitCode == 0, "signing in itself succeeds: \(login)")
        #expect(
            login.standardError.contains("could not move the records created while nobody was signed in")
                && login.standardError.contains("a sync of \(user.signedOutStore) is running"), "\(login)")
        #expect(try NewUser.documents("contacts", in: user.signedOutStore).count == 1, "left for that sync")
        withExtendedLifetime(held) {}
        held = nil
        let again = try user.login()
        #expect(again.standardOutput.contains("Moved 1 record created while nobody was signed in (contacts: 1)"), "\(again)")
    }

    @Test("a move cut short after the copy is finished by the next login without a second copy")
    func aMoveCutShortIsFinished() throws {
        let user = try NewUser()
        defer { user.remove() }
        #expect(try user.login().exitCode == 0)
        #expect(try user.forceterm(["sync"]).exitCode == 0)
        let userStore = try user.userStore()
        #expect(try user.forceterm(["logout"]).exitCode == 0)
        #expect(try user.forceterm(["create", "contacts", "LastName=Once"]).exitCode == 0)
        #expect(try user.forceterm(["create", "contacts", "LastName=Twice"]).exitCode == 0)
        // As if the last login had copied Once and died before removing it from the signed-out store.
        var copy = try #require(try NewUser.documents("contacts", in: user.signedOutStore).first { $0["LastName"] == "Once" })
        copy.removeValue(forKey: SmartStore.soupEntryId)
        copy.removeValue(forKey: SmartStore.soupLastModifiedDate)
        _ = try SmartStore.asForcetermOpensIt(userStore).create(copy, in: "contacts")

        let login = try user.login()
        #expect(login.exitCode == 0 && login.standardOutput.contains("Moved 2 records"), "\(login)")
        let names = try NewUser.documents("contacts", in: userStore).compactMap { $0["LastName"]?.stringValue }.filter { ["Once", "Twice"].contains($0) }
        #expect(names.sorted() == ["Once", "Twice"], "one of each: \(names)")
    }
}
