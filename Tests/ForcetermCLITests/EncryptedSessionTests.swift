import ForceJSON
import Foundation
import LocalOrgProcess
import SmartStore
import Testing

/// Signing in with a passcode: the user's store is written encrypted from its first sync, the saved
/// session's tokens are sealed with the store's key, and a locked store stops every command until
/// the passcode comes, except `logout --force`.
@Suite("A signed-in user's store and session, encrypted by the passcode", .serialized)
struct EncryptedSessionTests {
    typealias Home = SignInCommandTests.Home

    static func run(_ home: Home, _ arguments: [String], passcode: String? = nil, input: String? = nil) throws -> CommandOutput {
        var environment = home.environment
        environment["FORCETERM_PASSCODE"] = passcode
        return try ChildProcess.run(Forceterm.executable, arguments, environment: environment, input: input)
    }

    /// Signs the demo user in to `server` from `home`, with a passcode when given.
    @discardableResult
    static func signIn(_ server: LocalOrgProcess, _ home: Home, passcode: String? = nil) throws -> CommandOutput {
        try run(
            home, ["login", "--username", "demo@localorg.test", "--password-stdin", "--login-url", server.url, "--cacert", server.caFile],
            passcode: passcode, input: "localorg-demo\n")
    }

    static func storeFile(_ home: Home) throws -> String {
        let users = home.dataHome + "/forceterm/users"
        let enumerator = FileManager.default.enumerator(atPath: users)
        while let relative = enumerator?.nextObject() as? String {
            if relative.hasSuffix("/store.sqlite") { return users + "/" + relative }
        }
        throw SignInFailure("no store under \(users)")
    }

    struct SignInFailure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    @Test func aPasscodeAtSignInEncryptsTheStoreAndSealsTheSession() throws {
        let server = try LocalOrgProcess()
        let home = try Home()
        defer {
            server.remove()
            home.remove()
        }
        _ = try server.command(["seed", "--accounts", "3", "--contacts", "40"])
        let login = try Self.signIn(server, home, passcode: "field-rep-7")
        #expect(login.exitCode == 0 && login.standardOutput.contains("Passcode set"), "\(login)")
        let saved = try String(contentsOfFile: home.credentialsPath, encoding: .utf8)
        let credentials = try JSONParser.parseObject(saved)
        #expect(credentials["accessToken"]?.stringValue?.hasPrefix("forceterm-sealed:1:") == true, "\(saved)")
        #expect(credentials["refreshToken"]?.stringValue?.hasPrefix("forceterm-sealed:1:") == true, "\(saved)")
        #expect(credentials["username"]?.stringValue == "demo@localorg.test", "whose store it is stays readable")

        // Unlocked by the sign-in: the sync needs no passcode in this login.
        let sync = try Self.run(home, ["sync"])
        #expect(sync.exitCode == 0, "\(sync)")
        let store = try Self.storeFile(home)
        let head = try FileHandle(forReadingFrom: URL(fileURLWithPath: store)).read(upToCount: 16) ?? Data()
        #expect(head != Data("SQLite format 3\0".utf8), "the store is encrypted from its first sync")

        #expect(try Self.run(home, ["lock"]).standardOutput.contains("Locked"))
        let locked = try Self.run(home, ["sync"])
        #expect(locked.exitCode == 1 && locked.standardError.contains("is locked"), "\(locked)")
        let withPasscode = try Self.run(home, ["sync"], passcode: "field-rep-7")
        #expect(withPasscode.exitCode == 0, "\(withPasscode)")
        let list = try Self.run(home, ["list", "contacts"])
        #expect(list.exitCode == 0 && list.standardOutput.split(separator: "\n").count == 41, "unlocked again by the passcode: \(list)")
        let email = try #require(list.standardOutput.split(separator: "\t").first { $0.contains("@") })
        #expect(try !Data(contentsOf: URL(fileURLWithPath: store)).contains(Data(email.utf8)), "\(email) is not readable in the file")

        // Locked, logout needs the passcode; --force signs out anyway, the session unrevoked.
        _ = try Self.run(home, ["lock"])
        let refused = try Self.run(home, ["logout"])
        #expect(refused.exitCode == 1 && refused.standardError.contains("is locked"), "\(refused)")
        let forced = try Self.run(home, ["logout", "--force"])
        #expect(forced.exitCode == 0 && forced.standardError.contains("not revoked"), "\(forced)")
        #expect(!FileManager.default.fileExists(atPath: home.credentialsPath))
    }

