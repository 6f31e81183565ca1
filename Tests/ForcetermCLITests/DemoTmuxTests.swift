import Foundation
import LocalOrgProcess
import Testing

/// `forceterm --demo` for real: the built forceterm starts the built localorg as a child, signs in
/// and opens the TUI in tmux with its first sync running; the test changes a contact on the server by running the
/// `localorg edit` command the help shows, and watches `s` bring it, then checks that quitting (and an SSH drop) stops the server.
@Suite("forceterm --demo", .serialized)
struct DemoTmuxTests {
    /// A scratch XDG data and config home, so the demo state never touches the user's.
    struct Scratch {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("forceterm-demo-\(UUID().uuidString)").path
        /// HOME is the scratch root too, with the data where XDG puts it by default, so the help's
        /// paths are shown from `~` as a user would type them.
        var environment: [String: String] { ["HOME": root, "XDG_DATA_HOME": root + "/.local/share", "XDG_CONFIG_HOME": root + "/config"] }
        var orgDirectory: String { root + "/.local/share/forceterm/demo/org" }
        func remove() { try? FileManager.default.removeItem(atPath: root) }
    }

    /// A demo start builds an org (password hashing, a CA), seeds it and syncs 550 records: give a
    /// debug build on a loaded machine room.
    static let startTimeout: TimeInterval = 600

    @Test("The demo opens on its contacts, ? shows the org, a server edit arrives on s, and q stops the server; a second run reuses the org and an SSH drop stops it too")
    func demoFlow() throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let session = try TmuxSession(command: [Forceterm.executable.path, "--demo"], width: 120, height: 40, environment: scratch.environment)
        defer { session.kill() }
        try session.waitFor("Contacts (500)", timeout: Self.startTimeout)
        let server = try #require(ServerProcess.pids(dataDirectory: scratch.orgDirectory).first, "a localorg serve child runs for the demo")

        try session.send("?")
        let help = try session.waitFor("Demo org")
        #expect(help.contains("https://127.0.0.1:"), "the help shows the demo org's URL")
        #expect(help.contains("demo@localorg.test"))
        #expect(help.contains("CA file   ") && help.contains("(curl --cacert)"), "the help names the CA file for curl")
        #expect(help.contains("sh ~/.local/share/forceterm/demo/change-on-server.sh"), "the script that changes a contact on the server, from ~")
        #expect(!help.contains(scratch.root), "no path is shown longer than a user would type it")
        try session.send("Escape")

        // The help's command, pasted as shown: its folded lines make one working shell command
        // (it runs the script the demo wrote, which runs localorg edit on the first contact).
        let title = "Changed on the server"
        let command = try #require(DemoHelpText.editCommand(in: help), "the help shows a localorg edit command\n\(help)")
        let pasted = try ChildProcess.run(URL(fileURLWithPath: "/bin/sh"), ["-c", command], environment: ["HOME": scratch.root])
        #expect(pasted.exitCode == 0, "\(command)\n\(pasted)")
        try session.send("s")
        try session.waitFor("Sync complete!", timeout: 120)
        try session.waitFor(title, timeout: 30)

