import Synchronization

/// How far a running sync is.
public struct SyncProgress: Sendable, Equatable {
    /// "Sync up" or "Sync down".
    public let phase: String
    /// 0...1.
    public let fraction: Double

    public init(phase: String, fraction: Double) {
        self.phase = phase
        self.fraction = min(max(fraction, 0), 1)
    }
}

/// What a finished sync reports: how many records were left with a per-record error or a conflict.
public struct SyncSummary: Sendable, Equatable {
    public let recordsWithErrors: Int
    public let conflicts: Int

    public init(recordsWithErrors: Int, conflicts: Int) {
        self.recordsWithErrors = recordsWithErrors
        self.conflicts = conflicts
    }
}

/// The sync the `s` key runs: sync up, then sync down, reporting progress. MobileSync implements
/// it; a thrown error's description is shown to the user as "Sync failed: <reason>".
public protocol SyncService: Sendable {
    func syncUpThenDown(progress: @escaping @Sendable (SyncProgress) -> Void) async throws -> SyncSummary
}

/// Runs one sync at a time in the background and lets the event loop read its state on each tick,
/// so the keyboard stays live while it runs.
public final class SyncController: Sendable {
    public enum Status: Sendable, Equatable {
        case idle
        case running(SyncProgress)
        case finished(Result<SyncSummary, SyncFailure>)
    }

    private let service: any SyncService
    private let status = Mutex<Status>(.idle)

    public init(service: any SyncService) {
        self.service = service
    }

    public var current: Status { status.withLock { $0 } }

    public var isRunning: Bool {
        if case .running = current { return true }
        return false
    }

    /// Starts a sync unless one is running; returns whether it started.
    @discardableResult
    public func start() -> Bool {
        let started = status.withLock { state -> Bool in
            if case .running = state { return false }
            state = .running(SyncProgress(phase: "Sync up", fraction: 0))
            return true
        }
        guard started else { return false }
        let service = self.service
        Task.detached { [self] in
            do {
                let summary = try await service.syncUpThenDown { progress in
                    self.status.withLock { state in if case .running = state { state = .running(progress) } }
                }
                self.status.withLock { $0 = .finished(.success(summary)) }
            } catch {
                self.status.withLock { $0 = .finished(.failure(SyncFailure(reason: "\(error)"))) }
            }
        }
        return true
    }

    /// The finished result, once: the state goes back to idle.
    public func takeFinished() -> Result<SyncSummary, SyncFailure>? {
        status.withLock { state in
            guard case let .finished(result) = state else { return nil }
            state = .idle
            return result
        }
    }
}

/// Why a sync failed, in words for the toast.
public struct SyncFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public let reason: String
    public init(reason: String) { self.reason = reason }
    public var description: String { reason }
}
