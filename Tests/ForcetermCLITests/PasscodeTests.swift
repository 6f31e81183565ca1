import ForceJSON
import Foundation
import SmartStore
import Testing

/// `forceterm passcode`, `unlock` and `lock` on a real store, with the kernel keyring of this login
/// (each test's store has its own entry there).
@Suite("A passcode encrypts the store; the session keyring keeps it unlocked")
struct PasscodeTests {
    /// Whether the file starts with SQLite's plain header.
    static func isPlain(_ path: String) throws -> Bool {
        let head = try FileHandle(forReadingFrom: URL(fileURLWithPath: path)).read(upToCount: 16) ?? Data()
        return head == Data("SQLite format 3\0".utf8)
    }

    static func fixture() throws -> StoreFixture {
        let fixture = try StoreFixture()
        try fixture.add(contacts: SampleRecords.mixedScriptContacts)
        return fixture
    }

    static func list(_ fixture: StoreFixture, passcode: String? = nil) throws -> CommandOutput {
        try Forceterm.run(["list", "contacts", "--store", fixture.path], environment: ["FORCETERM_PASSCODE": passcode])
    }

    @Test func settingAPasscodeEncryptsTheStoreAndLockAsksForItAgain() throws {
        let fixture = try Self.fixture()
        #expect(try Self.isPlain(fixture.path))
        let set = try ChildProcess.run(Forceterm.executable, ["passcode", "--store", fixture.path], input: "north-42\n")
        #expect(set.exitCode == 0 && set.standardOutput.contains("now encrypted"), "\(set)")
        #expect(try !Self.isPlain(fixture.path))
        #expect(try !Data(contentsOf: URL(fileURLWithPath: fixture.path)).contains(Data("Müller".utf8)))

        // Unlocked by setting it: another process of this login reads the store without asking.
        let listed = try Self.list(fixture)
        #expect(listed.exitCode == 0 && listed.standardOutput.contains("Müller"), "\(listed)")

        #expect(try Forceterm.run(["lock", "--store", fixture.path]).standardOutput.contains("Locked"))
        let locked = try Self.list(fixture)
        #expect(locked.exitCode == 1 && locked.standardError.contains("is locked: run forceterm unlock"), "\(locked)")

        // Unlocked in one process, used by the next.
        let unlocked = try ChildProcess.run(Forceterm.executable, ["unlock", "--store", fixture.path], input: "north-42\n")
        #expect(unlocked.exitCode == 0 && unlocked.standardOutput.contains("Unlocked for 15 minutes"), "\(unlocked)")
        #expect(try Self.list(fixture).standardOutput.contains("山田"))
        _ = try Forceterm.run(["lock", "--store", fixture.path])
        #expect(try Forceterm.run(["lock", "--store", fixture.path]).standardOutput.contains("nothing to lock"))
    }

    @Test func wrongPasscodesAreCountedAndSayWhatAForgottenOneMeans() throws {
        let fixture = try Self.fixture()
        _ = try ChildProcess.run(Forceterm.executable, ["passcode", "--store", fixture.path], input: "south-77\n")
        _ = try Forceterm.run(["lock", "--store", fixture.path])
        let first = try Self.list(fixture, passcode: "wrong")
        #expect(first.exitCode == 1 && first.standardError.contains("wrong passcode") && first.standardError.contains("forceterm passcode --forgotten"), "\(first)")
        #expect(first.standardError.contains("after 2 more wrong, each try waits first"), "what happens next: \(first)")
        let second = try Self.list(fixture, passcode: "wrong")
        #expect(second.standardError.contains("(2 wrong in a row)"), "\(second)")
        let third = try Self.list(fixture, passcode: "wrong")
        #expect(third.standardError.contains("(3 wrong in a row)") && third.standardError.contains("the next try is taken in 5 s"), "\(third)")
        // Even the right passcode waits its turn, unchecked, and that try does not count.
        let tooSoon = try Self.list(fixture, passcode: "south-77")
        #expect(tooSoon.exitCode == 1 && tooSoon.standardError.contains("too many wrong passcodes") && tooSoon.standardError.contains("(3 in a row)"), "\(tooSoon)")
        Thread.sleep(forTimeInterval: 5.2)
        let right = try Self.list(fixture, passcode: "south-77")
        #expect(right.exitCode == 0 && right.standardOutput.contains("Smith"), "\(right)")
        let file = try JSONParser.parseObject(String(contentsOfFile: fixture.path + ".passcode-key", encoding: .utf8))
        #expect(file["failedAttempts"] == .int(0), "a right passcode starts the count again")
        _ = try Forceterm.run(["lock", "--store", fixture.path])
    }

