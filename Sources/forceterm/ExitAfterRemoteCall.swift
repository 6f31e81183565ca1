import Foundation
import MobileSync

/// A test-only crash point for `forceterm sync`: with `FORCETERM_TEST_EXIT_AFTER_CALL=k` in the
/// environment the process ends abruptly (`_exit(86)`, no clean-up, like a kill) right after the
/// k-th call to the server has its answer and before the engine records it: the moment a lost
/// answer hurts most. The crash-safety tests loop k over every call of a sync.
enum ExitAfterRemoteCall {
    static let environmentVariable = "FORCETERM_TEST_EXIT_AFTER_CALL"
    /// The exit status of a deliberate crash, so a test can tell it from a real failure.
    static let exitStatus: Int32 = 86

    /// `remote` wrapped when the variable holds a positive number, else `remote` itself.
    static func wrapping(_ remote: any SyncRemote, environment: [String: String] = ProcessInfo.processInfo.environment) -> any SyncRemote {
        guard let text = environment[environmentVariable], let exitAfter = Int(text), exitAfter > 0 else { return remote }
        return SteppedRemote(remote: remote) { call in
            if call == exitAfter { _exit(exitStatus) }
        }
    }
}
