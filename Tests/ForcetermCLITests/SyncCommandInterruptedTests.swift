import Foundation
import MobileSync
import Testing

/// What `forceterm sync` and `status` say around a sync that is not running to its end: one killed
/// mid-run, and one another process holds.
extension SyncCommandTests {
    @Test("A sync killed mid-run shows STOPPED in status, not RUNNING; while another process syncs, it is RUNNING")
    func statusAfterAKilledSync() throws {
        let user = try SignedIn(accounts: 1, contacts: 3)
        defer { user.remove() }
        #expect(try user.forceterm(["sync"]).exitCode == 0)
        #expect(try user.forceterm(["create", "contacts", "LastName=Halfway"]).exitCode == 0)
        var crashing = user.environment
        crashing["FORCETERM_TEST_EXIT_AFTER_CALL"] = "1"
        // Up only: a whole sync reads the describes first, and the first call would be theirs.
        let killed = try ChildProcess.run(Forceterm.executable, ["sync", "--up-only", "--store", user.storePath], environment: crashing)
        #expect(killed.exitCode != 0, "\(killed)")

        var held: SyncLock? = try #require(try SyncLock.tryAcquire(storePath: user.storePath), "as a sync in another process holds it")
        let during = try user.forceterm(["status"])
        #expect(during.standardOutput.contains("syncUpContacts (syncUp contacts): RUNNING"), "\(during)")
        withExtendedLifetime(held) {}
        held = nil
        let after = try user.forceterm(["status"])
        #expect(!after.standardOutput.contains("RUNNING") && after.standardOutput.contains("syncUpContacts (syncUp contacts): STOPPED"), "\(after)")
        let sync = try user.forceterm(["sync"])
        #expect(sync.exitCode == 0, "the next sync finishes it: \(sync)")
        let onServer = try user.server.command(["query", "SELECT Id, LastName FROM Contact WHERE LastName = 'Halfway'"])
        #expect(onServer.components(separatedBy: "Halfway").count == 2, "created once: \(onServer)")
    }

    @Test("A sync that cannot start because another process syncs says so alone, without a summary of zeros")
    func aSyncThatCannotStartPrintsNoSummary() throws {
        let user = try SignedIn(accounts: 1, contacts: 3)
        defer { user.remove() }
        #expect(try user.forceterm(["sync"]).exitCode == 0)
        let held = try #require(try SyncLock.tryAcquire(storePath: user.storePath))
        let blocked = try user.forceterm(["sync"])
        withExtendedLifetime(held) {}
        #expect(blocked.exitCode == 1, "\(blocked)")
        #expect(blocked.standardOutput.isEmpty, "no \"Sent 0 changes\" line: \(blocked)")
        #expect(
            blocked.standardError.contains("another sync of this store is running") && !blocked.standardError.contains(user.storePath),
            "said in a line a toast can hold, without the store's path: \(blocked)")
    }
}
