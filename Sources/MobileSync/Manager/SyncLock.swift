import SmartStore

/// One sync at a time per store, across processes: a `FileLock` on `<store>.sync-lock`, which dies
/// with its process.
public final class SyncLock: Sendable {
    private let lock: FileLock
    public var path: String { lock.path }

    /// The lock file next to a store.
    public static func path(forStore storePath: String) -> String { storePath + ".sync-lock" }

    /// Takes the lock without waiting; `nil` when another holder has it.
    public static func tryAcquire(storePath: String) throws -> SyncLock? {
        let path = path(forStore: storePath)
        do {
            return try FileLock.tryAcquire(path: path).map(SyncLock.init)
        } catch let error as SmartStoreError {
            throw MobileSyncError.store(error.description)
        }
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

    private init(_ lock: FileLock) { self.lock = lock }
}
