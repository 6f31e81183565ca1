import Foundation

/// How wrong passcodes in a row slow the next try, counted in the store's sealed-key file so that
/// restarting forceterm (or trying from another terminal) does not reset them: the first few are
/// free (typos), then each further try waits, the wait doubling up to a quarter of an hour. Nothing
/// is ever wiped: the store may hold changes not yet sent, and `forceterm passcode --forgotten` is
/// the user's own choice. (The wait slows guessing at forceterm's prompts; what stops guessing
/// against a copied file is the key derivation's cost.)
public enum PasscodeTries {
    /// Wrong passcodes in a row after which the next try waits.
    public static let firstWait = 3
    public static let longestWait = 15 * 60

    /// Seconds to wait after `failures` wrong passcodes in a row: 0, then 5, 10, 20, … up to 15 minutes.
    public static func wait(afterFailures failures: Int) -> Int {
        guard failures >= firstWait else { return 0 }
        return min(5 << min(failures - firstWait, 12), longestWait)
    }

    /// The seconds still to wait before the sealed key takes another try; 0 when it may.
    static func remainingWait(_ wrapped: WrappedStoreKey, now: Date) -> Int {
        guard let last = wrapped.lastFailure else { return 0 }
        let wait = wait(afterFailures: wrapped.failedAttempts)
        // Never more than the wait itself: a clock set back since the last wrong try must not lengthen it.
        return min(wait, max(0, Int((last + Double(wait) - now.timeIntervalSince1970).rounded(.up))))
    }

    /// "5 s", "2 min 40 s".
    static func duration(_ seconds: Int) -> String {
        seconds < 60 ? "\(seconds) s" : "\(seconds / 60) min" + (seconds % 60 == 0 ? "" : " \(seconds % 60) s")
    }
}

/// A passcode refused: wrong, or tried before the wait that wrong ones in a row impose.
public struct PasscodeRefused: Error, Equatable, CustomStringConvertible {
    public let store: String
    public let failures: Int
    /// Seconds before the next try is taken.
    public let wait: Int
    /// True: this try was not even checked, it came before the wait was over.
    public let tooSoon: Bool
    /// ` --store PATH`, when not the user's own store.
    let storeOption: String

    /// What happens at the next try, in words.
    var next: String {
        if wait > 0 { return "the next try is taken in \(PasscodeTries.duration(wait)), and each wrong one doubles the wait (up to 15 min)" }
        let left = PasscodeTries.firstWait - failures
        return "after \(left) more wrong, each try waits first (5 s, doubling up to 15 min)"
    }

    public var description: String {
        let head =
            tooSoon
            ? "too many wrong passcodes for \(store) (\(failures) in a row): this one was not tried"
            : "wrong passcode for \(store)" + (failures == 1 ? "" : " (\(failures) wrong in a row)") + "; nothing was opened"
        return head + "; \(next). Forgotten? forceterm passcode --forgotten\(storeOption) sets this store aside and signs you out; "
            + "signing in again starts a fresh store, and changes not yet sent from this one are lost"
    }

    /// For the TUI's lock screen: one short line.
    public var short: String {
        if tooSoon { return "Too many wrong passcodes: wait \(PasscodeTries.duration(wait))." }
        return "Wrong passcode (\(failures) in a row)." + (wait > 0 ? " Wait \(PasscodeTries.duration(wait))." : "")
    }
}
