import Foundation
import LocalOrgProcess
import SmartStore
import Testing

/// A store made with `--store` while the signed-in user's store has a passcode is encrypted with
/// that store's key: one passcode, one unlock, one lock for both.
@Suite("A new --store store shares the signed-in user's key", .serialized)
struct SharedKeyStoreTests {
    typealias Home = SignInCommandTests.Home
    static let run = EncryptedSessionTests.run

    static func signIn(_ server: LocalOrgProcess, _ home: Home, passcode: String) throws {
        let login = try run(
            home,
            [
                "login", "--username", "demo@localorg.test", "--password-stdin", "--login-url", server.url,
                "--cacert", server.caFile,
            ], passcode, "localorg-demo\n")
        #expect(login.exitCode == 0 && login.standardOutput.contains("Passcode set"), "\(login)")
    }

    @Test func aNewStoreIsEncryptedWithTheUsersKeyAndLocksWithIt() throws {
        let server = try LocalOrgProcess()
        let home = try Home()
        defer {
            server.remove()
            home.remove()
        }
        _ = try server.command(["seed", "--accounts", "2", "--contacts", "15"])
        try Self.signIn(server, home, passcode: "field-rep-7")
        #expect(try Self.run(home, ["sync"], nil, nil).exitCode == 0)
        let copy = home.root + "/field-copy.sqlite"

        let sync = try Self.run(home, ["sync", "--store", copy], nil, nil)
        #expect(sync.exitCode == 0 && !sync.standardError.contains("not encrypted"), "\(sync)")
        #expect(try !PasscodeTests.isPlain(copy), "encrypted from its first page")
        #expect(FileManager.default.fileExists(atPath: copy + ".key-of") && !FileManager.default.fileExists(atPath: copy + ".passcode-key"))
        let listed = try Self.run(home, ["list", "contacts", "--store", copy], nil, nil)
        #expect(listed.exitCode == 0 && listed.standardOutput.split(separator: "\n").count == 16, "unlocked with the user's store: \(listed)")
        let email = try #require(listed.standardOutput.split(separator: "\t").first { $0.contains("@") })
        #expect(try !Data(contentsOf: URL(fileURLWithPath: copy)).contains(Data(email.utf8)))

        // Locking either locks both; unlocking the user's store opens the copy.
        #expect(try Self.run(home, ["lock", "--store", copy], nil, nil).standardOutput.contains("Locked"))
        let userLocked = try Self.run(home, ["list", "contacts"], nil, nil)
        #expect(userLocked.exitCode == 1 && userLocked.standardError.contains("is locked"), "\(userLocked)")
        let copyLocked = try Self.run(home, ["list", "contacts", "--store", copy], nil, nil)
        #expect(copyLocked.exitCode == 1 && copyLocked.standardError.contains("is locked"), "\(copyLocked)")
        #expect(try Self.run(home, ["unlock"], nil, "field-rep-7\n").exitCode == 0)
        #expect(try Self.run(home, ["list", "contacts", "--store", copy], nil, nil).exitCode == 0)

        // Its passcode is the user's: changed there, for both.
        let own = try Self.run(home, ["passcode", "--store", copy], nil, "x-1234\n")
        #expect(own.exitCode == 1 && own.standardError.contains("changes that passcode, for both"), "\(own)")
        #expect(try Self.run(home, ["passcode"], nil, "field-rep-7\nsecond-pass\n").exitCode == 0)
        _ = try Self.run(home, ["lock"], nil, nil)
        #expect(try Self.run(home, ["list", "contacts", "--store", copy], "field-rep-7", nil).exitCode == 1)
        let second = try Self.run(home, ["list", "contacts", "--store", copy], "second-pass", nil)
        #expect(second.exitCode == 0, "\(second)")
        let forget = try Self.run(home, ["passcode", "--forgotten", "--yes", "--store", copy], nil, nil)
        #expect(forget.exitCode == 1 && forget.standardError.contains("no passcode of its own"), "\(forget)")

        // The user's store started afresh (a forgotten passcode): the copy says why it cannot be opened.
        _ = try Self.run(home, ["lock"], nil, nil)
        #expect(try Self.run(home, ["passcode", "--forgotten", "--yes"], nil, nil).exitCode == 0)
        try Self.signIn(server, home, passcode: "third-pass")
        let orphan = try Self.run(home, ["list", "contacts", "--store", copy], nil, nil)
        #expect(orphan.exitCode == 1 && orphan.standardError.contains("no longer has"), "\(orphan)")
        _ = try Self.run(home, ["lock"], nil, nil)
    }