    @Test func aForgottenPasscodeSetsTheStoreAsideAndTheNextSignInStartsAFreshOne() throws {
        let server = try LocalOrgProcess()
        let home = try Home()
        defer {
            server.remove()
            home.remove()
        }
        _ = try server.command(["seed", "--accounts", "2", "--contacts", "12"])
        let signIn = ["login", "--username", "demo@localorg.test", "--password-stdin", "--login-url", server.url, "--cacert", server.caFile]
        #expect(try Self.run(home, signIn, passcode: "first-one", input: "localorg-demo\n").exitCode == 0)
        #expect(try Self.run(home, ["sync"]).exitCode == 0)
        let store = try Self.storeFile(home)
        _ = try Self.run(home, ["lock"])

        let unasked = try Self.run(home, ["passcode", "--forgotten"])
        #expect(unasked.exitCode == 1 && unasked.standardError.contains("nothing was changed"), "no terminal, no --yes: \(unasked)")
        #expect(FileManager.default.fileExists(atPath: store))
        let forgotten = try Self.run(home, ["passcode", "--forgotten", "--yes"])
        #expect(forgotten.exitCode == 0 && forgotten.standardOutput.contains("You are signed out"), "\(forgotten)")
        #expect(!FileManager.default.fileExists(atPath: store) && !FileManager.default.fileExists(atPath: home.credentialsPath))
        let aside = try FileManager.default.contentsOfDirectory(atPath: home.dataHome + "/forceterm/set-aside")
        #expect(aside.contains { $0.hasSuffix(".sqlite") } && aside.contains { $0.hasSuffix(".passcode-key") }, "\(aside)")

        // A new passcode, a fresh store synced from the org.
        #expect(try Self.run(home, signIn, passcode: "second-one", input: "localorg-demo\n").standardOutput.contains("Passcode set"))
        #expect(try Self.run(home, ["sync"]).exitCode == 0)
        _ = try Self.run(home, ["lock"])
        let listed = try Self.run(home, ["list", "contacts"], passcode: "second-one")
        #expect(listed.exitCode == 0 && listed.standardOutput.split(separator: "\n").count == 13, "\(listed)")
        _ = try Self.run(home, ["lock"])
    }

    @Test func withoutATerminalOrAPasscodeTheStoreIsEncryptedWithAKeyFileUntilAPasscodeSealsIt() throws {
        let server = try LocalOrgProcess()
        let home = try Home()
        defer {
            server.remove()
            home.remove()
        }
        _ = try server.command(["seed", "--accounts", "1", "--contacts", "5"])
        let login = try Self.signIn(server, home)
        #expect(login.exitCode == 0 && login.standardOutput.contains("encrypted with a key kept beside it") && login.standardOutput.contains("forceterm passcode"), "\(login)")
        // The key file is made at sign-in, so the saved session is sealed with its key from the start.
        #expect(try String(contentsOfFile: home.credentialsPath, encoding: .utf8).contains("forceterm-sealed:1:"))
        // An import that fails before the store exists removes what it made, not that key file.
        let bad = home.root + "/bad.csv"
        try "First Name\nNoLast\n".write(toFile: bad, atomically: true, encoding: .utf8)
        #expect(try Self.run(home, ["import", bad]).exitCode == 1)
        #expect(FileManager.default.fileExists(atPath: try SignInCommandTests.userStorePath(home) + ".key"), "the session's key stays")
        #expect(try Self.run(home, ["sync"]).exitCode == 0)
        let store = try Self.storeFile(home)
        #expect(try !PasscodeTests.isPlain(store) && FileManager.default.fileExists(atPath: store + ".key"), "encrypted from its first page")
        // Set later: the key file's key is sealed by the passcode, the key file goes, the saved session is sealed.
        let set = try Self.run(home, ["passcode"], input: "later-on\n")
        #expect(set.exitCode == 0 && set.standardOutput.contains("now sealed by the passcode"), "\(set)")
        #expect(!FileManager.default.fileExists(atPath: store + ".key"))
        #expect(try String(contentsOfFile: home.credentialsPath, encoding: .utf8).contains("forceterm-sealed:1:"))
        // A copy of credentials.json is no session without the key: the key file is gone, the passcode seals it.
        _ = try Self.run(home, ["lock"])
        #expect(try Self.run(home, ["sync"]).standardError.contains("is locked"))
        let sync = try Self.run(home, ["sync"], passcode: "later-on")
        #expect(sync.exitCode == 0, "the sealed session still syncs: \(sync)")
        _ = try Self.run(home, ["lock"])
    }

