import ForceJSON
import Foundation
import LocalOrgProcess
import Testing

/// The TUI of a passcode-protected store locks after the idle time config.toml's `lock-after` (or
/// the org's policy) sets: the records leave the screen, the sync started before goes on, and the
/// passcode brings the list back.
@Suite("forceterm's TUI locks its screen", .serialized)
struct TUILockTests {
    @Test func theScreenLocksWhenIdleAndThePasscodeUnlocksItWhileASyncGoesOn() throws {
        // Each request waits 6 s at the server, so the sync started with s outlasts the idle time
        // (its sync downs ask at once: a few round trips in all).
        let user = try SyncCommandTests.SignedIn(serverArguments: ["--latency", "6000"], accounts: 1, contacts: 5)
        defer { user.remove() }
        let synced = try user.forceterm(["sync"])
        #expect(synced.exitCode == 0, "\(synced)")
        let set = try ChildProcess.run(
            Forceterm.executable, ["passcode", "--store", user.storePath], environment: user.environment,
            input: "tui-pass-1\n")
        #expect(set.exitCode == 0 && set.standardOutput.contains("Passcode set"), "\(set)")
        let listed = try JSONParser.parse(try user.forceterm(["list", "contacts", "--json"]).standardOutput)
        let someone = try #require(listed.arrayValue?.compactMap { $0["LastName"]?.stringValue }.max { $0.count < $1.count })
        let config = user.root + "/config/forceterm"
        try FileManager.default.createDirectory(atPath: config, withIntermediateDirectories: true)
        try "[security]\nlock-after = 3\n".write(toFile: config + "/config.toml", atomically: true, encoding: .utf8)

        let session = try TmuxSession(
            command: [Forceterm.executable.path, "--store", user.storePath], width: 100, height: 30,
            environment: user.environment.compactMapValues { $0 })
        defer { session.kill() }
        try session.waitFor(String(someone))
        try session.send("s")
        let locked = try session.waitFor("forceterm is locked", timeout: 30)
        #expect(!locked.contains(String(someone)) && !locked.contains("Contacts ("), "nothing of the store shows: \(locked)")
        #expect(locked.contains("config.toml's lock-after: 3 seconds without a key"), "\(locked)")
        #expect(locked.contains("The sync goes on in the background."), "\(locked)")

        try session.send("nope", literal: true)
        try session.send("Enter")
        let wrong = try session.waitFor("Wrong passcode (1 in a row)")
        #expect(!wrong.contains("nope"), "what is typed never shows")
        try session.send("tui-pass-1", literal: true)
        try session.send("Enter")
        try session.waitFor(String(someone))
        // Idle again, it locks again; the sync ends behind the lock screen.
        try session.waitFor("forceterm is locked")
        let deadline = Date().addingTimeInterval(90)
        var screen = try session.screen()
        while screen.contains("The sync goes on"), Date() < deadline {
            Thread.sleep(forTimeInterval: 0.5)
            screen = try session.screen()
        }
        #expect(screen.contains("forceterm is locked") && !screen.contains("The sync goes on"), "the sync ended while locked: \(screen)")
        try session.send("tui-pass-1", literal: true)
        try session.send("Enter")
        try session.waitFor("last sync")
        try session.send("q")
        #expect(ProcessWatch.waitUntilGone(argument: user.storePath), "forceterm quits on q")
    }

