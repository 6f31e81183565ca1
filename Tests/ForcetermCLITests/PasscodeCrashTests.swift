import ForceJSON
import Foundation
import LocalOrgProcess
import Testing

/// `forceterm passcode` killed after each of its steps (`FORCETERM_TEST_EXIT_AFTER_PASSCODE_STEP`),
/// then used from a new login (the keyring emptied): nothing lost, nothing left readable, and the
/// passcode just chosen is the way in.
@Suite("A first passcode cut short at any step", .serialized)
struct PasscodeCrashTests {
    typealias Home = SignInCommandTests.Home

    static func run(_ home: Home, _ arguments: [String], passcode: String? = nil, input: String? = nil, crashAfter step: String? = nil) throws -> CommandOutput {
        var environment = home.environment
        environment["FORCETERM_PASSCODE"] = passcode
        environment["FORCETERM_TEST_EXIT_AFTER_PASSCODE_STEP"] = step
        return try ChildProcess.run(Forceterm.executable, arguments, environment: environment, input: input)
    }

    /// A signed-in user's store, encrypted with a key file (signed in without a passcode), then a
    /// first passcode cut short: the key file's key is sealed, the key file goes, the session is sealed.
    @Test(arguments: ["sealed", "remembered", "key-file-removed"])
    func sealingAKeyFilesKey(step: String) throws {
        let server = try LocalOrgProcess()
        let home = try Home()
        defer {
            server.remove()
            home.remove()
        }
        _ = try server.command(["seed", "--accounts", "2", "--contacts", "12"])
        _ = try EncryptedSessionTests.signIn(server, home)
        #expect(try Self.run(home, ["sync"]).exitCode == 0)
        let store = try SignInCommandTests.userStorePath(home)
        let listed = try JSONParser.parse(try Self.run(home, ["list", "contacts", "--json"]).standardOutput)
        let names = (listed.arrayValue ?? []).compactMap { $0["LastName"]?.stringValue }
        let emails = (listed.arrayValue ?? []).compactMap { $0["Email"]?.stringValue }
        try #require(names.count == 12 && emails.count >= 6, "\(emails)")
        _ = try Self.run(home, ["update", try #require(listed.arrayValue?.first?["Id"]?.stringValue), "Title=Unsent title"])

        let cut = try Self.run(home, ["passcode"], input: "chosen-99\n", crashAfter: step)
        #expect(cut.exitCode == 86, "\(cut)")
        // The next command in the same login (unlocked by then, or given the passcode) removes a
        // key file left beside the sealed key.
        let next = try Self.run(home, ["status"], passcode: "chosen-99")
        #expect(next.exitCode == 0, "\(next)")
        #expect(!FileManager.default.fileExists(atPath: store + ".key"), "no key file left for as long as the login stays unlocked")
        _ = try Self.run(home, ["lock"])  // a new login: nothing unlocked

        // Whatever the step, the passcode just chosen opens the store, and the old key file does not.
        let locked = try Self.run(home, ["list", "contacts"])
        #expect(locked.exitCode == 1 && locked.standardError.contains("is locked"), "\(locked)")
        let sync = try Self.run(home, ["sync"], passcode: "chosen-99")
        #expect(sync.exitCode == 0, "\(sync)")
        let onServer = try server.command(["query", "SELECT Title FROM Contact WHERE Title = 'Unsent title'"])
        #expect(onServer.contains("Unsent title"), "the change made before reached the org: \(onServer)")
        let after = try JSONParser.parse(try Self.run(home, ["list", "contacts", "--json"]).standardOutput)
        #expect(Set((after.arrayValue ?? []).compactMap { $0["LastName"]?.stringValue }) == Set(names))
        #expect(!FileManager.default.fileExists(atPath: store + ".key"), "the key file is gone once the passcode opened the store")
        #expect(try String(contentsOfFile: home.credentialsPath, encoding: .utf8).contains("forceterm-sealed:1:"), "the session sealed")
        let readable = try EncryptedSessionTests.readable(names + emails + ["Unsent title"], in: store)
        #expect(readable.isEmpty, "\(readable)")
        _ = try Self.run(home, ["lock"])
    }

    /// A store from elsewhere, unencrypted, given a first passcode: the key is sealed, then the
    /// store encrypted in place.
    @Test(arguments: ["sealed", "remembered", "encrypted"])
    func encryptingAnUnencryptedStore(step: String) throws {
        let fixture = try PasscodeTests.fixture()
        let cut = try ChildProcess.run(
            Forceterm.executable, ["passcode", "--store", fixture.path], environment: ["FORCETERM_TEST_EXIT_AFTER_PASSCODE_STEP": step],
            input: "chosen-98\n")
        #expect(cut.exitCode == 86, "\(cut)")
        _ = try Forceterm.run(["lock", "--store", fixture.path])
        let locked = try Forceterm.run(["list", "contacts", "--store", fixture.path])
        #expect(locked.exitCode == 1 && locked.standardError.contains("is locked"), "\(locked)")
        let listed = try Forceterm.run(["list", "contacts", "--store", fixture.path], environment: ["FORCETERM_PASSCODE": "chosen-98"])
        #expect(listed.exitCode == 0, "\(listed)")
        for contact in SampleRecords.mixedScriptContacts {
            #expect(listed.standardOutput.contains(try #require(contact["Email"]?.stringValue ?? contact["LastName"]?.stringValue)), "\(listed)")
        }
        #expect(try !PasscodeTests.isPlain(fixture.path))
        #expect(try EncryptedSessionTests.readable(["Müller", "ana@example.com", "taro@example.jp"], in: fixture.path).isEmpty)
        _ = try Forceterm.run(["lock", "--store", fixture.path])
    }
}
