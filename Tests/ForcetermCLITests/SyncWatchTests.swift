import ForceJSON
import Foundation
import LocalOrgProcess
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `forceterm sync --watch` as the built binary against a real localorg: it syncs by itself and
/// ends cleanly on a signal.
@Suite("forceterm sync --watch", .serialized)
struct SyncWatchTests {
    /// `forceterm sync --watch --json` running in the background, its stdout in a file.
    final class Watch {
        let process = Process()
        let output: String
        let errors: String

        init(_ user: SyncCommandTests.SignedIn, arguments: [String] = ["--json"]) throws {
            output = user.root + "/watch.out"
            errors = user.root + "/watch.err"
            for file in [output, errors] { FileManager.default.createFile(atPath: file, contents: nil) }
            process.executableURL = Forceterm.executable
            process.arguments = ["sync", "--watch", "--store", user.storePath] + arguments
            var environment = ProcessInfo.processInfo.environment
            for (name, value) in user.environment { environment[name] = value }
            process.environment = environment
            process.standardOutput = FileHandle(forWritingAtPath: output)
            process.standardError = FileHandle(forWritingAtPath: errors)
            try process.run()
        }

        /// The lines printed so far, once there are at least `count` (or the timeout passed).
        func lines(atLeast count: Int, timeout: TimeInterval = 30) -> [String] {
            let deadline = Date() + timeout
            var lines: [String] = []
            repeat {
                lines = ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
                if lines.count >= count { break }
                Thread.sleep(forTimeInterval: 0.1)
            } while Date() < deadline
            return lines
        }

        func runs(atLeast count: Int) -> [JSONValue] { lines(atLeast: count).compactMap { try? JSONParser.parse($0) } }

        /// Sends `signal` and waits for the exit; nil when it did not exit in time.
        func stop(_ signal: Int32 = SIGTERM, timeout: TimeInterval = 30) -> Int32? {
            kill(process.processIdentifier, signal)
            let deadline = Date() + timeout
            while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
            return process.isRunning ? nil : process.terminationStatus
        }

        deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
    }

    @Test("Syncs at start, sends what another process saves within seconds, prints one JSON line per run, and ends with 0 on SIGTERM")
    func watchesAndEnds() throws {
        let user = try SyncCommandTests.SignedIn(accounts: 1, contacts: 2)
        defer { user.remove() }
        // [sync] auto = false keeps the TUI to s; the watch was asked for by name and runs.
        // listen = false: the runs counted here are the local changes' and the opening's only.
        try user.writeSettings("[sync]\nauto = false\ninterval = 600\nlisten = false\n")
        let watch = try Watch(user)
        let opened = watch.runs(atLeast: 1)
        #expect(opened.first?["reason"] == "opened" && opened.first?["ok"] == true && opened.first?["received"] == 3, "\(opened)")

        let created = try user.forceterm(["create", "contacts", "LastName=Watched", "FirstName=Wanda"])
        #expect(created.exitCode == 0, "\(created)")
        let sent = watch.runs(atLeast: 2)
        #expect(sent.count == 2 && sent.last?["reason"] == "localChanges" && sent.last?["sent"] == 1, "\(sent)")
        let token = try OrgREST.accessToken(user.server)
        #expect(try OrgREST.query("SELECT Id FROM Contact WHERE LastName = 'Watched'", server: user.server, token: token).count == 1)
        #expect(watch.stop() == 0, "SIGTERM ends it cleanly")
        #expect(try user.documents("contacts").allSatisfy { $0["__local__"] == false })
    }

