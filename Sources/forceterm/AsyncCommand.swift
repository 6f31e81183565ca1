import Dispatch
import Foundation

/// Runs an async command body from ArgumentParser's synchronous `run()`, on a task of its own.
/// Ctrl-C (SIGINT) cancels that task instead of killing the process, so in-flight requests are
/// aborted cleanly and nothing is left half-written.
enum AsyncCommand {
    static func run(_ body: @escaping @Sendable () async throws -> Void) throws {
        let outcome = Outcome()
        let finished = DispatchSemaphore(value: 0)
        signal(SIGINT, SIG_IGN)
        let interrupts = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        let task = Task {
            do {
                try await body()
            } catch {
                outcome.error = error
            }
            finished.signal()
        }
        interrupts.setEventHandler { task.cancel() }
        interrupts.resume()
        finished.wait()
        interrupts.cancel()
        signal(SIGINT, SIG_DFL)
        if let error = outcome.error { throw error }
    }

    /// The task's error, handed from the task to the waiting thread (the semaphore orders the accesses).
    private final class Outcome: @unchecked Sendable {
        var error: (any Error)?
    }
}
