import CKeyring
import ContactsApp
import Foundation
import SmartStore

/// Store keys kept unlocked in the kernel's session keyring, the way ssh-agent and gpg-agent keep
/// theirs for a terminal user: every process of one login (each SSH terminal, tmux, the TUI and
/// `forceterm sync`) finds the key there, no other user or login can read it, and it is gone when the
/// login ends, when `forceterm lock` forgets it, or after `timeout` seconds without use.
public struct SessionKeyring: Sendable {
    /// How long an unlocked key lasts without being used.
    public let timeout: Int

    public init(timeout: Int = SessionKeyring.defaultTimeout) { self.timeout = timeout }

    /// 15 minutes, when the org's policy says nothing.
    public static let defaultTimeout = 15 * 60

    /// The key's name in the keyring: one per store file, however it is named (relative, `./`,
    /// through a symbolic link), so that `lock` finds what `unlock` kept.
    static func description(forStore path: String) -> String {
        "forceterm:store:" + URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
    }

    /// Whether this login has a session keyring of its own. Without one (no `pam_keyinit` in the
    /// login's PAM session: a container's shell, a CI runner), processes use the user's default
    /// session keyring, which every such login of the user shares: an unlock then reaches them all.
    public static var isPerLogin: Bool { forceterm_session_keyring() != forceterm_user_session_keyring() }

    /// What to add to "unlocked" when the login has no keyring of its own.
    public static var sharedLoginsNote: String? {
        isPerLogin
            ? nil
            : "Note: this login has no keyring of its own (no pam_keyinit in its PAM session), so every such login of "
                + "this user on this machine shares the unlocked key until it times out or forceterm lock; "
                + "\"session optional pam_keyinit.so force revoke\" in its PAM file (/etc/pam.d/sshd for SSH) keeps it to one login."
    }

    /// `sharedLoginsNote` on a line of its own, or nothing.
    public static var sharedLoginsSuffix: String { sharedLoginsNote.map { "\n" + $0 } ?? "" }

    /// The unlocked key of the store at `path`, its timeout restarted; nil when locked.
    public func key(forStore path: String) -> StoreKey? {
        let serial = forceterm_keyctl_search(forceterm_session_keyring(), Self.description(forStore: path))
        guard serial >= 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: StoreKey.byteCount)
        guard forceterm_keyctl_read(serial, &bytes, bytes.count) == StoreKey.byteCount else { return nil }
        _ = forceterm_keyctl_set_timeout(serial, UInt32(timeout))
        return StoreKey(bytes: bytes)
    }

    /// Whether the store at `path` is unlocked, without counting as use (its timeout runs on).
    public func isUnlocked(store path: String) -> Bool {
        forceterm_keyctl_search(forceterm_session_keyring(), Self.description(forStore: path)) >= 0
    }

    /// Keeps `key` unlocked for the store at `path`.
    public func remember(_ key: StoreKey, forStore path: String) throws {
        let serial = key.bytes.withUnsafeBytes { payload in
            forceterm_add_key(Self.description(forStore: path), payload.baseAddress, payload.count, forceterm_session_keyring())
        }
        guard serial >= 0 else {
            throw ConfigError("cannot keep the store unlocked in the kernel keyring (\(String(cString: strerror(errno)))); forceterm will ask for the passcode each time")
        }
        _ = forceterm_keyctl_possessor_only(serial)
        _ = forceterm_keyctl_set_timeout(serial, UInt32(timeout))
    }

    /// Forgets the store's key at once; false when it was not unlocked.
    @discardableResult
    public func forget(store path: String) -> Bool {
        let serial = forceterm_keyctl_search(forceterm_session_keyring(), Self.description(forStore: path))
        guard serial >= 0 else { return false }
        return forceterm_keyctl_invalidate(serial) == 0
    }
}