    @Test func queryAndSmartstoreToolTakeTheKeyAsEveryCommandDoes() throws {
        let fixture = try Self.fixture()
        _ = try ChildProcess.run(Forceterm.executable, ["passcode", "--store", fixture.path], input: "query-pass-1\n")
        _ = try Forceterm.run(["lock", "--store", fixture.path])
        let smartSql = "SELECT {contacts:LastName} FROM {contacts} ORDER BY {contacts:LastName}"
        let locked = try Forceterm.run(["query", smartSql, "--store", fixture.path])
        #expect(locked.exitCode == 1 && locked.standardError.contains("is locked: run forceterm unlock"), "\(locked)")
        let given = try Forceterm.run(["query", smartSql, "--store", fixture.path], environment: ["FORCETERM_PASSCODE": "query-pass-1"])
        #expect(given.exitCode == 0 && given.standardOutput.contains("Müller") && given.standardOutput.contains("山田"), "\(given)")

        // smartstore-tool, unlocked in this login by the query above: no key file named, none asked.
        let tool = Forceterm.executable.deletingLastPathComponent().appendingPathComponent("smartstore-tool")
        let config = Forceterm.packageRoot.appendingPathComponent("config").path
        let seeded = try ChildProcess.run(tool, ["seed", "--store", fixture.path, "--config", config, "--contacts", "20", "--accounts", "2"])
        #expect(seeded.exitCode == 0, "\(seeded)")
        #expect(try !Self.isPlain(fixture.path) && !FileManager.default.fileExists(atPath: fixture.path + ".key"))
        let count = try Forceterm.run(["query", "SELECT count(*) FROM {contacts}", "--store", fixture.path, "--json"])
        #expect(count.standardOutput.contains("24"), "the 4 contacts and the 20 seeded: \(count)")
        _ = try Forceterm.run(["lock", "--store", fixture.path])
        let refused = try ChildProcess.run(tool, ["seed", "--store", fixture.path, "--config", config, "--contacts", "1"])
        #expect(refused.exitCode != 0 && refused.standardError.contains("is locked"), "\(refused)")
        let withPasscode = try ChildProcess.run(
            tool, ["seed", "--store", fixture.path, "--config", config, "--contacts", "1"],
            environment: ["FORCETERM_PASSCODE": "query-pass-1"])
        #expect(withPasscode.exitCode == 0, "\(withPasscode)")
        _ = try Forceterm.run(["lock", "--store", fixture.path])
    }

    @Test func changingThePasscodeKeepsTheKeyAndRetiresTheOldOne() throws {
        let fixture = try Self.fixture()
        _ = try ChildProcess.run(Forceterm.executable, ["passcode", "--store", fixture.path], input: "first-pass\n")
        let before = try Data(contentsOf: URL(fileURLWithPath: fixture.path))
        let changed = try ChildProcess.run(Forceterm.executable, ["passcode", "--store", fixture.path], input: "first-pass\nsecond-pass\n")
        #expect(changed.exitCode == 0 && changed.standardOutput.contains("nothing was re-encrypted"), "\(changed)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: fixture.path)) == before, "the store file is untouched")
        _ = try Forceterm.run(["lock", "--store", fixture.path])
        #expect(try Self.list(fixture, passcode: "first-pass").exitCode == 1)
        #expect(try Self.list(fixture, passcode: "second-pass").exitCode == 0)
        let short = try ChildProcess.run(
            Forceterm.executable, ["passcode", "--store", fixture.path],
            environment: ["FORCETERM_PASSCODE": "second-pass"], input: "abc\n")
        #expect(short.exitCode == 1 && short.standardError.contains("at least 4 characters"), "\(short)")
        _ = try Forceterm.run(["lock", "--store", fixture.path])
    }