    @Test("Listening: a change the trainer makes in the org comes down within seconds, with the timer an hour away, in the sync down of its soup alone; its own sends start no sync")
    func serverChangesComeDown() throws {
        let user = try SyncCommandTests.SignedIn(accounts: 1, contacts: 1)
        defer { user.remove() }
        try user.writeSettings("[sync]\ninterval = 3600\n")
        let watch = try Watch(user)
        #expect(watch.runs(atLeast: 1).first?["reason"] == "opened")
        // Subscribed once the first sync had started: one more sync covers the moment between.
        Thread.sleep(forTimeInterval: 2)
        let settled = watch.runs(atLeast: 1).count
        let before = try lastRuns(user)
        let token = try OrgREST.accessToken(user.server)
        let id = try #require(try OrgREST.query("SELECT Id FROM Contact", server: user.server, token: token).first?["Id"]?.stringValue)
        _ = try user.server.command(["edit", "Contact", id, "Title=Announced"])
        let runs = watch.runs(atLeast: settled + 1)
        #expect(runs.count == settled + 1 && runs.last?["reason"] == "serverChanges" && runs.last?["received"] == 1, "\(runs)")
        #expect(try user.documents("contacts").contains { $0["Title"] == "Announced" })
        // The event was Contact's: only the contacts' sync down ran; the accounts' and the describes did not.
        let after = try lastRuns(user)
        #expect(after["syncDownContacts"] != before["syncDownContacts"], "\(before) \(after)")
        for (name, lastRun) in before where name != "syncDownContacts" && name.hasPrefix("syncDown") {
            #expect(after[name] == lastRun, "\(name) did not run: \(before) \(after)")
        }

        // Its own change, sent: the org's event for it names this store's client and starts nothing.
        #expect(try user.forceterm(["create", "contacts", "LastName=Own"]).exitCode == 0)
        let sent = watch.runs(atLeast: settled + 2)
        #expect(sent.last?["reason"] == "localChanges" && sent.last?["sent"] == 1, "\(sent)")
        Thread.sleep(forTimeInterval: 3)
        #expect(watch.runs(atLeast: 0).count == settled + 2, "no sync for its own change's event: \(watch.runs(atLeast: 0))")
        #expect(watch.stop() == 0)
    }

    /// Each named sync's last run, as `forceterm status --json` reports it.
    func lastRuns(_ user: SyncCommandTests.SignedIn) throws -> [String: String] {
        let status = try user.forceterm(["status", "--json"])
        let syncs = try JSONParser.parse(status.standardOutput)["syncs"]?.arrayValue ?? []
        return Dictionary(
            syncs.compactMap { sync in sync["name"]?.stringValue.map { ($0, sync["lastRun"]?.stringValue ?? "") } },
            uniquingKeysWith: { first, _ in first })
    }

    @Test("Offline, it says so with the next try and sends the change once the org is back on the same address")
    func offlineThenBack() throws {
        let user = try SyncCommandTests.SignedIn(accounts: 0, contacts: 1)
        defer { user.remove() }
        try user.writeSettings("[sync]\nlisten = false\n")
        let watch = try Watch(user, arguments: [])
        #expect(watch.lines(atLeast: 1).first?.contains("started: sent 0, got 1") == true, "\(watch.lines(atLeast: 1))")
        let port = user.server.port
        user.server.stop()
        #expect(try user.forceterm(["create", "contacts", "LastName=Offline"]).exitCode == 0)
        let failed = watch.lines(atLeast: 2)
        #expect(failed.last?.contains("local changes: offline:") == true && failed.last?.contains("next try") == true, "\(failed)")
        let back = try LocalOrgProcess(arguments: ["--port", String(port)], dataDirectory: user.server.dataDirectory)
        defer { back.stop() }
        let deadline = Date() + 30
        var lines = failed
        while Date() < deadline, lines.last?.contains("sent 1") != true {
            Thread.sleep(forTimeInterval: 0.2)
            lines = watch.lines(atLeast: lines.count + 1, timeout: 1)
        }
        #expect(lines.last?.contains(": sent 1") == true, "\(lines)")
        #expect(watch.stop(SIGHUP) == 0, "SIGHUP (the SSH session gone) ends it cleanly too")
    }
}
