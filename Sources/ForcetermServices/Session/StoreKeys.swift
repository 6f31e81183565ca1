import ContactsApp
import ForceAPI
import Foundation
import SmartStore

/// A passcode-protected store that is not unlocked in this login, with no passcode to be had.
public struct StoreLocked: Error, Equatable, CustomStringConvertible {
    public let path: String
    public var description: String {
        "your store \(path) is locked: run forceterm unlock in this login first, or give the passcode in \(Passcode.variable) (scripts)"
    }
    /// For the TUI, which unlocks on its own lock screen.
    public var short: String { "the store is locked in this login (forceterm lock, or its timeout): unlock it to sync" }
}

/// Which key opens one of forceterm's stores, in this order:
/// - a key file beside the store (`<store>.key`, 0600): the demo's store has a key of its own, so
///   the demo runs on the same encrypted files as everyone's without asking anything;
/// - a key wrapped by the user's passcode (`<store>.passcode-key`): taken from the session keyring
///   while unlocked, else unwrapped with the passcode (`FORCETERM_PASSCODE`, or asked) and kept
///   unlocked there;
/// - neither: the store is not encrypted (until `forceterm passcode` sets a passcode).
public enum StoreKeys {
    public static func keyFile(forStore path: String) -> String { path + ".key" }

    /// How the store at `path` is opened.
    public static func encryption(forStore path: String, passcode: Passcode = Passcode(), keyring: SessionKeyring? = nil) throws -> StoreEncryption {
        let file = keyFile(forStore: path)
        if FileManager.default.fileExists(atPath: file) { return .encrypted(try StoreKey(contentsOfFile: file)) }
        if let wrapped = try WrappedStoreKey.read(forStore: path) {
            return .encrypted(try unlock(store: path, wrapped: wrapped, passcode: passcode, keyring: keyring ?? .forStore(path)))
        }
        return .plain
    }

    /// What to tell a user who named an unencrypted SQLite file with `--store` (an SDK store copied
    /// off a device, a test fixture): it is used as it is, neither refused nor encrypted behind
    /// their back. Nil for any other file (encrypted, absent, not SQLite) and for one with a key
    /// that will encrypt it.
    public static func unencryptedNote(forExplicitStore path: String) -> String? {
        guard !FileManager.default.fileExists(atPath: keyFile(forStore: path)),
              !FileManager.default.fileExists(atPath: WrappedStoreKey.file(forStore: path)),
              SmartStore.isUnencryptedFile(atPath: path) else { return nil }
        return "note: \(path) is not encrypted (a store named with --store is used as it is); forceterm passcode --store \(path) encrypts it"
    }

    /// Opens the store at `path` with its key; an unencrypted store that has a key is encrypted first.
    public static func open(_ path: String, mustExist: Bool = false) throws -> SmartStore {
        try SmartStore(path: path, mustExist: mustExist, encryption: try encryption(forStore: path))
    }

    /// The key of a passcode-protected store: the unlocked one in the keyring, else unwrapped with
    /// the passcode and kept unlocked.
    public static func unlock(store path: String, wrapped: WrappedStoreKey, passcode: Passcode, keyring: SessionKeyring) throws -> StoreKey {
        if let key = keyring.key(forStore: path) { return key }
        guard let given = passcode.toUnlock(prompt: "Passcode for forceterm: ") else { throw StoreLocked(path: path) }
        return try unwrap(wrapped, passcode: given, store: path, keyring: keyring)
    }

    /// Unwraps with `passcode`; a wrong one is counted (in the file) and said.
    static func unwrap(_ wrapped: WrappedStoreKey, passcode: String, store path: String, keyring: SessionKeyring) throws -> StoreKey {
        var wrapped = wrapped
        guard let key = try wrapped.open(passcode: passcode) else {
            wrapped.failedAttempts += 1
            try? wrapped.write(forStore: path)
            let times = wrapped.failedAttempts == 1 ? "" : " (\(wrapped.failedAttempts) wrong in a row)"
            throw ConfigError("wrong passcode for \(path)\(times); nothing was opened. Forgotten? forceterm passcode --forgotten sets this store "
                              + "aside and signs you out; signing in again starts a fresh store, and changes not yet sent from this one are lost")
        }
        if wrapped.failedAttempts > 0 {
            wrapped.failedAttempts = 0
            try? wrapped.write(forStore: path)
        }
        try? keyring.remember(key, forStore: path)
        return key
    }

    /// The key of a passcode-protected store (unlocking it if need be); nil for a store without a passcode.
    public static func passcodeKey(forStore path: String, passcode: Passcode = Passcode(), keyring: SessionKeyring? = nil) throws -> StoreKey? {
        guard let wrapped = try WrappedStoreKey.read(forStore: path) else { return nil }
        return try unlock(store: path, wrapped: wrapped, passcode: passcode, keyring: keyring ?? .forStore(path))
    }

    /// Credentials as they are saved for the store at `path`: tokens sealed with its key once it has a passcode.
    public static func sealingTokens(_ credentials: OAuthCredentials, store path: String) throws -> OAuthCredentials {
        guard let key = try passcodeKey(forStore: path) else { return credentials }
        return try SealedTokens.seal(credentials, with: key)
    }

    /// Gives the store at `path` a new random key file unless it has one; the store, new or from
    /// before (unencrypted), is encrypted with it when next opened.
    public static func createKeyFile(forStore path: String) throws {
        let file = keyFile(forStore: path)
        guard !FileManager.default.fileExists(atPath: file) else { return }
        if SmartStore.isEncryptedFile(atPath: path) {
            throw ConfigError("the store \(path) is encrypted but its key file \(file) is gone; without it the store cannot be read: remove the store to start a fresh one (forceterm --demo --reset does for the demo)")
        }
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        do {
            try StoreKey.random().write(toFile: file)
        } catch {
            // Another process made it first: that one is the key.
            guard (try? StoreKey(contentsOfFile: file)) != nil else { throw error }
        }
    }
}