    @Test func aPlainStoreNamedWithStoreIsUsedAsItIsAndSaysSo() throws {
        let fixture = try Self.fixture()
        let listed = try Self.list(fixture)
        #expect(listed.exitCode == 0 && listed.standardOutput.contains("Müller"), "\(listed)")
        #expect(listed.standardError.contains("\(fixture.path) is not encrypted"), "\(listed)")
        #expect(try Self.isPlain(fixture.path))
        let set = try ChildProcess.run(Forceterm.executable, ["passcode", "--store", fixture.path], input: "east-5150\n")
        #expect(set.exitCode == 0 && !set.standardError.contains("not encrypted"), "\(set)")
        let encrypted = try Self.list(fixture)
        #expect(encrypted.exitCode == 0 && encrypted.standardOutput.contains("Müller"), "\(encrypted)")
        #expect(!encrypted.standardError.contains("not encrypted"), "\(encrypted)")
        _ = try Forceterm.run(["lock", "--store", fixture.path])
    }

    @Test func theDemosKeyFileTakesNoPasscodeAndUnlockWithoutOneSaysSo() throws {
        let fixture = try Self.fixture()
        let unlock = try Forceterm.run(["unlock", "--store", fixture.path])
        #expect(unlock.exitCode == 1 && unlock.standardError.contains("has no passcode"), "\(unlock)")
        // The demo's store, in the demo's directory, keeps its key file.
        let data = fixture.absentPath("data")
        let demoStore = data + "/forceterm/demo/users/00D/005/store.sqlite"
        try FileManager.default.createDirectory(atPath: (demoStore as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: fixture.path, toPath: demoStore)
        try (String(repeating: "ab", count: 32) + "\n").write(toFile: demoStore + ".key", atomically: true, encoding: .utf8)
        let refused = try ChildProcess.run(Forceterm.executable, ["passcode", "--store", demoStore], environment: ["XDG_DATA_HOME": data], input: "whatever\n")
        #expect(refused.exitCode == 1 && refused.standardError.contains("the demo's store") && refused.standardError.contains("takes no passcode"), "\(refused)")
        #expect(FileManager.default.fileExists(atPath: demoStore + ".key") && !FileManager.default.fileExists(atPath: demoStore + ".passcode-key"))
    }

    @Test func anOlderStoreInTheDataDirectoryIsEncryptedOnItsFirstOpenOnceNothingElseHoldsIt() throws {
        let fixture = try StoreFixture()
        let data = fixture.absentPath("data")
        let store = data + "/forceterm/store.sqlite"  // the signed-out store, as an older forceterm left it
        try FileManager.default.createDirectory(atPath: data + "/forceterm", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: fixture.path, toPath: store)
        _ = try SmartStore(path: store, mustExist: true).create(SampleRecords.mixedScriptContacts, in: "contacts")
        let environment: [String: String?] = ["XDG_DATA_HOME": data]
        do {
            // Held open by another program (an older forceterm's TUI): used as it is, and said.
            let holder = try SmartStore(path: store, mustExist: true)
            let held = try Forceterm.run(["list", "contacts"], environment: environment)
            #expect(held.exitCode == 0 && held.standardOutput.contains("Müller") && held.standardError.contains("is not encrypted yet"), "\(held)")
            #expect(try Self.isPlain(store), "left as it was")
            withExtendedLifetime(holder) {}
        }
        let alone = try Forceterm.run(["list", "contacts"], environment: environment)
        #expect(alone.exitCode == 0 && alone.standardOutput.contains("Müller") && alone.standardError.contains("was not encrypted; it is now"), "\(alone)")
        #expect(try !Self.isPlain(store) && FileManager.default.fileExists(atPath: store + ".key"))
        #expect(try !Data(contentsOf: URL(fileURLWithPath: store)).contains(Data("ana@example.com".utf8)))
    }

    @Test func aPasscodeSealsTheKeyOfAStoreEncryptedWithAKeyFileAndTheKeyFileGoes() throws {
        let fixture = try StoreFixture()
        let store = fixture.absentPath("made-here.sqlite")
        // Made by forceterm without a passcode: encrypted, its key in a file beside it.
        let created = try Forceterm.run(["create", "contacts", "LastName=Okonkwo", "--store", store])
        #expect(created.exitCode == 0, "\(created)")
        #expect(try !Self.isPlain(store) && FileManager.default.fileExists(atPath: store + ".key"))
        let key = try String(contentsOfFile: store + ".key", encoding: .utf8)
        let salt = try FileHandle(forReadingFrom: URL(fileURLWithPath: store)).read(upToCount: 16)

        let set = try ChildProcess.run(Forceterm.executable, ["passcode", "--store", store], input: "sealed-77\n")
        #expect(set.exitCode == 0 && set.standardOutput.contains("keeps its key, now sealed by the passcode"), "\(set)")
        #expect(!FileManager.default.fileExists(atPath: store + ".key") && FileManager.default.fileExists(atPath: store + ".passcode-key"))
        #expect(try FileHandle(forReadingFrom: URL(fileURLWithPath: store)).read(upToCount: 16) == salt, "not re-encrypted")
        #expect(try !String(contentsOfFile: store + ".passcode-key", encoding: .utf8).contains(key.trimmingCharacters(in: .whitespacesAndNewlines)))
        _ = try Forceterm.run(["lock", "--store", store])
        let locked = try Forceterm.run(["list", "contacts", "--store", store])
        #expect(locked.exitCode == 1 && locked.standardError.contains("is locked"), "the key file is no way in now: \(locked)")
        let listed = try Forceterm.run(["list", "contacts", "--store", store], environment: ["FORCETERM_PASSCODE": "sealed-77"])
        #expect(listed.exitCode == 0 && listed.standardOutput.contains("Okonkwo"), "\(listed)")
        _ = try Forceterm.run(["lock", "--store", store])
    }

    @Test func aKeyFileLeftBesideASealedKeyGoesAtTheNextUnlock() throws {
        let fixture = try StoreFixture()
        let store = fixture.absentPath("interrupted.sqlite")
        #expect(try Forceterm.run(["create", "contacts", "LastName=Abara", "--store", store]).exitCode == 0)
        let keyFile = try String(contentsOfFile: store + ".key", encoding: .utf8)
        #expect(try ChildProcess.run(Forceterm.executable, ["passcode", "--store", store], input: "sealed-88\n").exitCode == 0)
        _ = try Forceterm.run(["lock", "--store", store])
        // As a crash between sealing the key and removing the key file leaves it.
        try keyFile.write(toFile: store + ".key", atomically: true, encoding: .utf8)
        let locked = try Forceterm.run(["list", "contacts", "--store", store])
        #expect(locked.exitCode == 1 && locked.standardError.contains("is locked"), "the passcode comes first: \(locked)")
        let unlocked = try Forceterm.run(["list", "contacts", "--store", store], environment: ["FORCETERM_PASSCODE": "sealed-88"])
        #expect(unlocked.exitCode == 0 && unlocked.standardOutput.contains("Abara"), "\(unlocked)")
        #expect(!FileManager.default.fileExists(atPath: store + ".key"))
        _ = try Forceterm.run(["lock", "--store", store])
    }
}