    @Test func aNewStoreWhileTheUsersIsLockedSaysWhichPasscodeItNeedsAndLeavesNothing() throws {
        let server = try LocalOrgProcess()
        let home = try Home()
        defer {
            server.remove()
            home.remove()
        }
        try Self.signIn(server, home, passcode: "field-rep-7")
        _ = try Self.run(home, ["lock"], nil, nil)
        let fresh = home.root + "/scratch.sqlite"
        let refused = try Self.run(home, ["create", "contacts", "LastName=Nakamura", "--store", fresh], nil, nil)
        #expect(
            refused.exitCode == 1 && refused.standardError.contains("is to be encrypted with the key of your store")
                && refused.standardError.contains("forceterm unlock"), "\(refused)")
        #expect(!FileManager.default.fileExists(atPath: fresh) && !FileManager.default.fileExists(atPath: fresh + ".key-of"))
        let created = try Self.run(home, ["create", "contacts", "LastName=Nakamura", "--store", fresh], "field-rep-7", nil)
        #expect(created.exitCode == 0, "\(created)")
        #expect(try !PasscodeTests.isPlain(fresh) && !Data(contentsOf: URL(fileURLWithPath: fresh)).contains(Data("Nakamura".utf8)))
        _ = try Self.run(home, ["lock"], nil, nil)
    }

    @Test func encryptingAPlainStoreWhileTheUsersHasAPasscodeSharesItsKey() throws {
        let server = try LocalOrgProcess()
        let home = try Home()
        defer {
            server.remove()
            home.remove()
        }
        let plain = home.root + "/from-before.sqlite"
        // A store from elsewhere (an older forceterm's, a copy): unencrypted, and used as it is.
        try SmartStore(path: plain).setup(from: try StoreConfig(contentsOf: Forceterm.packageRoot.appendingPathComponent("config/userstore.json")))
        #expect(try Self.run(home, ["create", "contacts", "LastName=Okonkwo", "--store", plain], nil, nil).exitCode == 0)
        #expect(try PasscodeTests.isPlain(plain))
        try Self.signIn(server, home, passcode: "field-rep-7")
        let noted = try Self.run(home, ["list", "contacts", "--store", plain], nil, nil)
        #expect(noted.standardError.contains("is not encrypted") && noted.standardError.contains("forceterm passcode --store"), "\(noted)")

        let shared = try Self.run(home, ["passcode", "--store", plain], nil, nil)
        #expect(shared.exitCode == 0 && shared.standardOutput.contains("now encrypted with the key of your store"), "no new passcode asked: \(shared)")
        #expect(try !PasscodeTests.isPlain(plain) && FileManager.default.fileExists(atPath: plain + ".key-of"))
        #expect(!FileManager.default.fileExists(atPath: plain + ".passcode-key"))
        let listed = try Self.run(home, ["list", "contacts", "--store", plain], nil, nil)
        #expect(listed.exitCode == 0 && listed.standardOutput.contains("Okonkwo") && !listed.standardError.contains("not encrypted"), "\(listed)")
        _ = try Self.run(home, ["lock"], nil, nil)
        let locked = try Self.run(home, ["list", "contacts", "--store", plain], nil, nil)
        #expect(locked.exitCode == 1 && locked.standardError.contains("is locked"), "\(locked)")
        #expect(try Self.run(home, ["list", "contacts", "--store", plain], "field-rep-7", nil).exitCode == 0)
        _ = try Self.run(home, ["lock"], nil, nil)
    }
}
