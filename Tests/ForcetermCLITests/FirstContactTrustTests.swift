import ForceJSON
import Foundation
import LocalOrgProcess
import Testing

/// `forceterm login` against a localorg whose CA the laptop has never seen, as a trainee in a
/// training room meets it: the fingerprint question (answered in a real terminal, or ahead with
/// `--trust`), the CA remembered for that server, and a server whose CA changed refused.
@Suite("forceterm login: trusting a server's CA on first contact", .serialized)
struct FirstContactTrustTests {
    typealias Home = SignInCommandTests.Home

    func login(_ url: String, _ home: Home, _ extra: [String]) throws -> CommandOutput {
        try ChildProcess.run(
            Forceterm.executable, ["login", "--username", "demo@localorg.test", "--password-stdin", "--login-url", url] + extra,
            environment: home.environment, input: "localorg-demo\n")
    }

    func trustedFile(_ home: Home, port: Int) -> String { home.dataHome + "/forceterm/trusted-servers/127.0.0.1_\(port).pem" }

    @Test("--trust with the fingerprint localorg printed signs in, remembers the CA, and later syncs use it")
    func trustAheadThenSync() throws {
        let server = try LocalOrgProcess()
        let home = try Home()
        defer {
            server.remove()
            home.remove()
        }
        let fingerprint = try #require(server.caFingerprint)
        // Pasted as openssl prints it, lowercase: the same fingerprint.
        let output = try login(server.url, home, ["--trust", "sha256 Fingerprint=" + fingerprint.lowercased()])
        #expect(output.exitCode == 0, "\(output)")
        let remembered = trustedFile(home, port: server.port)
        #expect(try String(contentsOfFile: remembered, encoding: .utf8) == (try String(contentsOfFile: server.caFile, encoding: .utf8)))
        let credentials = try JSONParser.parse(try Data(contentsOf: URL(fileURLWithPath: home.credentialsPath)))
        #expect(credentials["caFile"]?.stringValue == remembered)
        let sync = try Forceterm.run(["sync"], environment: home.environment)
        #expect(sync.exitCode == 0, "\(sync)")
        // Signing in again needs no --trust: the CA is remembered for this server.
        #expect(try login(server.url, home, []).exitCode == 0)
    }

