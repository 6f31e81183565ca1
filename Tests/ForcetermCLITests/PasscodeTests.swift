import Foundation
import ForceJSON
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
        let second = try Self.list(fixture, passcode: "wrong")
        #expect(second.standardError.contains("(2 wrong in a row)"), "\(second)")
        let right = try Self.list(fixture, passcode: "south-77")
        #expect(right.exitCode == 0 && right.standardOutput.contains("Smith"), "\(right)")
        let file = try JSONParser.parseObject(String(contentsOfFile: fixture.path + ".passcode-key", encoding: .utf8))
        #expect(file["failedAttempts"] == .int(0), "a right passcode starts the count again")
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
        let short = try ChildProcess.run(Forceterm.executable, ["passcode", "--store", fixture.path],
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
        try (String(repeating: "ab", count: 32) + "\n").write(toFile: fixture.path + ".key", atomically: true, encoding: .utf8)
        let refused = try ChildProcess.run(Forceterm.executable, ["passcode", "--store", fixture.path], input: "whatever\n")
        #expect(refused.exitCode == 1 && refused.standardError.contains("takes no passcode"), "\(refused)")
    }
}
