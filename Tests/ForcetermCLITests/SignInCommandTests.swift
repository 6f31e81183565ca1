import ForceJSON
import Foundation
import LocalOrgProcess
import SmartStore
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `forceterm login` and `logout` run as built binaries against a real localorg over HTTPS.
@Suite("forceterm login and logout", .serialized)
struct SignInCommandTests {
    /// A private XDG data home per test, so credentials never touch the real home directory.
    struct Home {
        let root: String
        var dataHome: String { root + "/data" }
        var credentialsPath: String { dataHome + "/forceterm/credentials.json" }
        var environment: [String: String?] { ["XDG_DATA_HOME": dataHome, "XDG_CONFIG_HOME": root + "/config"] }

        init() throws {
            root = NSTemporaryDirectory() + "forceterm-signin-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        }

        func remove() { try? FileManager.default.removeItem(atPath: root) }
    }

    static func mode(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? -1
    }

    func passwordLogin(_ server: LocalOrgProcess, _ home: Home, password: String = "localorg-demo", extra: [String] = []) throws -> CommandOutput {
        try ChildProcess.run(
            Forceterm.executable,
            [
                "login", "--username", "demo@localorg.test", "--password-stdin",
                "--login-url", server.url, "--cacert", server.caFile,
            ] + extra,
            environment: home.environment, input: password + "\n")
    }

    @Test("Password login saves private credentials; no token reaches the output")
    func passwordLoginSavesCredentials() throws {
        let server = try LocalOrgProcess()
        let home = try Home()
        defer {
            server.remove()
            home.remove()
        }
        let output = try passwordLogin(server, home, extra: ["--verbose"])
        #expect(output.exitCode == 0, "\(output)")
        #expect(output.standardOutput.contains("Signed in as demo@localorg.test"), "\(output)")
        #expect(try Self.mode(home.credentialsPath) == 0o600)
        #expect(try Self.mode(home.dataHome + "/forceterm") == 0o700)
        let saved = try String(contentsOfFile: home.credentialsPath, encoding: .utf8)
        for key in ["\"accessToken\"", "\"refreshToken\""] {
            let range = try #require(saved.range(of: key))
            let token = saved[range.upperBound...].drop { $0 == ":" || $0 == " " || $0 == "\"" }.prefix { $0 != "\"" }
            #expect(token.count > 20)
            #expect(!output.standardOutput.contains(token) && !output.standardError.contains(token))
        }
        #expect(!output.standardOutput.contains("localorg-demo") && !output.standardError.contains("localorg-demo"))
    }

    @Test("A password typed at a terminal gets a prompt and never shows on the screen; so does the passcode chosen after it")
    func typedPasswordIsNotEchoed() throws {
        let server = try LocalOrgProcess()
        let home = try Home()
        defer {
            server.remove()
            home.remove()
        }
        let environment = home.environment.compactMapValues { $0 }
        let session = try TmuxSession(
            command: [
                Forceterm.executable.path, "login", "--username", "demo@localorg.test", "--password-stdin",
                "--login-url", server.url, "--cacert", server.caFile,
            ],
            width: 120, height: 20, environment: environment)
        defer { session.kill() }
        try session.waitFor("Password for demo@localorg.test:")
        try session.send("localorg-demo", literal: true)
        try session.send("Enter")
        // A terminal: the passcode that encrypts the store is chosen now, typed twice, never shown.
        try session.waitFor("Choose a passcode", timeout: 60)
        try session.waitFor("New passcode (at least 4 characters):")
        try session.send("tmux-pass-9", literal: true)
        try session.send("Enter")
        try session.waitFor("The same passcode again:")
        try session.send("tmux-pass-9", literal: true)
        try session.send("Enter")
        let screen = try session.waitFor("Signed in as demo@localorg.test", timeout: 60)
        #expect(!screen.contains("localorg-demo") && !screen.contains("tmux-pass-9"), "\(screen)")
        #expect(screen.contains("Passcode set"), "\(screen)")
        #expect(FileManager.default.fileExists(atPath: home.credentialsPath))
        #expect(try String(contentsOfFile: home.credentialsPath, encoding: .utf8).contains("forceterm-sealed:1:"), "the session is sealed")
        _ = try ChildProcess.run(Forceterm.executable, ["lock"], environment: home.environment)
    }

