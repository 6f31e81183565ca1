import Foundation
import LocalOrgProcess
import Testing

/// Rough edges a new user met, each through the built binary: the message says what is
/// wrong and what to do.
@Suite("Rough edges: clear messages instead of confusing ones", .serialized)
struct RoughEdgeTests {
    @Test("TERM=dumb (or no TERM) is refused with what to set, instead of a screen drawn as one long line")
    func dumbTerminal() throws {
        let directory = NSTemporaryDirectory() + "forceterm-dumb-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let session = try TmuxSession(
            command: ["sh", "-c", "\(Forceterm.executable.path) --store \(directory)/store.sqlite; echo exit=$?"],
            width: 250, environment: ["TERM": "dumb"])
        defer { session.kill() }
        let screen = try session.waitFor("exit=")
        #expect(screen.contains("TERM=dumb cannot move the cursor"), "\(screen)")
        #expect(screen.contains("set TERM to your terminal"))
        #expect(!screen.contains("exit=0"))
    }

    @Test("A config file that is not UTF-8 says so and where, not that its permissions are wrong")
    func configNotUTF8() throws {
        let directory = NSTemporaryDirectory() + "forceterm-utf8-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Data(#"{"syncs": ["#.utf8 + [0xC3, 0x28] + Array("]}".utf8)).write(to: URL(fileURLWithPath: directory + "/usersyncs.json"))
        let output = try Forceterm.run(["sync", "--config", directory, "--store", directory + "/store.sqlite"])
        #expect(output.exitCode != 0)
        #expect(output.standardError.contains("usersyncs.json is not UTF-8 text (byte 11 is not); save it as UTF-8"), "\(output)")
        #expect(!output.standardError.contains("permissions"))
    }

    @Test("A usersyncs.json key misspelled in case (createFieldList) is noted on stderr before anything else")
    func misspelledSyncKey() throws {
        let directory = NSTemporaryDirectory() + "forceterm-keys-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let syncs = try String(contentsOf: Forceterm.packageRoot.appendingPathComponent("config/usersyncs.json"), encoding: .utf8)
        #expect(syncs.contains(#""createFieldlist""#))
        try syncs.replacingOccurrences(of: #""createFieldlist""#, with: #""createFieldList""#)
            .write(toFile: directory + "/usersyncs.json", atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(
            atPath: Forceterm.packageRoot.appendingPathComponent("config/userstore.json").path,
            toPath: directory + "/userstore.json")
        let output = try Forceterm.run(
            ["sync", "--config", directory, "--store", directory + "/store.sqlite"],
            environment: ["XDG_DATA_HOME": directory + "/data", "XDG_CONFIG_HOME": directory + "/config"])
        #expect(
            output.standardError.contains(#"forceterm: note: sync "syncUpContacts": "target.createFieldList" is not a key the SDK reads, so it is ignored; did you mean "createFieldlist"?"#),
            "\(output)")
    }

    @Test("An http:// login URL pointed at localorg's HTTPS port says to use https://")
    func plainHTTPToATLSPort() throws {
        let server = try LocalOrgProcess()
        defer { server.remove() }
        let home = NSTemporaryDirectory() + "forceterm-http-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: home) }
        let plain = server.url.replacingOccurrences(of: "https://", with: "http://")
        let output = try ChildProcess.run(
            Forceterm.executable, ["login", "--username", "demo@localorg.test", "--password-stdin", "--login-url", plain],
            environment: ["XDG_DATA_HOME": home + "/data", "XDG_CONFIG_HOME": home + "/config"],
            input: "localorg-demo\n")
        #expect(output.exitCode != 0)
        #expect(output.standardError.contains("use https:// in the URL"), "\(output)")
    }
}