    @Test func theOrgsPolicyFromLocalorgSetsThePasscodesLengthAndTheIdleTimeTheScreenLocksAfter() throws {
        // The connected app's policy as localorg serves it in the identity's mobile_policy.
        let server = try LocalOrgProcess(arguments: ["--pin-length", "8", "--screen-lock", "1"])
        let root = NSTemporaryDirectory() + "forceterm-org-policy-" + UUID().uuidString
        defer {
            server.remove()
            try? FileManager.default.removeItem(atPath: root)
        }
        try server.command(["seed", "--accounts", "1", "--contacts", "5"])
        let environment: [String: String?] = ["XDG_DATA_HOME": root + "/data", "XDG_CONFIG_HOME": root + "/config"]
        func login(passcode: String) throws -> CommandOutput {
            try ChildProcess.run(
                Forceterm.executable,
                [
                    "login", "--username", "demo@localorg.test", "--password-stdin",
                    "--login-url", server.url, "--cacert", server.caFile,
                ],
                environment: environment.merging(["FORCETERM_PASSCODE": passcode]) { $1 }, input: "localorg-demo\n")
        }
        let none = try ChildProcess.run(
            Forceterm.executable,
            [
                "login", "--username", "demo@localorg.test", "--password-stdin",
                "--login-url", server.url, "--cacert", server.caFile,
            ],
            environment: environment, input: "localorg-demo\n")
        #expect(none.exitCode == 1 && none.standardError.contains("your org's policy asks for a passcode"), "no terminal, no passcode: \(none)")
        let short = try login(passcode: "seven-7")
        #expect(short.exitCode == 1 && short.standardError.contains("fewer than the 8 characters"), "\(short)")
        #expect(!FileManager.default.fileExists(atPath: root + "/data/forceterm/credentials.json"), "nothing saved")
        let long = try login(passcode: "eight-88")
        #expect(long.exitCode == 0 && long.standardOutput.contains("Passcode set"), "\(long)")
        #expect(try ChildProcess.run(Forceterm.executable, ["sync"], environment: environment).exitCode == 0)
        let listed = try JSONParser.parse(try ChildProcess.run(Forceterm.executable, ["list", "contacts", "--json"], environment: environment).standardOutput)
        let someone = try #require(listed.arrayValue?.compactMap { $0["LastName"]?.stringValue }.max { $0.count < $1.count })

        // No config.toml: the org's screen_lock alone locks the TUI after a minute without a key.
        let session = try TmuxSession(command: [Forceterm.executable.path], width: 100, height: 30, environment: environment.compactMapValues { $0 })
        defer { session.kill() }
        try session.waitFor(String(someone))
        let locked = try session.waitFor("forceterm is locked", timeout: 90)
        #expect(locked.contains("your org's policy: 1 minute without a key") && !locked.contains(String(someone)), "\(locked)")
        try session.send("eight-88", literal: true)
        try session.send("Enter")
        try session.waitFor(String(someone))
        try session.send("q")
        _ = try session.waitUntilGone([String(someone)])
        _ = try ChildProcess.run(Forceterm.executable, ["lock"], environment: environment)
    }

    @Test func forcetermLockInAnotherTerminalLocksAnOpenTUIAndItsSyncNeverPromptsOnTheTerminal() throws {
        let server = try LocalOrgProcess()
        let root = NSTemporaryDirectory() + "forceterm-tui-lock-" + UUID().uuidString
        defer {
            server.remove()
            try? FileManager.default.removeItem(atPath: root)
        }
        try server.command(["seed", "--accounts", "1", "--contacts", "5"])
        let environment: [String: String?] = ["XDG_DATA_HOME": root + "/data", "XDG_CONFIG_HOME": root + "/config"]
        func forceterm(_ arguments: [String], passcode: String? = nil) throws -> CommandOutput {
            var environment = environment
            if let passcode { environment["FORCETERM_PASSCODE"] = passcode }
            return try ChildProcess.run(Forceterm.executable, arguments, environment: environment)
        }
        // The user's own store, its passcode chosen at sign-in (so the session's tokens are sealed too).
        let login = try ChildProcess.run(
            Forceterm.executable,
            [
                "login", "--username", "demo@localorg.test", "--password-stdin",
                "--login-url", server.url, "--cacert", server.caFile,
            ],
            environment: environment.merging(["FORCETERM_PASSCODE": "tui-pass-2"]) { $1 },
            input: "localorg-demo\n")
        #expect(login.exitCode == 0 && login.standardOutput.contains("Passcode set"), "\(login)")
        #expect(try forceterm(["sync"]).exitCode == 0)
        let listed = try JSONParser.parse(try forceterm(["list", "contacts", "--json"]).standardOutput)
        let someone = try #require(listed.arrayValue?.compactMap { $0["LastName"]?.stringValue }.max { $0.count < $1.count })

        // No idle lock configured: only the login's lock applies.
        let session = try TmuxSession(
            command: [Forceterm.executable.path], width: 100, height: 30,
            environment: environment.compactMapValues { $0 })
        defer { session.kill() }
        try session.waitFor(String(someone))
        #expect(try forceterm(["lock"]).exitCode == 0)
        let locked = try session.waitFor("forceterm is locked", timeout: 30)
        #expect(locked.contains("locked by forceterm lock") && !locked.contains(String(someone)), "\(locked)")
        try session.send("tui-pass-2", literal: true)
        try session.send("Enter")
        try session.waitFor(String(someone))
        // Unlocked on the lock screen, the login is unlocked again: s syncs without asking anything,
        // and another terminal of the login uses the key too.
        try session.send("s")
        let synced = try session.waitFor("Sync complete", timeout: 60)
        #expect(!synced.contains("Passcode for forceterm"), "\(synced)")
        let status = try forceterm(["status"])
        #expect(status.exitCode == 0, "\(status)")
        // Locked again, s while the lock screen has not come up yet (or after): never a prompt on the TUI's terminal.
        #expect(try forceterm(["lock"]).exitCode == 0)
        let elsewhere = try forceterm(["status"])
        #expect(elsewhere.exitCode == 1 && elsewhere.standardError.contains("is locked"), "the login's key is gone: \(elsewhere)")
        try session.send("s")
        let after = try session.waitFor("forceterm is locked", timeout: 30)
        #expect(!after.contains("Passcode for forceterm"), "\(after)")
        try session.send("C-c")
    }
}
