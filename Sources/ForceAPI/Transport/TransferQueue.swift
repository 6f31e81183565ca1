import Foundation
import Synchronization

/// One request on its way through the transport, with its cancellation flag and its caller's continuation.
final class Transfer: Sendable {
    let request: HTTPRequest
    let cancelled = Atomic<Bool>(false)
    let continuation = Mutex<CheckedContinuation<Result<HTTPResponse, TransportFailure>, Never>?>(nil)

    init(request: HTTPRequest) { self.request = request }

    func cancel() { cancelled.store(true, ordering: .relaxed) }
    var isCancelled: Bool { cancelled.load(ordering: .relaxed) }

    /// Resumes the caller exactly once.
    func finish(_ result: Result<HTTPResponse, TransportFailure>) {
        let waiting = continuation.withLock { value -> CheckedContinuation<Result<HTTPResponse, TransportFailure>, Never>? in
            defer { value = nil }
            return value
        }
        waiting?.resume(returning: result)
    }
}

/// The transfers callers have handed in and the transport's thread has not taken yet, first in
/// first out. Pushing one wakes that thread (it may be waiting on its sockets).
final class TransferQueue: Sendable {
    private struct State: ~Copyable {
        var waiting: [Transfer] = []
        var closed = false
    }

    private let state = Mutex(State())
    private let wake: @Sendable () -> Void

    init(wake: @escaping @Sendable () -> Void) { self.wake = wake }

    /// Adds a transfer; false once the transport is shut down.
    func push(_ transfer: Transfer) -> Bool {
        state.withLock { state -> Bool in
            guard !state.closed else { return false }
            state.waiting.append(transfer)
            // Under the lock: the thread frees what `wake` touches only after it saw the queue
            // closed, which it cannot while this push holds the lock.
            wake()
            return true
        }
    }

    /// Every transfer waiting, and whether the queue is closed (then none will follow).
    func takeAll() -> (transfers: [Transfer], closed: Bool) {
        state.withLock { state in
            defer { state.waiting.removeAll() }
            return (state.waiting, state.closed)
        }
    }

    func close() {
        state.withLock { state in
            state.closed = true
            wake()
        }
    }
}

/// Counts of a transport's work, for `--verbose`, benchmarks and tests.
public struct TransferStatistics: Sendable, Equatable {
    public var connectionsOpened = 0
    public var requests = 0
    public var bytesSent = 0
    public var bytesReceived = 0
}

final class TransferCounters: Sendable {
    private let value = Mutex(TransferStatistics())

    func add(connections: Int, sent: Int, received: Int) {
        value.withLock {
            $0.connectionsOpened += connections
            $0.requests += 1
            $0.bytesSent += sent
            $0.bytesReceived += received
        }
    }

    var snapshot: TransferStatistics { value.withLock { $0 } }
}