    @Test("The command line localorg serve prints for a room works as printed")
    func printedCommandLineWorks() throws {
        let server = try LocalOrgProcess(arguments: ["--listen", "127.0.0.2"])
        let home = try Home()
        defer {
            server.remove()
            home.remove()
        }
        let printed = try String(contentsOfFile: server.dataDirectory + "/serve-output.txt", encoding: .utf8)
        let line = try #require(printed.split(separator: "\n").first { $0.hasPrefix("Sign in with:") })
        let words = line.split(separator: " ").map(String.init)
        let arguments = Array(try #require(words.firstIndex(of: "login")).map { words[$0...] } ?? [])
        #expect(arguments == ["login", "--login-url", "https://127.0.0.2:\(server.port)", "--trust", "SHA256:" + (try #require(server.caFingerprint))])
        let output = try ChildProcess.run(
            Forceterm.executable, arguments + ["--username", "demo@localorg.test", "--password-stdin"],
            environment: home.environment, input: "localorg-demo\n")
        #expect(output.exitCode == 0, "\(output)")
    }

    @Test("--trust with another fingerprint is refused, naming both; nothing is saved")
    func wrongFingerprintRefused() throws {
        let server = try LocalOrgProcess()
        let home = try Home()
        defer {
            server.remove()
            home.remove()
        }
        let fingerprint = try #require(server.caFingerprint)
        let wrong = String(repeating: "AB:", count: 31) + "AB"
        let output = try login(server.url, home, ["--trust", wrong])
        #expect(output.exitCode == 1, "\(output)")
        #expect(output.standardError.contains(fingerprint) && output.standardError.contains(wrong), "\(output)")
        #expect(!FileManager.default.fileExists(atPath: home.credentialsPath))
        #expect(!FileManager.default.fileExists(atPath: trustedFile(home, port: server.port)))
        let malformed = try login(server.url, home, ["--trust", "SHA256:AB:CD"])
        #expect(malformed.exitCode == 2 && malformed.standardError.contains("is not a SHA-256 fingerprint"), "\(malformed)")
    }

    @Test("A server whose CA changed (localorg set up again on the same port) is refused loudly, at sign-in and at sync")
    func changedAuthorityRefused() throws {
        let first = try LocalOrgProcess()
        let home = try Home()
        defer { home.remove() }
        #expect(try login(first.url, home, ["--trust", try #require(first.caFingerprint)]).exitCode == 0)
        let port = first.port
        first.remove()
        // A new data directory: a new CA, on the port the laptop remembers.
        let second = try LocalOrgProcess(arguments: ["--port", "\(port)", "--listen", "127.0.0.1"])
        defer { second.remove() }
        #expect(second.port == port)
        let newFingerprint = try #require(second.caFingerprint)
        let sync = try Forceterm.run(["sync"], environment: home.environment)
        #expect(sync.exitCode != 0, "\(sync)")
        #expect(sync.standardError.contains("forceterm login shows its new fingerprint"), "\(sync)")
        let refused = try login(second.url, home, [])
        #expect(refused.exitCode == 1, "\(refused)")
        #expect(refused.standardError.contains("WARNING: the certificate authority of 127.0.0.1:\(port) has CHANGED"), "\(refused)")
        #expect(refused.standardError.contains("presented now:  SHA256 \(newFingerprint)"), "\(refused)")
        // The old CA stays remembered until the user trusts the new one.
        let remembered = try String(contentsOfFile: trustedFile(home, port: port), encoding: .utf8)
        #expect(remembered != (try String(contentsOfFile: second.caFile, encoding: .utf8)))
        let accepted = try login(second.url, home, ["--trust", "SHA256:" + newFingerprint])
        #expect(accepted.exitCode == 0, "\(accepted)")
        #expect(try String(contentsOfFile: trustedFile(home, port: port), encoding: .utf8) == (try String(contentsOfFile: second.caFile, encoding: .utf8)))
    }

    @Test("In a terminal the question shows the fingerprint; yes trusts it and the device flow goes on with a link that fills the code in")
    func questionAnsweredInTerminal() throws {
        let server = try LocalOrgProcess()
        let home = try Home()
        defer {
            server.remove()
            home.remove()
        }
        let fingerprint = try #require(server.caFingerprint)
        let environment = home.environment.compactMapValues { $0 }
        let session = try TmuxSession(command: [Forceterm.executable.path, "login", "--login-url", server.url], width: 140, environment: environment)
        defer { session.kill() }
        let asked = try session.waitFor("remember it (yes/no)?", timeout: 60)
        #expect(asked.contains("SHA256 fingerprint: \(fingerprint)"), "\(asked)")
        try session.send("yes", literal: true)
        try session.send("Enter")
        let screen = try session.waitFor("Waiting for approval", timeout: 60)
        let code = try #require(screen.components(separatedBy: "enter the code: ").last?.prefix { $0.isLetter || $0.isNumber })
        #expect(screen.contains("\(server.url)/setup/connect?user_code=\(code)"), "\(screen)")
        try server.command(["approve", String(code)])
        // Then the passcode for the store, as at any terminal.
        try session.waitFor("New passcode", timeout: 60)
        try session.send("trust-pass-1", literal: true)
        try session.send("Enter")
        try session.waitFor("The same passcode again:")
        try session.send("trust-pass-1", literal: true)
        try session.send("Enter")
        try session.waitFor("Signed in as demo@localorg.test", timeout: 60)
        #expect(FileManager.default.fileExists(atPath: trustedFile(home, port: server.port)))
    }

    @Test("Answering no trusts nothing and saves nothing")
    func questionAnsweredNo() throws {
        let server = try LocalOrgProcess()
        let home = try Home()
        defer {
            server.remove()
            home.remove()
        }
        let environment = home.environment.compactMapValues { $0 }
        let session = try TmuxSession(command: [Forceterm.executable.path, "login", "--login-url", server.url], width: 140, environment: environment)
        defer { session.kill() }
        try session.waitFor("remember it (yes/no)?", timeout: 60)
        try session.send("no", literal: true)
        try session.send("Enter")
        try session.waitFor("not trusted: nothing was sent", timeout: 30)
        #expect(!FileManager.default.fileExists(atPath: trustedFile(home, port: server.port)))
        #expect(!FileManager.default.fileExists(atPath: home.credentialsPath))
    }
}