    /// Files of a store (and its log) that hold any of `texts` readable. Texts shorter than 5 bytes
    /// are left out: 3 given bytes turn up by chance in a few MB of ciphertext (a name like "Doe"
    /// did, once in CI), 5 practically never (2^-40 per position).
    static func readable(_ texts: [String], in store: String) throws -> [String] {
        let telling = texts.filter { $0.utf8.count >= 5 }
        return try [store, store + "-wal"].filter { FileManager.default.fileExists(atPath: $0) }.flatMap { file in
            let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
            return telling.filter { bytes.contains(Data($0.utf8)) }.map { "\($0) in \(file)" }
        }
    }

    @Test func aStoreFromBeforeEncryptionWithUnsentChangesAConflictAndASyncCutShortIsEncryptedOnItsFirstOpen() throws {
        let server = try LocalOrgProcess()
        let home = try Home()
        defer {
            server.remove()
            home.remove()
        }
        _ = try server.command(["seed", "--accounts", "3", "--contacts", "40"])
        _ = try Self.signIn(server, home)
        // An older forceterm's store: unencrypted. Made and used here as a file from elsewhere
        // (named with --store, which forceterm uses as it is), then put where the user's store lives.
        let older = home.root + "/older.sqlite"
        try SmartStore(path: older).setup(from: try StoreConfig(contentsOf: Forceterm.packageRoot.appendingPathComponent("config/userstore.json")))
        #expect(try Self.run(home, ["sync", "--store", older]).exitCode == 0)
        let listed = try JSONParser.parse(try Self.run(home, ["list", "contacts", "--format", "json", "--store", older]).standardOutput)
        let ids = (listed.arrayValue ?? []).compactMap { $0["Id"]?.stringValue }
        try #require(ids.count == 40)
        // A conflict: the same field changed in the office and in the field.
        usleep(1_100_000)  // whole-second modification times: the server edit must be newer
        _ = try server.command(["edit", "Contact", ids[0], "Title=From the office"])
        _ = try Self.run(home, ["update", ids[0], "Title=From the field", "--store", older])
        #expect(try Self.run(home, ["sync", "--store", older]).exitCode == 3)
        // Two changes whose sync was cut short once the server had taken them and before the answer was recorded.
        _ = try Self.run(home, ["update", ids[1], "Title=Unsent one", "--store", older])
        _ = try Self.run(home, ["update", ids[2], "Title=Unsent two", "--store", older])
        var crashing = home.environment
        crashing["FORCETERM_TEST_EXIT_AFTER_CALL"] = "1"
        let cut = try ChildProcess.run(Forceterm.executable, ["sync", "--store", older], environment: crashing)
        #expect(cut.exitCode == 86, "\(cut)")
        #expect(try PasscodeTests.isPlain(older))
        #expect(try !Self.readable(["Unsent one", "From the field"], in: older).isEmpty, "the older store shows them")
        let store = try SignInCommandTests.userStorePath(home)
        try FileManager.default.createDirectory(atPath: (store as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: older + suffix) {
            try FileManager.default.moveItem(atPath: older + suffix, toPath: store + suffix)
        }

        // The first open (here status) encrypts it, says so, and reads it all.
        let status = try Self.run(home, ["status"])
        #expect(status.exitCode == 0 && status.standardOutput.contains("1 in conflict"), "\(status)")
        #expect(status.standardError.contains("was not encrypted; it is now") && status.standardError.contains("forceterm passcode protects"), "\(status)")
        #expect(try !PasscodeTests.isPlain(store) && FileManager.default.fileExists(atPath: store + ".key"))
        #expect(try Self.readable(["Unsent one", "From the field", "From the office"], in: store).isEmpty)
        #expect(!(try Self.run(home, ["status"]).standardError.contains("not encrypted")), "said once")
        // The sync picks up where it was cut: both changes on the server, the conflict still the user's to decide.
        let sync = try Self.run(home, ["sync"])
        #expect(sync.exitCode == 3, "\(sync)")
        let onServer = try server.command(["query", "SELECT Id, Title FROM Contact WHERE Title LIKE 'Unsent%' ORDER BY Title"])
        #expect(onServer.contains("Unsent one") && onServer.contains("Unsent two"), "\(onServer)")
        let mine = try JSONParser.parse(try Self.run(home, ["list", "contacts", "--format", "json"]).standardOutput)
        #expect(mine.arrayValue?.first { $0["Id"]?.stringValue == ids[0] }?["Title"] == "From the field", "the conflict keeps my value until decided")
        // A passcode then seals its key.
        let set = try Self.run(home, ["passcode"], input: "kept-all-99\n")
        #expect(set.exitCode == 0 && set.standardOutput.contains("now sealed by the passcode"), "\(set)")
        #expect(try Self.readable(["Unsent one", "From the field", "From the office"], in: store).isEmpty)
        _ = try Self.run(home, ["lock"])
    }

    @Test func theWriteAheadLogOfASyncCutShortHoldsNothingReadable() throws {
        let server = try LocalOrgProcess()
        let home = try Home()
        defer {
            server.remove()
            home.remove()
        }
        _ = try server.command(["seed", "--accounts", "2", "--contacts", "60"])
        _ = try Self.signIn(server, home, passcode: "wal-check-1")
        // The same sync cut short into an unencrypted store (the control: its log shows the names,
        // so the check can fail) and into the user's: after the first commit that puts contacts in the log.
        let names = try server.command(["query", "SELECT LastName FROM Contact"])
        let seededName = try #require(
            names.split(separator: "\n").dropFirst().map { $0.trimmingCharacters(in: .whitespaces) }.first { $0.count >= 5 && $0 != "LastName" && $0.allSatisfy { $0.isASCII && $0.isLetter } })
        var crashing = home.environment
        var logs: [String: Data] = [:]
        var tried: [String] = []
        let store = try SignInCommandTests.userStorePath(home)
        for commit in 1...40 {
            let plain = home.root + "/plain-\(commit).sqlite"
            try SmartStore(path: plain).setup(from: try StoreConfig(contentsOf: Forceterm.packageRoot.appendingPathComponent("config/userstore.json")))
            crashing["FORCETERM_TEST_EXIT_AFTER_COMMIT"] = String(commit)
            let run = try ChildProcess.run(Forceterm.executable, ["sync", "--store", plain], environment: crashing)
            tried.append("\(commit): exit \(run.exitCode) \(run.standardError.suffix(300))")
            guard run.exitCode == 86 else { break }
            let log = try Data(contentsOf: URL(fileURLWithPath: plain + "-wal"))
            guard log.contains(Data(seededName.utf8)) else { continue }
            logs["control"] = log
            let cut = try ChildProcess.run(Forceterm.executable, ["sync"], environment: crashing)
            #expect(cut.exitCode == 86, "\(cut)")
            logs[store] = try Data(contentsOf: URL(fileURLWithPath: store + "-wal"))
            break
        }
        try #require(logs["control"] != nil && logs[store] != nil, "no commit put \(seededName) in the log: \(tried)")
        #expect(try Self.run(home, ["sync"]).exitCode == 0)
        let listed = try JSONParser.parse(try Self.run(home, ["list", "contacts", "--json"]).standardOutput)
        let texts = (listed.arrayValue ?? []).flatMap { contact in ["LastName", "Email"].compactMap { contact[$0]?.stringValue } }.filter { $0.count >= 5 }
        try #require(texts.count > 60)
        func found(in log: Data?) -> [String] { texts.filter { log?.contains(Data($0.utf8)) == true } }
        #expect((logs[store]?.count ?? 0) > 0 && found(in: logs[store]).isEmpty, "\(found(in: logs[store]).prefix(5))")
        #expect(found(in: logs["control"]).count > 10, "the control's log shows them: \(seededName) \(texts.prefix(8)) \(logs["control"]?.count ?? 0)")
        _ = try Self.run(home, ["lock"])
    }

