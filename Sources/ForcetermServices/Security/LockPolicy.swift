import ForceAPI
import Foundation

/// How a passcode-protected store is guarded: how long it stays unlocked without use (the kernel
/// keyring's timeout, and the TUI's screen lock), and how long a new passcode must be. The org's
/// mobile policy (saved with the session at sign-in: `screen_lock`, `pin_length`) and config.toml's
/// `[security] lock-after` both apply; the stricter wins.
public struct LockPolicy: Sendable, Equatable {
    /// Seconds without use before the key is forgotten and the TUI locks.
    public var idleSeconds: Int
    /// Whether the TUI locks its screen after `idleSeconds` without a key: only when the org or the
    /// user asks for it. (It always locks when the login's keyring forgets the key, which happens
    /// after `idleSeconds` without any forceterm using it.)
    public var locksScreen: Bool
    public var minimumPasscodeLength: Int
    /// Who set `idleSeconds`, for the lock screen.
    public var reason: String

    public static func forStore(_ path: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> LockPolicy {
        let credentials = CredentialStore(directory: CredentialStore.defaultDirectory(environment: environment))
        let saved = try? credentials.load()
        let org = saved.flatMap { credentials.storePath(for: $0) == path ? $0.mobilePolicy : nil }
        let user = UserSettings.load(path: UserSettings.path(environment: environment)).settings.lockAfter
        return LockPolicy(org: org, userLockAfter: user)
    }

    public init(org: MobilePolicy?, userLockAfter: Int?) {
        let orgSeconds = org?.screenLockMinutes.map { $0 * 60 }
        switch (orgSeconds, userLockAfter) {
        case let (org?, user?) where user < org:
            idleSeconds = user
            reason = "config.toml's lock-after"
        case let (org?, _):
            idleSeconds = org
            reason = "your org's policy"
        case let (nil, user?):
            idleSeconds = user
            reason = "config.toml's lock-after"
        case (nil, nil):
            idleSeconds = SessionKeyring.defaultTimeout
            reason = "forceterm's default"
        }
        locksScreen = orgSeconds != nil || userLockAfter != nil
        minimumPasscodeLength = max(org?.pinLength ?? Passcode.defaultMinimumLength, Passcode.defaultMinimumLength)
    }

    /// "10 minutes", "45 seconds".
    public var idleDescription: String {
        idleSeconds % 60 == 0 ? "\(idleSeconds / 60) minute\(idleSeconds == 60 ? "" : "s")" : "\(idleSeconds) seconds"
    }
}

extension SessionKeyring {
    /// The keyring with the store's lock policy as its timeout.
    public static func forStore(_ path: String) -> SessionKeyring { SessionKeyring(timeout: LockPolicy.forStore(path).idleSeconds) }
}