        try session.send("q")
        #expect(ProcessWatch.waitUntilGone(argument: "--demo", timeout: 60), "forceterm quits on q")
        #expect(ServerProcess.waitUntilGone(server), "quitting stops the demo org")
        session.kill()
        // The demo's store is encrypted like everyone's, with its own key file (asked nothing).
        let demoUsers = scratch.root + "/.local/share/forceterm/demo/users"
        let demoStore = try #require(
            FileManager.default.enumerator(atPath: demoUsers)?.allObjects.compactMap { $0 as? String }
                .first { $0.hasSuffix("/store.sqlite") }.map { demoUsers + "/" + $0 })
        #expect(try !PasscodeTests.isPlain(demoStore) && FileManager.default.fileExists(atPath: demoStore + ".key"))
        #expect(try !Data(contentsOf: URL(fileURLWithPath: demoStore)).contains(Data(title.utf8)), "\(title) is not readable in the file")

        // Again: the org and store are reused (the server-side edit is still there), and dropping
        // the terminal (SIGHUP) stops the new server as well.
        let second = try TmuxSession(command: [Forceterm.executable.path, "--demo"], width: 120, height: 40, environment: scratch.environment)
        defer { second.kill() }
        try second.waitFor("Contacts (500)", timeout: Self.startTimeout)
        try second.waitFor(title, timeout: 30)
        let secondServer = try #require(ServerProcess.pids(dataDirectory: scratch.orgDirectory).first)
        #expect(secondServer != server)
        second.kill()
        #expect(ProcessWatch.waitUntilGone(argument: "--demo", timeout: 60), "forceterm exits when its terminal goes away")
        #expect(ServerProcess.waitUntilGone(secondServer), "the SSH drop stops the demo org too")
    }

    @Test("On a slow org the demo opens at once and syncs behind the list; Ctrl-C twice quits mid-sync and stops the server")
    func opensBeforeItsFirstSync() throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        // 1.5 s per data request: the first sync takes a dozen requests, 18 s or more.
        let session = try TmuxSession(
            command: [Forceterm.executable.path, "--demo", "--demo-latency", "1500"], width: 120, height: 40,
            environment: scratch.environment)
        defer { session.kill() }
        let screen = try session.waitFor("syncing", timeout: Self.startTimeout)
        #expect(screen.contains("Contacts ("), "the list is on screen while the first sync runs\n\(screen)")
        #expect(screen.contains("never synced"), "\(screen)")
        let server = try #require(ServerProcess.pids(dataDirectory: scratch.orgDirectory).first)
        try session.send("C-c")
        try session.waitFor("Quit anyway?")
        try session.send("C-c")
        #expect(ProcessWatch.waitUntilGone(argument: "--demo", timeout: 30), "the second Ctrl-C quits")
        #expect(ServerProcess.waitUntilGone(server), "quitting stops the demo org")
    }

    @Test("Without localorg beside forceterm or on PATH, --demo says so in one line and exits 1")
    func missingLocalOrg() throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let lonely = scratch.root + "/bin/forceterm"
        try FileManager.default.createDirectory(atPath: scratch.root + "/bin", withIntermediateDirectories: true)
        do {
            try FileManager.default.linkItem(atPath: Forceterm.executable.path, toPath: lonely)
        } catch {
            try FileManager.default.copyItem(atPath: Forceterm.executable.path, toPath: lonely)
        }
        var environment: [String: String?] = scratch.environment.mapValues { $0 }
        environment["PATH"] = "/usr/bin:/bin"
        let output = try ChildProcess.run(URL(fileURLWithPath: lonely), ["--demo"], environment: environment)
        #expect(output.exitCode == 1, "\(output)")
        #expect(output.standardError.hasPrefix("forceterm: --demo needs the localorg program"), "\(output)")
        #expect(output.standardError.contains("make demo"))
        #expect(output.standardError.split(separator: "\n").count == 1)
        #expect(!FileManager.default.fileExists(atPath: scratch.root + "/data/forceterm/demo"), "nothing was created")
    }

    @Test("A busy --demo-port is one clear line, and no server is left behind")
    func busyPort() throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let listener = try SilentListener()
        let session = try TmuxSession(
            command: [Forceterm.executable.path, "--demo", "--demo-port", "\(listener.port)"], width: 200, height: 30,
            environment: scratch.environment)
        defer { session.kill() }
        let screen = try session.waitFor("already in use", timeout: Self.startTimeout)
        #expect(screen.contains("forceterm: port \(listener.port) on 127.0.0.1 is already in use; pick another with --demo-port"))
        #expect(ServerProcess.pids(dataDirectory: scratch.orgDirectory).isEmpty)
    }

    @Test("--demo rejects options that do not fit it as usage errors")
    func usage() throws {
        for (arguments, message) in [
            (["--reset"], "--reset goes with --demo"), (["--demo", "--store", "/tmp/x.sqlite"], "leave out --store"),
            (["--demo", "--offline"], "exclude each other"),
        ] {
            let output = try Forceterm.run(arguments)
            #expect(output.exitCode == 2, "\(arguments): \(output)")
            #expect(output.standardError.contains(message), "\(arguments): \(output)")
        }
    }
}

/// The demo's `localorg serve` processes, found through /proc by their data directory.
enum ServerProcess {
    static func pids(dataDirectory: String) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { pid in
            guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
            let parts = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            return parts.first?.hasSuffix("/localorg") == true && parts.contains("serve") && parts.contains(dataDirectory) && isAlive(pid)
        }
    }

    /// Running, not a zombie waiting for its parent to collect it.
    static func isAlive(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return false }
        let state = stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).prefix(1)
        return state != "Z" && state != "X"
    }

    static func waitUntilGone(_ pid: Int32, timeout: TimeInterval = 60) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if !isAlive(pid) { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return false
    }
}

/// The `?` screen's demo block as tmux shows it, inside the help box's frame.
enum DemoHelpText {
    /// The lines after "… press s …:" up to the first not ending in a continuation backslash,
    /// frame and margins removed, as a pasting user would select them.
    static func editCommand(in screen: String) -> String? {
        let lines = screen.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.trimmingCharacters(in: CharacterSet(charactersIn: "│ "))
        }
        guard let intro = lines.firstIndex(where: { $0.contains("press s") && $0.hasSuffix(":") }), intro + 1 < lines.count else { return nil }
        var command: [String] = []
        for line in lines[(intro + 1)...] {
            command.append(line)
            if !line.hasSuffix("\\") { break }
        }
        return command.joined(separator: "\n")
    }
}
