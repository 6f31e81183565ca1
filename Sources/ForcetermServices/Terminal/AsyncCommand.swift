import Dispatch
import Foundation

/// Runs an async command body from ArgumentParser's synchronous `run()`, on a task of its own.
/// Ctrl-C (SIGINT) cancels that task instead of killing the process, so in-flight requests are
/// aborted cleanly and nothing is left half-written.
public enum AsyncCommand {
    /// Returns what `body` returns, or throws what it throws.
    public static func run<Value: Sendable>(_ body: @escaping @Sendable () async throws -> Value) throws -> Value {
        let outcome = Outcome<Value>()
        let finished = DispatchSemaphore(value: 0)
        signal(SIGINT, SIG_IGN)
        let interrupts = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        let task = Task {
            do {
                outcome.result = .success(try await body())
            } catch {
                outcome.result = .failure(error)
            }
            finished.signal()
        }
        interrupts.setEventHandler { task.cancel() }
        interrupts.resume()
        finished.wait()
        interrupts.cancel()
        signal(SIGINT, SIG_DFL)
        guard let result = outcome.result else { throw CancellationError() }
        return try result.get()
    }

    /// The same without touching SIGINT, for a caller that owns the terminal (the TUI, whose raw
    /// mode turns Ctrl-C into a key): a short store write that needs the sync manager's actor.
    public static func wait<Value: Sendable>(for body: @escaping @Sendable () async throws -> Value) throws -> Value {
        let outcome = Outcome<Value>()
        let finished = DispatchSemaphore(value: 0)
        Task {
            do {
                outcome.result = .success(try await body())
            } catch {
                outcome.result = .failure(error)
            }
            finished.signal()
        }
        finished.wait()
        guard let result = outcome.result else { throw CancellationError() }
        return try result.get()
    }

    /// The task's result, handed from the task to the waiting thread (the semaphore orders the accesses).
    private final class Outcome<Value>: @unchecked Sendable {
        public var result: Result<Value, any Error>?
    }
}