    @Test("A wrong password fails with exit 1 and a one-line reason; nothing is saved")
    func wrongPassword() throws {
        let server = try LocalOrgProcess()
        let home = try Home()
        defer {
            server.remove()
            home.remove()
        }
        let output = try passwordLogin(server, home, password: "not-the-password")
        #expect(output.exitCode == 1, "\(output)")
        // A blocked username-password flow answers the same: both are said, and the way that works.
        #expect(output.standardError.contains("sign-in refused (invalid_grant: authentication failure): the username or password is wrong"), "\(output)")
        #expect(output.standardError.contains("orgs made since Summer '23 block it by default") && output.standardError.contains("device flow"), "\(output)")
        #expect(output.standardError.split(separator: "\n").count == 1, "one line: \(output)")
        #expect(!output.standardError.contains("not-the-password"))
        #expect(!FileManager.default.fileExists(atPath: home.credentialsPath))
    }

    @Test("With the username-password flow blocked (answered as a wrong password is), the refusal names that cause too")
    func blockedPasswordFlow() throws {
        let server = try LocalOrgProcess(arguments: ["--block-password-flow"])
        let home = try Home()
        defer {
            server.remove()
            home.remove()
        }
        let output = try passwordLogin(server, home)
        #expect(output.exitCode == 1, "\(output)")
        #expect(output.standardError.contains("does not allow the username-password flow for this app"), "\(output)")
        #expect(!FileManager.default.fileExists(atPath: home.credentialsPath))
    }

    @Test("Usage errors exit with 2")
    func usageErrors() throws {
        let home = try Home()
        defer { home.remove() }
        let noStdin = try Forceterm.run(["login", "--username", "a@b.c"], environment: home.environment)
        #expect(noStdin.exitCode == 2, "\(noStdin)")
        #expect(noStdin.standardError.contains("--password-stdin"))
        let plainHTTP = try Forceterm.run(["login", "--login-url", "http://example.com"], environment: home.environment)
        #expect(plainHTTP.exitCode == 2, "\(plainHTTP)")
        #expect(plainHTTP.standardError.contains("https"))
    }

    @Test("--insecure signs in without checking the certificate, and warns that anyone on the network can read the session")
    func insecureLogin() throws {
        let server = try LocalOrgProcess()
        let home = try Home()
        defer {
            server.remove()
            home.remove()
        }
        let output = try ChildProcess.run(
            Forceterm.executable,
            [
                "login", "--insecure", "--username", "demo@localorg.test", "--password-stdin",
                "--login-url", server.url,
            ],
            environment: home.environment, input: "localorg-demo\n")
        #expect(output.exitCode == 0, "\(output)")
        #expect(output.standardError.contains("WARNING: --insecure turns off certificate checks"), "\(output)")
        let device = try Forceterm.run(["login", "--device", "--username", "a@b.c", "--password-stdin"], environment: home.environment)
        #expect(device.exitCode == 2 && device.standardError.contains("--device and --username are two different ways to sign in"), "\(device)")
    }

    @Test("Without --cacert and no terminal to ask on, localorg's CA is shown with its fingerprint and refused; nothing is saved")
    func untrustedCertificate() throws {
        let server = try LocalOrgProcess()
        let home = try Home()
        defer {
            server.remove()
            home.remove()
        }
        let output = try ChildProcess.run(
            Forceterm.executable, ["login", "--username", "demo@localorg.test", "--password-stdin", "--login-url", server.url],
            environment: home.environment, input: "localorg-demo\n")
        let fingerprint = try #require(server.caFingerprint)
        #expect(output.exitCode == 1, "\(output)")
        #expect(output.standardError.contains("SHA256 fingerprint: \(fingerprint)"), "\(output)")
        #expect(output.standardError.contains("--trust SHA256:\(fingerprint)") && output.standardError.contains("--cacert"), "\(output)")
        #expect(!FileManager.default.fileExists(atPath: home.credentialsPath))
        #expect(!FileManager.default.fileExists(atPath: home.dataHome + "/forceterm/trusted-servers"))
    }

