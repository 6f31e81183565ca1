import Foundation
import Testing

@testable import MobileSync

/// Another process holding a store's sync lock: a shell that opens the lock file, locks it with
/// util-linux `flock` (the same flock(2) lock as `SyncLock`) and becomes `sleep`, so the lock
/// lives exactly as long as this one process. It gives up by itself after 10 minutes: a test
/// task can wait tens of seconds for a thread when the whole suite runs on two cores.
final class LockHolder {
    let process = Process()

    init(storePath: String) throws {
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "exec 9>>\"$0\"; flock 9; echo locked; exec sleep 600 >/dev/null", SyncLock.path(forStore: storePath)]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Returns once the child says it holds the lock (or has died).
        var seen = ""
        while !seen.contains("locked") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            seen += String(decoding: chunk, as: UTF8.self)
        }
    }

    /// Kills the holder as a crash would, and waits for it to be gone.
    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}

@Suite("One sync at a time per store, across processes", .serialized)
struct SyncLockTests {
    @Test func aSecondHolderInThisProcessIsRefusedUntilTheFirstIsReleased() throws {
        let fixture = try SyncStore()
        var first = try SyncLock.tryAcquire(storePath: fixture.path)
        #expect(first != nil)
        #expect(try SyncLock.tryAcquire(storePath: fixture.path) == nil)
        first = nil
        #expect(try SyncLock.tryAcquire(storePath: fixture.path) != nil)
    }

    @Test func anotherProcesssLockGivesAClearSyncRunningError() async throws {
        let fixture = try SyncStore()
        let holder = try LockHolder(storePath: fixture.path)
        defer { holder.stop() }
        #expect(try SyncLock.tryAcquire(storePath: fixture.path) == nil)
        do {
            _ = try await SyncLock.acquire(storePath: fixture.path, timeout: .milliseconds(300), interval: .milliseconds(50))
            Issue.record("the lock was taken while another process held it")
        } catch {
            #expect(error as? MobileSyncError == .syncLocked(storePath: fixture.path))
            #expect("\(error)".contains("a sync is running on \(fixture.path) in another process"))
        }
    }

    @Test func theLockDiesWithItsProcess() async throws {
        let fixture = try SyncStore()
        let holder = try LockHolder(storePath: fixture.path)
        #expect(try SyncLock.tryAcquire(storePath: fixture.path) == nil)
        holder.stop()
        #expect(holder.process.terminationReason == .uncaughtSignal)
        let lock = try await SyncLock.acquire(storePath: fixture.path, timeout: .seconds(10))
        #expect(lock.path == fixture.path + ".sync-lock")
    }

    @Test func aWaiterGetsTheLockWhenTheOtherProcessEnds() async throws {
        let fixture = try SyncStore()
        let holder = try LockHolder(storePath: fixture.path)
        async let acquired = SyncLock.acquire(storePath: fixture.path, timeout: .seconds(20), interval: .milliseconds(20))
        holder.stop()
        let lock = try await acquired
        #expect(try SyncLock.tryAcquire(storePath: fixture.path) == nil, "the waiter holds it now")
        withExtendedLifetime(lock) {}
    }
}