    @Test func aPasswordPipedAtATerminalStillHasThePasscodeAskedOnTheTerminal() throws {
        let server = try LocalOrgProcess()
        let home = try Home()
        defer {
            server.remove()
            home.remove()
        }
        let login = [
            Forceterm.executable.path, "login", "--username", "demo@localorg.test", "--password-stdin", "--login-url", server.url,
            "--cacert", server.caFile,
        ].joined(separator: " ")
        let session = try TmuxSession(
            command: ["sh", "-c", "echo localorg-demo | \(login)"], width: 120, height: 20,
            environment: home.environment.compactMapValues { $0 })
        defer { session.kill() }
        try session.waitFor("New passcode")
        try session.send("tty-pass-1", literal: true)
        try session.send("Enter")
        try session.waitFor("The same passcode again")
        try session.send("tty-pass-1", literal: true)
        try session.send("Enter")
        let done = try session.waitFor("Passcode set")
        #expect(!done.contains("tty-pass-1"), "never echoed: \(done)")
        #expect(FileManager.default.fileExists(atPath: try SignInCommandTests.userStorePath(home) + ".passcode-key"))
        _ = try Self.run(home, ["lock"])
    }

    @Test func theForgottenPasscodeQuestionSaysUnsentChangesAreLostBeforeAnythingHappens() throws {
        let server = try LocalOrgProcess()
        let home = try Home()
        defer {
            server.remove()
            home.remove()
        }
        _ = try server.command(["seed", "--accounts", "1", "--contacts", "3"])
        _ = try Self.signIn(server, home, passcode: "first-one")
        #expect(try Self.run(home, ["sync"]).exitCode == 0)
        let store = try Self.storeFile(home)
        _ = try Self.run(home, ["lock"])
        // At a terminal: the question, then "no" changes nothing.
        let session = try TmuxSession(
            command: [Forceterm.executable.path, "passcode", "--forgotten"], width: 100, height: 20,
            environment: home.environment.compactMapValues { $0 })
        defer { session.kill() }
        let asked = try session.waitFor("(yes/no)?").replacingOccurrences(of: "\n", with: "")
        #expect(asked.contains("changes it never sent are NOT sent") && asked.contains("cannot be opened without its passcode"), "\(asked)")
        try session.send("no", literal: true)
        try session.send("Enter")
        try session.waitFor("nothing was changed")
        #expect(FileManager.default.fileExists(atPath: store) && FileManager.default.fileExists(atPath: home.credentialsPath))
    }

