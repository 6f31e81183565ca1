import Foundation
import MobileSync
import SmartStore
import Synchronization

/// Test-only crash points for `forceterm sync`. The process ends abruptly (`_exit(86)`, no clean-up,
/// like a kill) at the k-th occurrence of a step, so crash-safety tests can loop k over every step:
/// - `FORCETERM_TEST_EXIT_AFTER_CALL=k`: right after the k-th call to the server has its answer and
///   before the engine records it, the moment a lost answer hurts most;
/// - `FORCETERM_TEST_EXIT_AFTER_COMMIT=k`: right after the k-th store transaction of the sync
///   commits, between two local steps with no server call beside them;
/// - `FORCETERM_TEST_EXIT_AFTER_PASSCODE_STEP=name`: after that step of `forceterm passcode`
///   setting a first passcode (`PasscodeStep`).
public enum TestCrashPoint {
    public static let afterCallVariable = "FORCETERM_TEST_EXIT_AFTER_CALL"
    public static let afterCommitVariable = "FORCETERM_TEST_EXIT_AFTER_COMMIT"
    public static let afterPasscodeStepVariable = "FORCETERM_TEST_EXIT_AFTER_PASSCODE_STEP"

    /// The steps of setting a first passcode, in order; the saved session is sealed last.
    public enum PasscodeStep: String, CaseIterable, Sendable {
        /// The key is sealed by the passcode, beside the store.
        case sealed
        /// The key is unlocked in the login's keyring.
        case remembered
        /// An unencrypted store is encrypted with the key.
        case encrypted
        /// The key file the sealed key replaces is gone.
        case keyFileRemoved = "key-file-removed"
    }

    /// Ends the process when the passcode crash point names `step`.
    static func reached(_ step: PasscodeStep, environment: [String: String] = ProcessInfo.processInfo.environment) {
        if environment[afterPasscodeStepVariable] == step.rawValue { _exit(exitStatus) }
    }
    /// The exit status of a deliberate crash, so a test can tell it from a real failure.
    public static let exitStatus: Int32 = 86

    private static func step(_ variable: String, in environment: [String: String]) -> Int? {
        guard let text = environment[variable], let step = Int(text), step > 0 else { return nil }
        return step
    }

    /// `remote` wrapped when the call variable holds a positive number, else `remote` itself.
    public static func wrapping(_ remote: any SyncRemote, environment: [String: String] = ProcessInfo.processInfo.environment) -> any SyncRemote {
        guard let exitAfter = step(afterCallVariable, in: environment) else { return remote }
        return SteppedRemote(remote: remote) { call in
            if call == exitAfter { _exit(exitStatus) }
        }
    }

    /// Arms the commit crash point on `store` when its variable holds a positive number; commits
    /// made before this call do not count.
    public static func arm(_ store: SmartStore, environment: [String: String] = ProcessInfo.processInfo.environment) {
        guard let exitAfter = step(afterCommitVariable, in: environment) else { return }
        let commits = Mutex(0)
        store.afterEachCommit {
            let count = commits.withLock { value -> Int in
                value += 1
                return value
            }
            if count == exitAfter { _exit(exitStatus) }
        }
    }
}
