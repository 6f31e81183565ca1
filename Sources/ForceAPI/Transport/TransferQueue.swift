import Foundation
import Synchronization

/// One request on its way through a worker, with its cancellation flag and its caller's continuation.
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

/// The transfers waiting for a worker, first in first out. A transfer pushed while workers wait
/// goes to the one that became idle last: its connection is the warmest, so requests sent one
/// after another keep to one connection instead of each worker opening its own.
final class TransferQueue: Sendable {
    private struct State: ~Copyable {
        var waiting: [Transfer] = []
        /// Workers waiting for a transfer, the most recently idle last.
        var idle: [Int] = []
        /// Transfers handed to a waiting worker, by worker.
        var handed: [Int: Transfer] = [:]
        var closed = false
    }

    private let condition = NSCondition()
    private let state = Mutex(State())

    /// Adds a transfer; false once the transport is gone.
    func push(_ transfer: Transfer) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        let accepted = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            if let worker = state.idle.popLast() {
                state.handed[worker] = transfer
            } else {
                state.waiting.append(transfer)
            }
            return true
        }
        condition.broadcast()
        return accepted
    }

    /// The next transfer for `worker`, waiting for one; nil when the queue is closed and empty.
    func pop(worker: Int) -> Transfer? {
        condition.lock()
        defer { condition.unlock() }
        var registered = false
        while true {
            let next = state.withLock { state -> (Transfer?, Bool) in
                if let transfer = state.handed.removeValue(forKey: worker) { return (transfer, false) }
                if !state.waiting.isEmpty {
                    state.idle.removeAll { $0 == worker }
                    return (state.waiting.removeFirst(), false)
                }
                if state.closed {
                    state.idle.removeAll { $0 == worker }
                    return (nil, true)
                }
                if !registered, !state.idle.contains(worker) { state.idle.append(worker) }
                return (nil, false)
            }
            if let transfer = next.0 { return transfer }
            if next.1 { return nil }
            registered = true
            condition.wait()
        }
    }

    /// Puts `worker` at the head of the idle ones before it hands its answer back, so that the
    /// caller's next request, which may be pushed before the worker asks for one, goes to it.
    func becomingIdle(worker: Int) {
        condition.lock()
        state.withLock { state in
            if !state.closed, !state.idle.contains(worker) { state.idle.append(worker) }
        }
        condition.unlock()
    }

    func close() {
        condition.lock()
        state.withLock { $0.closed = true }
        condition.broadcast()
        condition.unlock()
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
