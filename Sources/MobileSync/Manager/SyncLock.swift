import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One sync at a time per store, across processes: an exclusive `flock` on `<store>.sync-lock`.
/// The kernel drops the lock when its holder exits or is killed, so a crash never leaves it behind.
/// flock locks belong to the open file, so two handles in one process exclude each other too.
public final class SyncLock: Sendable {
    public let path: String
    private let descriptor: Int32

    /// The lock file next to a store.
    public static func path(forStore storePath: String) -> String { storePath + ".sync-lock" }

    /// Takes the lock without waiting; `nil` when another holder has it.
    public static func tryAcquire(storePath: String) throws -> SyncLock? {
        let path = path(forStore: storePath)
        let descriptor = try openLockFile(path)
        if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { return SyncLock(path: path, descriptor: descriptor) }
        let failure = errno
        close(descriptor)
        if failure == EWOULDBLOCK { return nil }
        throw MobileSyncError.store("cannot lock \(path): \(String(cString: strerror(failure)))")
    }

    /// Takes the lock, polling every `interval` until `timeout` has passed; then fails with a clear
    /// "sync running" error. A zero timeout fails at once when the lock is taken.
    public static func acquire(storePath: String, timeout: Duration, interval: Duration = .milliseconds(100)) async throws -> SyncLock {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while true {
            if let lock = try tryAcquire(storePath: storePath) { return lock }
            guard clock.now < deadline else { throw MobileSyncError.syncLocked(storePath: storePath) }
            try await Task.sleep(for: interval)
        }
    }

    private static func openLockFile(_ path: String) throws -> Int32 {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw MobileSyncError.store("cannot open the sync lock file \(path): \(String(cString: strerror(errno)))")
        }
        return descriptor
    }

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }

    deinit {
        _ = flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