    @Test(
        "Device flow (the default, or --device): the code printed is approved with localorg approve, and the login completes",
        arguments: [[], ["--device"]])
    func deviceFlowLogin(flag: [String]) throws {
        let server = try LocalOrgProcess()
        let home = try Home()
        defer {
            server.remove()
            home.remove()
        }
        let login = try BackgroundCommand(
            Forceterm.executable, ["login"] + flag + ["--login-url", server.url, "--cacert", server.caFile],
            environment: home.environment)
        let printed = try login.waitForOutput(containing: "enter the code: ", timeout: 60)
        let code = try #require(printed.components(separatedBy: "enter the code: ").last?.prefix { $0.isLetter || $0.isNumber })
        #expect(printed.contains("/setup/connect"))
        try server.command(["approve", String(code), "--as", "trainer@localorg.test"])
        let output = login.wait(timeout: 60)
        #expect(output.exitCode == 0, "\(output)")
        #expect(output.standardOutput.contains("Signed in as trainer@localorg.test"), "\(output)")
        #expect(FileManager.default.fileExists(atPath: home.credentialsPath))
    }

    @Test("Ctrl-C during the device flow cancels cleanly: exit 1, nothing saved")
    func deviceFlowInterrupted() throws {
        let server = try LocalOrgProcess()
        let home = try Home()
        defer {
            server.remove()
            home.remove()
        }
        let login = try BackgroundCommand(Forceterm.executable, ["login", "--login-url", server.url, "--cacert", server.caFile], environment: home.environment)
        _ = try login.waitForOutput(containing: "Waiting for approval", timeout: 60)
        login.interrupt()
        let output = login.wait(timeout: 30)
        #expect(output.exitCode == 1, "\(output)")
        #expect(output.standardError.contains("sign-in cancelled"), "\(output)")
        #expect(!FileManager.default.fileExists(atPath: home.credentialsPath))
    }

    @Test("A credentials file others can read is refused")
    func readableCredentialsRefused() throws {
        let server = try LocalOrgProcess()
        let home = try Home()
        defer {
            server.remove()
            home.remove()
        }
        #expect(try passwordLogin(server, home).exitCode == 0)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: home.credentialsPath)
        let output = try Forceterm.run(["logout"], environment: home.environment)
        #expect(output.exitCode == 1, "\(output)")
        #expect(output.standardError.contains("other users can read it"), "\(output)")
        #expect(output.standardError.contains("chmod 600"), "\(output)")
        #expect(FileManager.default.fileExists(atPath: home.credentialsPath))
    }

    /// Where the signed-in user's own store is (`users/<org>/<user>/store.sqlite`), made or not.
    static func userStorePath(_ home: Home) throws -> String {
        let saved = try String(contentsOfFile: home.credentialsPath, encoding: .utf8)
        func field(_ name: String) throws -> String {
            let range = try #require(saved.range(of: "\"\(name)\""))
            return String(saved[range.upperBound...].drop { $0 == ":" || $0 == " " || $0 == "\"" }.prefix { $0 != "\"" })
        }
        return "\(home.dataHome)/forceterm/users/\(try field("organizationId"))/\(try field("userId"))/store.sqlite"
    }

