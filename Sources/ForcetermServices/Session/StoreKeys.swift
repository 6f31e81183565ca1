import ContactsApp
import ForceAPI
import Foundation
import SmartStore

/// A passcode-protected store that is not unlocked in this login, with no passcode to be had.
public struct StoreLocked: Error, Equatable, CustomStringConvertible {
    public let path: String
    /// ` --store PATH` when the store is not the signed-in user's own, for the commands said.
    let storeOption: String

    public init(path: String, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.path = path
        storeOption = StoreKeys.storeOption(for: path, environment: environment)
    }

    public var description: String {
        "the store \(path) is locked: run forceterm unlock\(storeOption) in this login first, or give the passcode in \(Passcode.variable) (scripts)"
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
/// - the key of another store (`<store>.key-of`, `SharedStoreKey`): a store made while the
///   signed-in user's store has a passcode uses that store's key, unlocked as that store is;
/// - a store with none of these is not encrypted: only a SQLite file from elsewhere named with
///   `--store` (an SDK store off a device, a fixture), used as it is. Every store forceterm makes,
///   and every one of its own from before encryption (in its data directory), gets a key file when
///   opened and is encrypted, until a passcode takes the key file's place.
public enum StoreKeys {
    public static func keyFile(forStore path: String) -> String { path + ".key" }

    /// What commands about the store at `path` need: nothing for the signed-in user's own store
    /// (their default), else ` --store PATH`.
    static func storeOption(for path: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let own = StoreLocation.signedInStorePath(environment: environment).map { ($0 as NSString).standardizingPath }
        return own == (path as NSString).standardizingPath ? "" : " --store \(path)"
    }

    /// How the store at `path` is opened.
    public static func encryption(forStore path: String, passcode: Passcode = Passcode(), keyring: SessionKeyring? = nil) throws -> StoreEncryption {
        // The passcode first: a key file beside a sealed key is what an interrupted
        // `forceterm passcode` left, and goes once the passcode opens the sealed one.
        if let wrapped = try WrappedStoreKey.read(forStore: path) {
            return .encrypted(try unlock(store: path, wrapped: wrapped, passcode: passcode, keyring: keyring ?? .forStore(path)))
        }
        let file = keyFile(forStore: path)
        if FileManager.default.fileExists(atPath: file) { return .encrypted(try StoreKey(contentsOfFile: file)) }
        if let shared = try SharedStoreKey.read(forStore: path) {
            return .encrypted(try key(of: shared, forStore: path, passcode: passcode, keyring: keyring))
        }
        return .plain
    }

    /// Whether the store at `path` has a key of any kind (or will, once created).
    static func hasKey(_ path: String) -> Bool {
        FileManager.default.fileExists(atPath: keyFile(forStore: path)) || hasPasscode(path)
    }

    /// Whether the store at `path` opens with a passcode: its own, or that of the store whose key it shares.
    public static func hasPasscode(_ path: String) -> Bool {
        [WrappedStoreKey.file(forStore: path), SharedStoreKey.file(forStore: path)].contains { FileManager.default.fileExists(atPath: $0) }
    }

    /// Whether `path` is in forceterm's data directory: the users' stores, the signed-out and the
    /// global store, the demo's. A store there is forceterm's own, encrypted when opened even if an
    /// older forceterm wrote it unencrypted.
    static func isInDataDirectory(_ path: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        isInside(CredentialStore.defaultDirectory(environment: environment), path)
    }

    /// Whether the store at `path` belongs to the demo, whose key file is its key for good.
    static func isDemoStore(_ path: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        isInside(DemoDirectory(environment: environment).path, path)
    }

    /// Whether `path` is somewhere below `directory`, both as written (`..` and `.` resolved).
    private static func isInside(_ directory: String, _ path: String) -> Bool {
        let directory = (directory as NSString).standardizingPath
        return (path as NSString).standardizingPath.hasPrefix(directory.hasSuffix("/") ? directory : directory + "/")
    }

    /// The store whose passcode opens the store at `path`: itself, or the store whose key it shares.
    public static func keyOwner(ofStore path: String) throws -> String {
        try SharedStoreKey.read(forStore: path)?.store ?? path
    }

    /// The key a store shares with its owner: the owner's, unlocked as the owner is, when it is still
    /// the key the store was encrypted with.
    static func key(of shared: SharedStoreKey, forStore path: String, passcode: Passcode, keyring: SessionKeyring?) throws -> StoreKey {
        let replaced =
            "\(path) is encrypted with the key of the store \(shared.store), which that store no longer has (it was set aside "
            + "after a forgotten passcode, with the key sealed beside it in set-aside/); it cannot be opened with the key there now"
        guard let wrapped = try WrappedStoreKey.read(forStore: shared.store) else { throw ConfigError(replaced) }
        let key: StoreKey
        do {
            key = try unlock(store: shared.store, wrapped: wrapped, passcode: passcode, keyring: keyring ?? .forStore(shared.store))
        } catch is StoreLocked {
            throw ConfigError(
                "\(path) is encrypted with the key of the store \(shared.store), which is locked in this login: run "
                    + "forceterm unlock\(storeOption(for: shared.store)) first, or give its passcode in \(Passcode.variable) (scripts)")
        }
        guard shared.matches(key) else { throw ConfigError(replaced) }
        return key
    }

    /// A store about to be created with no key of its own (`--store`) takes the
    /// signed-in user's key when their store has a passcode, so it is encrypted from its first page
    /// and opens with the same passcode. Without such a passcode nothing is shared: `openWithKey`
    /// gives the new store a key file of its own, as it does the user's store.
    /// The global store is left out: it is every user's of this account, not one user's.
    static func shareUserKey(withNewStore path: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        guard !FileManager.default.fileExists(atPath: path), let (owner, key) = try userKeyToShare(with: path, environment: environment) else { return }
        try SharedStoreKey(store: owner, key: key).write(forStore: path)
    }

    /// The signed-in user's store and its key, unlocked, when the store at `path` has no key of its
    /// own, is neither that store nor the global one, and the user's store has a passcode.
    static func userKeyToShare(with path: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> (owner: String, key: StoreKey)? {
        let standardized = (path as NSString).standardizingPath
        guard !hasKey(path),
            standardized != (StoreLocation.global(environment: environment).path as NSString).standardizingPath,
            let owner = StoreLocation.signedInStorePath(environment: environment),
            (owner as NSString).standardizingPath != standardized,
            let wrapped = try WrappedStoreKey.read(forStore: owner)
        else { return nil }
        do {
            return (owner, try unlock(store: owner, wrapped: wrapped, passcode: Passcode(), keyring: .forStore(owner)))
        } catch is StoreLocked {
            throw ConfigError(
                "\(path) is to be encrypted with the key of your store \(owner), which is locked in this login: "
                    + "run forceterm unlock first, or give the passcode in \(Passcode.variable) (scripts)")
        }
    }

    /// What to tell a user who named an unencrypted SQLite file with `--store` (an SDK store copied
    /// off a device, a test fixture): it is used as it is, neither refused nor encrypted behind
    /// their back. Nil for any other file (encrypted, absent, not SQLite) and for one with a key
    /// that will encrypt it.
    public static func unencryptedNote(forExplicitStore path: String) -> String? {
        // One in forceterm's own directory is encrypted as it opens (and says so).
        guard !hasKey(path), !isInDataDirectory(path), SmartStore.isUnencryptedFile(atPath: path) else { return nil }
        return "note: \(path) is not encrypted (a store named with --store is used as it is); forceterm passcode --store \(path) encrypts it"
    }

    /// Opens the store at `path` with its key; an unencrypted store that has a key is encrypted
    /// first, and a new one takes the signed-in user's key when it has none of its own.
    public static func open(_ path: String, mustExist: Bool = false) throws -> SmartStore {
        try openWithKey(path, mustExist: mustExist).store
    }

    /// `open`, with the key that opened the store (nil: unencrypted), which the TUI's sync seals
    /// the session with. A `.key-of` written for a new store goes again if it could not be made.
    public static func openWithKey(_ path: String, mustExist: Bool = false) throws -> (store: SmartStore, key: StoreKey?) {
        let creating = !mustExist && !FileManager.default.fileExists(atPath: path)
        if creating { try shareUserKey(withNewStore: path) }
        // A store from before encryption, in forceterm's own place, is encrypted now (with the key
        // file a sign-in or an earlier try made, or a new one).
        let migrating = !creating && !hasPasscode(path) && isInDataDirectory(path) && SmartStore.isUnencryptedFile(atPath: path)
        let keyFileMade = (creating || migrating) && !hasKey(path)
        do {
            if keyFileMade { try createKeyFile(forStore: path) }
            let encryption = try encryption(forStore: path)
            let store = try SmartStore(path: path, mustExist: mustExist, encryption: encryption)
            if migrating { StandardStreams.writeError("forceterm: \(migrationNote(path))\n") }
            if case let .encrypted(key) = encryption { return (store, key) }
            return (store, nil)
        } catch SmartStoreError.storeInUse where migrating && SmartStore.isUnencryptedFile(atPath: path) {
            // An older forceterm still has it open: used as it is this time, and encrypted with the
            // key file (kept: another forceterm may be encrypting with it) once opened alone.
            StandardStreams.writeError(
                "forceterm: note: your store \(path) is not encrypted yet: another program (an older forceterm?) has it open; "
                    + "it is encrypted the first time forceterm opens it with nothing else holding it\n")
            return (try SmartStore(path: path, mustExist: mustExist, encryption: .plain), nil)
        } catch {
            if creating, !FileManager.default.fileExists(atPath: path) {
                try? FileManager.default.removeItem(atPath: SharedStoreKey.file(forStore: path))
                if keyFileMade { try? FileManager.default.removeItem(atPath: keyFile(forStore: path)) }
            }
            throw error
        }
    }

    /// Said once, when a store an older forceterm left unencrypted is encrypted on opening.
    static func migrationNote(_ path: String) -> String {
        "your store \(path) was not encrypted; it is now (SQLCipher 4), with a key kept beside it in \(keyFile(forStore: path)), "
            + "which a lost laptop gives away too: forceterm passcode\(storeOption(for: path)) protects the key with a passcode"
    }

    /// The key of a passcode-protected store: the unlocked one in the keyring, else unwrapped with
    /// the passcode and kept unlocked.
    public static func unlock(store path: String, wrapped: WrappedStoreKey, passcode: Passcode, keyring: SessionKeyring) throws -> StoreKey {
        if let key = keyring.key(forStore: path) {
            try? removeKeyFileReplaced(by: key, store: path)
            return key
        }
        // Which store, unless it is the user's own.
        let prompt = storeOption(for: path).isEmpty ? "Passcode for forceterm: " : "Passcode for forceterm (\(path)): "
        guard let given = passcode.toUnlock(prompt: prompt) else { throw StoreLocked(path: path) }
        return try unwrap(wrapped, passcode: given, store: path, keyring: keyring)
    }

    /// Unwraps with `passcode`; a wrong one is counted (in the file) and said, with what the next
    /// try costs (`PasscodeTries`). A try during the wait is refused unchecked.
    public static func unwrap(_ wrapped: WrappedStoreKey, passcode: String, store path: String, keyring: SessionKeyring, now: Date = Date()) throws -> StoreKey {
        // One try at a time per store, the count read and written under the lock: tries run side
        // by side would each see the count before the others' and so skip their waits.
        let lock = try FileLock.acquire(path: WrappedStoreKey.file(forStore: path) + ".lock")
        defer { withExtendedLifetime(lock) {} }
        // The file as it is now: another process may have counted a wrong try since `wrapped` was read.
        var wrapped = (try? WrappedStoreKey.read(forStore: path)).flatMap { $0 } ?? wrapped
        if let last = wrapped.lastFailure, last > now.timeIntervalSince1970 {
            // The clock was set back since: the wait runs from now, not until the clock is back there.
            wrapped.lastFailure = now.timeIntervalSince1970
            try? wrapped.write(forStore: path)
        }
        let waiting = PasscodeTries.remainingWait(wrapped, now: now)
        guard waiting == 0 else {
            throw PasscodeRefused(store: path, failures: wrapped.failedAttempts, wait: waiting, tooSoon: true, storeOption: storeOption(for: path))
        }
        guard let key = try wrapped.open(passcode: passcode) else {
            wrapped.failedAttempts += 1
            wrapped.lastFailure = now.timeIntervalSince1970
            try? wrapped.write(forStore: path)
            throw PasscodeRefused(
                store: path, failures: wrapped.failedAttempts, wait: PasscodeTries.wait(afterFailures: wrapped.failedAttempts),
                tooSoon: false, storeOption: storeOption(for: path))
        }
        if wrapped.failedAttempts > 0 || wrapped.lastFailure != nil {
            wrapped.failedAttempts = 0
            wrapped.lastFailure = nil
            try? wrapped.write(forStore: path)
        }
        try? keyring.remember(key, forStore: path)
        try? removeKeyFileReplaced(by: key, store: path)
        return key
    }

    /// Removes the store's key file once a passcode protects the same key: the key file is
    /// overwritten first, so the key is not left readable in its old blocks by an ordinary read.
    /// A key file holding another key stays (it is not the store's key; nothing reads it).
    static func removeKeyFileReplaced(by key: StoreKey, store path: String) throws {
        let file = keyFile(forStore: path)
        guard FileManager.default.fileExists(atPath: file), (try? StoreKey(contentsOfFile: file)) == key else { return }
        try destroyKeyFile(ofStore: path)
    }

    /// Overwrites and removes the store's key file, if any.
    static func destroyKeyFile(ofStore path: String) throws {
        let file = keyFile(forStore: path)
        guard FileManager.default.fileExists(atPath: file) else { return }
        if let handle = FileHandle(forWritingAtPath: file) {
            let size = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
            try handle.write(contentsOf: Data(repeating: 0, count: max(size, 64)))
            try handle.synchronize()
            try handle.close()
        }
        try FileManager.default.removeItem(atPath: file)
    }

    /// Credentials as they are saved for the store at `path`: tokens sealed with its key (the
    /// passcode's, else the key file's), so that credentials.json alone is no session.
    public static func sealingTokens(_ credentials: OAuthCredentials, store path: String) throws -> OAuthCredentials {
        guard let key = try sealingKey(forStore: path) else { return credentials }
        return try SealedTokens.seal(credentials, with: key)
    }

    /// The key the session's tokens are sealed with for the store at `path`: the one that opens the
    /// store (`encryption(forStore:)`, unlocking it if need be); nil when the store has none.
    public static func sealingKey(forStore path: String, passcode: Passcode = Passcode()) throws -> StoreKey? {
        guard case let .encrypted(key) = try encryption(forStore: path, passcode: passcode) else { return nil }
        return key
    }

    /// Gives the store at `path` a new random key file unless it has one; the store, new or from
    /// before (unencrypted), is encrypted with it when next opened.
    public static func createKeyFile(forStore path: String) throws {
        let file = keyFile(forStore: path)
        guard !FileManager.default.fileExists(atPath: file) else { return }
        if SmartStore.isEncryptedFile(atPath: path) {
            throw ConfigError(
                "the store \(path) is encrypted but its key file \(file) is gone; without it the store cannot be read: remove the store to start a fresh one (forceterm --demo --reset does for the demo)"
            )
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
