import ForceJSON
import Foundation
import LocalOrgProcess
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The fault tests with automatic sync on: `forceterm sync --watch` as the built binary against a
/// real localorg that refuses everything for a while, or with the watch killed mid-sync. Nothing
/// lost, nothing doubled, and no sync storm: the tries back off.
@Suite("forceterm sync --watch through faults", .serialized)
struct SyncWatchFaultTests {
    static func contacts(named prefix: String, on server: LocalOrgProcess) throws -> [String] {
        try OrgREST.query("SELECT LastName FROM Contact WHERE LastName LIKE '\(prefix)%'", server: server, token: OrgREST.accessToken(server))
            .compactMap { $0["LastName"]?.stringValue }
    }

    @Test("A 503 storm: each try waits about twice the last (no sync storm); once it is over every create reaches the org once")
    func serviceUnavailableStorm() throws {
        let user = try SyncCommandTests.SignedIn(accounts: 0, contacts: 1)
        defer { user.remove() }
        try user.writeSettings("[sync]\nlisten = false\ninterval = 600\n")
        #expect(try user.forceterm(["sync"]).exitCode == 0)
        let port = user.server.port
        user.server.stop()
        let stormy = try LocalOrgProcess(arguments: ["--port", String(port), "--fail-rate", "1"], dataDirectory: user.server.dataDirectory)
        for number in 1...5 { #expect(try user.forceterm(["create", "contacts", "LastName=Storm \(number)"]).exitCode == 0) }
        let watch = try SyncWatchTests.Watch(user)
        Thread.sleep(forTimeInterval: 22)
        let stormRuns = watch.runs(atLeast: 0)
        stormy.stop()
        let failed = stormRuns.filter { $0["ok"] == false }
        // 2 s, 4 s, 8 s, … apart (±20 %): four or five tries in 22 s, not one a second.
        #expect((2...6).contains(failed.count) && failed.count == stormRuns.count, "\(stormRuns)")
        let stamp = ISO8601DateFormatter()
        let waits = failed.compactMap { run -> Double? in
            guard let ended = run["ended"]?.stringValue.flatMap(stamp.date), let next = run["nextTry"]?.stringValue.flatMap(stamp.date) else { return nil }
            return next.timeIntervalSince(ended)
        }
        #expect(waits.count == failed.count, "every failed run says when it tries next: \(failed)")
        for (earlier, later) in zip(waits, waits.dropFirst()) {
            // Whole seconds on the wire: a doubling is at least 1.6x, less a second of rounding each side.
            #expect(later >= earlier * 1.6 - 2, "the waits grow: \(waits)")
        }

        let calm = try LocalOrgProcess(arguments: ["--port", String(port)], dataDirectory: user.server.dataDirectory)
        defer { calm.stop() }
        let deadline = Date() + 60
        while Date() < deadline, (try? Self.contacts(named: "Storm", on: calm).count) != 5 { Thread.sleep(forTimeInterval: 0.5) }
        let stored = try Self.contacts(named: "Storm", on: calm)
        #expect(stored.sorted() == (1...5).map { "Storm \($0)" }, "each create once: \(stored)")
        #expect(watch.stop() == 0)
        #expect(try user.documents("contacts").allSatisfy { $0["__local__"] == false })
    }

    @Test("Killed in the middle of sending and started again: every change reaches the org once")
    func killedMidSync() throws {
        let user = try SyncCommandTests.SignedIn(serverArguments: ["--latency", "300"], accounts: 0, contacts: 1)
        defer { user.remove() }
        try user.writeSettings("[sync]\nlisten = false\ninterval = 600\n")
        #expect(try user.forceterm(["sync"]).exitCode == 0)
        for number in 1...30 { #expect(try user.forceterm(["create", "contacts", "LastName=Killed \(number)"]).exitCode == 0) }
        let first = try SyncWatchTests.Watch(user)
        // Into the opening sync: the describes are asked, the creates on their way (300 ms a request).
        Thread.sleep(forTimeInterval: 1.2)
        kill(first.process.processIdentifier, SIGKILL)
        first.process.waitUntilExit()
        let again = try SyncWatchTests.Watch(user)
        let deadline = Date() + 90
        while Date() < deadline, (try? Self.contacts(named: "Killed", on: user.server).count) != 30 { Thread.sleep(forTimeInterval: 0.5) }
        Thread.sleep(forTimeInterval: 2)
        let stored = try Self.contacts(named: "Killed", on: user.server)
        #expect(stored.count == 30 && Set(stored).count == 30, "each create once: \(stored.sorted())")
        #expect(again.stop() == 0)
        let (_, status) = try user.json(["status"])
        #expect(status["outbox"]?.arrayValue?.isEmpty == true, "\(status)")
    }
}