    /// The signed-in user's own store, made with `contacts` (unencrypted, as an older forceterm made it).
    func signedInUserStore(_ home: Home, contacts: [JSONObject]) throws -> String {
        let storePath = try Self.userStorePath(home)
        try FileManager.default.createDirectory(atPath: (storePath as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let fixture = try StoreFixture()
        try FileManager.default.copyItem(atPath: fixture.path, toPath: storePath)
        _ = try SmartStore.asForcetermOpensIt(storePath).create(contacts, in: "contacts")
        return storePath
    }

    @Test("Logout refuses while the user's store has local changes, then --force signs out and keeps the store")
    func logoutGuardsLocalChanges() throws {
        let server = try LocalOrgProcess()
        let home = try Home()
        defer {
            server.remove()
            home.remove()
        }
        #expect(try passwordLogin(server, home).exitCode == 0)
        // The signed-in user's own store, with two locally changed contacts and one clean account.
        let storePath = try signedInUserStore(
            home,
            contacts: [
                ["LastName": "Local", "__local__": true], ["LastName": "Also", "__local__": true],
                ["LastName": "Clean", "__local__": false],
            ])
        _ = try SmartStore.asForcetermOpensIt(storePath).create([["Name": "Clean account", "__local__": false]], in: "accounts")

        let refused = try Forceterm.run(["logout"], environment: home.environment)
        #expect(refused.exitCode == 1, "\(refused)")
        #expect(refused.standardError.contains("2 records with local changes (contacts: 2)"), "\(refused)")
        #expect(refused.standardError.contains("--force"), "\(refused)")
        #expect(FileManager.default.fileExists(atPath: home.credentialsPath))

        let forced = try Forceterm.run(["logout", "--force"], environment: home.environment)
        #expect(forced.exitCode == 0, "\(forced)")
        #expect(!FileManager.default.fileExists(atPath: home.credentialsPath))
        #expect(FileManager.default.fileExists(atPath: storePath))
        #expect(!forced.standardError.contains("could not revoke"), "\(forced)")
        // Signed out, status names the store that stays instead of saying there is none.
        let status = try Forceterm.run(["status"], environment: home.environment)
        #expect(status.exitCode != 0)
        #expect(status.standardError.contains("nobody is signed in") && status.standardError.contains(storePath), "\(status)")
        #expect(try Forceterm.run(["status", "--store", storePath], environment: home.environment).standardOutput.contains("contacts: 2 pending"))
    }

    @Test("Signing in as another user while the first has unsynced changes is refused with what to do; --force switches and says where they stay")
    func switchingUsersGuardsLocalChanges() throws {
        let server = try LocalOrgProcess()
        let home = try Home()
        defer {
            server.remove()
            home.remove()
        }
        #expect(try passwordLogin(server, home).exitCode == 0)
        let storePath = try signedInUserStore(home, contacts: [["LastName": "Unsent", "__local__": true]])

        func trainerLogin(_ extra: [String]) throws -> CommandOutput {
            try ChildProcess.run(
                Forceterm.executable,
                [
                    "login", "--username", "trainer@localorg.test", "--password-stdin",
                    "--login-url", server.url, "--cacert", server.caFile,
                ] + extra,
                environment: home.environment, input: "localorg-trainer\n")
        }
        let refused = try trainerLogin([])
        #expect(refused.exitCode == 1, "\(refused)")
        #expect(refused.standardError.contains("demo@localorg.test is signed in with 1 record with local changes (contacts: 1)"), "\(refused)")
        #expect(refused.standardError.contains("login --force"))
        #expect(try String(contentsOfFile: home.credentialsPath, encoding: .utf8).contains("demo@localorg.test"), "still the first user")

        let switched = try trainerLogin(["--force"])
        #expect(switched.exitCode == 0, "\(switched)")
        #expect(switched.standardOutput.contains("Signed in as trainer@localorg.test"))
        #expect(switched.standardOutput.contains("demo@localorg.test's 1 record with local changes (contacts: 1) stay unsynced in \(storePath)"), "\(switched)")
        // The same user signing in again is no switch.
        #expect(try trainerLogin([]).exitCode == 0)
    }

    @Test("Logout revokes the session: the saved refresh token no longer works")
    func logoutRevokes() throws {
        let server = try LocalOrgProcess()
        let home = try Home()
        defer {
            server.remove()
            home.remove()
        }
        #expect(try passwordLogin(server, home).exitCode == 0)
        let saved = try String(contentsOfFile: home.credentialsPath, encoding: .utf8)
        let range = try #require(saved.range(of: "\"refreshToken\""))
        let refreshToken = String(saved[range.upperBound...].drop { $0 == ":" || $0 == " " || $0 == "\"" }.prefix { $0 != "\"" })
        let output = try Forceterm.run(["logout"], environment: home.environment)
        #expect(output.exitCode == 0, "\(output)")
        #expect(output.standardOutput.contains("Signed out demo@localorg.test"))
        let refresh = try ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"),
            [
                "curl", "-s", "--cacert", server.caFile, "-d", "grant_type=refresh_token", "-d", "client_id=forceterm",
                "--data-urlencode", "refresh_token=\(refreshToken)", server.url + "/services/oauth2/token",
            ])
        #expect(refresh.standardOutput.contains("invalid_grant"), "\(refresh)")
        let again = try Forceterm.run(["logout"], environment: home.environment)
        #expect(again.exitCode == 0)
        #expect(again.standardError.contains("Not signed in"))
    }
}
