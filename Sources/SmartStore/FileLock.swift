import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An exclusive `flock` on a file. The kernel drops it when its holder exits or is killed, so a
/// crash never leaves it behind; flock locks belong to the open file, so two handles in one process
/// exclude each other too.
public final class FileLock: Sendable {
    public let path: String
    private let descriptor: Int32

    /// Takes the lock without waiting; `nil` when another holder has it.
    public static func tryAcquire(path: String) throws -> FileLock? {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw SmartStoreError.lockFile(path: path, reason: String(cString: strerror(errno))) }
        if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { return FileLock(path: path, descriptor: descriptor) }
        let failure = errno
        close(descriptor)
        if failure == EWOULDBLOCK { return nil }
        throw SmartStoreError.lockFile(path: path, reason: String(cString: strerror(failure)))
    }

    /// Takes the lock, waiting as long as another holder keeps it (the kernel drops a dead one's).
    public static func acquire(path: String) throws -> FileLock {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw SmartStoreError.lockFile(path: path, reason: String(cString: strerror(errno))) }
        while flock(descriptor, LOCK_EX) != 0 {
            if errno == EINTR { continue }
            let failure = errno
            close(descriptor)
            throw SmartStoreError.lockFile(path: path, reason: String(cString: strerror(failure)))
        }
        return FileLock(path: path, descriptor: descriptor)
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