    @Test func aCopiedSessionIsNoSessionWithoutTheStoresKeyAndAWholeCopiedDataDirectoryWithoutThePasscode() throws {
        let server = try LocalOrgProcess()
        let home = try Home()
        let elsewhere = try Home()
        let wholeCopy = try Home()
        defer {
            server.remove()
            home.remove()
            elsewhere.remove()
            wholeCopy.remove()
        }
        _ = try server.command(["seed", "--accounts", "1", "--contacts", "3"])
        _ = try Self.signIn(server, home, passcode: "mine-only")
        #expect(try Self.run(home, ["sync"]).exitCode == 0)
        // credentials.json alone, on another machine: sealed tokens and no key to open them.
        try FileManager.default.createDirectory(atPath: elsewhere.dataHome + "/forceterm", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: home.credentialsPath, toPath: elsewhere.credentialsPath)
        let copied = try Self.run(elsewhere, ["sync"])
        #expect(
            copied.exitCode == 1 && copied.standardError.contains("is sealed with the key of the store")
                && copied.standardError.contains("sign in again"), "\(copied)")
        #expect(try Self.run(elsewhere, ["sync"], passcode: "mine-only").exitCode == 1, "the passcode alone is no key either")
        // The whole data directory (store, sealed key, session): locked until the passcode comes.
        try? FileManager.default.removeItem(atPath: wholeCopy.dataHome)
        try FileManager.default.copyItem(atPath: home.dataHome, toPath: wholeCopy.dataHome)
        let locked = try Self.run(wholeCopy, ["sync"])
        #expect(locked.exitCode == 1 && locked.standardError.contains("is locked"), "\(locked)")
        #expect(try Self.run(wholeCopy, ["sync"], passcode: "mine-only").exitCode == 0)
        _ = try Self.run(home, ["lock"])
        _ = try Self.run(wholeCopy, ["lock"])
    }

    @Test func aPasscodeShorterThanTheOrgsNewPolicyIsSaidAtUnlock() throws {
        let server = try LocalOrgProcess()
        let home = try Home()
        defer {
            server.remove()
            home.remove()
        }
        let login = try Self.signIn(server, home, passcode: "six-ch")
        #expect(login.exitCode == 0 && login.standardOutput.contains("Passcode set"), "\(login)")
        // The org raised its pin length since (a later sign-in saved the identity's new mobile_policy).
        var saved = try JSONParser.parseObject(try String(contentsOfFile: home.credentialsPath, encoding: .utf8))
        saved["mobilePolicy"] = .object(["pin_length": .int(8)])
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: home.credentialsPath))
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: Data(JSONWriter.string(saved).utf8))
        try handle.close()

        _ = try Self.run(home, ["lock"])
        let unlocked = try Self.run(home, ["unlock"], input: "six-ch\n")
        #expect(unlocked.exitCode == 0, "\(unlocked)")
        #expect(unlocked.standardOutput.contains("at least 8 characters and yours has 6: run forceterm passcode"), "\(unlocked)")
        let longer = try Self.run(home, ["passcode"], input: "six-ch\neight-ch\n")
        #expect(longer.exitCode == 0, "\(longer)")
        _ = try Self.run(home, ["lock"])
        let again = try Self.run(home, ["unlock"], input: "eight-ch\n")
        #expect(again.exitCode == 0 && !again.standardOutput.contains("at least"), "\(again)")
        _ = try Self.run(home, ["lock"])
    }
}
