import ContactsApp
import ForceAPI
import Foundation
import SmartStore

/// `forceterm passcode`, `unlock` and `lock`: the passcode that protects a store's key, and the
/// key kept unlocked in the session keyring. Each returns the line to print. The store's
/// `LockPolicy` (the org's and config.toml's) sets how long it stays unlocked and how long a
/// passcode must be.
public enum StorePasscode {
    /// Sets the store's first passcode, which seals the key of its key file (or encrypts a store not yet encrypted),
    /// or changes it: the same key sealed anew, so nothing is re-encrypted. `newPasscode` is given
    /// the length the policy asks for. A store other than the user's own, while theirs has a
    /// passcode, takes the user's key instead (`share`).
    /// `policy` is the saved session's unless given (at sign-in, before the session is saved).
    /// `sharing: false` at sign-in, where the signed-in user is still the previous one, whose key is not this store's to take.
    public static func set(
        store path: String, current: Passcode = Passcode(), keyring: SessionKeyring? = nil, policy: LockPolicy? = nil,
        sharing: Bool = true, newPasscode: (_ minimumLength: Int) throws -> String
    ) throws -> String {
        let policy = policy ?? LockPolicy.forStore(path)
        let keyring = keyring ?? SessionKeyring(timeout: policy.idleSeconds)
        let keyFile = StoreKeys.keyFile(forStore: path)
        if StoreKeys.isDemoStore(path), FileManager.default.fileExists(atPath: keyFile) {
            throw ConfigError("\(path) is the demo's store: its key file (\(keyFile)) is its key, so the demo runs without questions; it takes no passcode")
        }
        if let shared = try SharedStoreKey.read(forStore: path) {
            throw ConfigError(
                "\(path) is encrypted with the key of the store \(shared.store) and opens with its passcode: "
                    + "forceterm passcode --store \(shared.store) changes that passcode, for both")
        }
        if let wrapped = try WrappedStoreKey.read(forStore: path) {
            guard let given = current.fromEnvironment ?? PasswordInput.readLine(prompt: "Current passcode: ") else {
                throw ConfigError("changing the passcode needs the current one: type it at the prompt, give it on standard input, or in \(Passcode.variable)")
            }
            let key = try StoreKeys.unwrap(wrapped, passcode: given, store: path, keyring: keyring)
            let resealed = try WrappedStoreKey.seal(key, passcode: try checked(try newPasscode(policy.minimumPasscodeLength), policy))
            // Under the tries' lock: a wrong try elsewhere meanwhile must not write the old sealed key back.
            let lock = try FileLock.acquire(path: WrappedStoreKey.file(forStore: path) + ".lock")
            try withExtendedLifetime(lock) { try resealed.write(forStore: path) }
            return "Passcode changed. The store keeps its key, so nothing was re-encrypted; it stays unlocked in this login for \(policy.idleDescription) without use."
        }
        if sharing, let (owner, key) = try StoreKeys.userKeyToShare(with: path) {
            return try share(key, of: owner, withStore: path)
        }
        let passcode = try checked(try newPasscode(policy.minimumPasscodeLength), policy)
        if FileManager.default.fileExists(atPath: keyFile) {
            return try protectKeyFile(ofStore: path, passcode: passcode, keyring: keyring, policy: policy)
        }
        let key = StoreKey.random()
        // The sealed key is on disk before any page is encrypted with it.
        try WrappedStoreKey.seal(key, passcode: passcode).write(forStore: path)
        TestCrashPoint.reached(.sealed)
        try? keyring.remember(key, forStore: path)
        TestCrashPoint.reached(.remembered)
        guard FileManager.default.fileExists(atPath: path) else {
            try sealSavedSession(ofStore: path, with: key)
            return "Passcode set. Your store \(path) is written encrypted from its first sync." + SessionKeyring.sharedLoginsSuffix
        }
        do {
            _ = try SmartStore(path: path, mustExist: true, encryption: .encrypted(key))
        } catch {
            // Not encrypted after all (another forceterm holds it): as if nothing happened.
            try? FileManager.default.removeItem(atPath: WrappedStoreKey.file(forStore: path))
            keyring.forget(store: path)
            throw error
        }
        TestCrashPoint.reached(.encrypted)
        try sealSavedSession(ofStore: path, with: key)
        return "Passcode set. Your store \(path) is now encrypted; it stays unlocked in this login for \(policy.idleDescription) without use (forceterm lock locks it now)."
            + SessionKeyring.sharedLoginsSuffix
    }

    /// A store already encrypted with a key file beside it: the passcode seals that key, and the
    /// key file goes, so nothing is re-encrypted. Sealed first: a crash between the two leaves both,
    /// and the next unlock removes the key file.
    static func protectKeyFile(ofStore path: String, passcode: String, keyring: SessionKeyring, policy: LockPolicy) throws -> String {
        let key = try StoreKey(contentsOfFile: StoreKeys.keyFile(forStore: path))
        try WrappedStoreKey.seal(key, passcode: passcode).write(forStore: path)
        TestCrashPoint.reached(.sealed)
        try? keyring.remember(key, forStore: path)
        TestCrashPoint.reached(.remembered)
        try StoreKeys.removeKeyFileReplaced(by: key, store: path)
        TestCrashPoint.reached(.keyFileRemoved)
        try sealSavedSession(ofStore: path, with: key)
        return "Passcode set. Your store \(path) keeps its key, now sealed by the passcode (the key file beside it is gone), so nothing was "
            + "re-encrypted; it stays unlocked in this login for \(policy.idleDescription) without use (forceterm lock locks it now)." + SessionKeyring.sharedLoginsSuffix
    }

    /// A store other than the user's own, while theirs has a passcode: encrypted (in place, when it
    /// exists) with the user's key rather than given a passcode of its own, so one passcode opens both.
    static func share(_ key: StoreKey, of owner: String, withStore path: String) throws -> String {
        // The reference is on disk before any page is encrypted with the key.
        try SharedStoreKey(store: owner, key: key).write(forStore: path)
        guard FileManager.default.fileExists(atPath: path) else {
            return "\(path) will be written encrypted with the key of your store \(owner), and opens with its passcode."
        }
        do {
            _ = try SmartStore(path: path, mustExist: true, encryption: .encrypted(key))
        } catch {
            try? FileManager.default.removeItem(atPath: SharedStoreKey.file(forStore: path))
            throw error
        }
        return "\(path) is now encrypted with the key of your store \(owner): it opens with your passcode, and forceterm lock and "
            + "unlock cover both (forceterm passcode changes the passcode of both)."
    }

    /// A passcode of the length the policy asks for.
    static func checked(_ passcode: String, _ policy: LockPolicy) throws -> String {
        guard passcode.count >= policy.minimumPasscodeLength else {
            let who = policy.minimumPasscodeLength > Passcode.defaultMinimumLength ? " (your org's policy)" : ""
            throw ConfigError("a passcode needs at least \(policy.minimumPasscodeLength) characters\(who); nothing was changed")
        }
        return passcode
    }

    /// The signed-in session, when this store is its user's, saved again with its tokens sealed.
    static func sealSavedSession(ofStore path: String, with key: StoreKey) throws {
        let credentials = CredentialStore(directory: CredentialStore.defaultDirectory())
        guard let saved = try? credentials.load(), credentials.storePath(for: saved) == path, !SealedTokens.areSealed(saved) else { return }
        try credentials.save(try SealedTokens.seal(saved, with: key))
    }

    /// After signing in: a store that has no passcode yet gets one, from `FORCETERM_PASSCODE` or
    /// chosen at the prompt, and is encrypted (with what it holds already). Without a terminal or
    /// the variable, the store stays unencrypted and the line returned says how to change that.
    /// `policy` is the org's, from the identity just read (not yet saved).
    /// Refuses, before a sign-in writes anything, one whose org asks for a passcode that cannot be had
    /// (no `FORCETERM_PASSCODE`, no terminal) for a store that has none yet.
    public static func checkCanProtectAtSignIn(store path: String, org: MobilePolicy?, passcode: Passcode = Passcode()) throws {
        guard let org, org.pinLength != nil || org.screenLockMinutes != nil, !StoreKeys.hasPasscode(path), !StoreKeys.isDemoStore(path),
            passcode.fromEnvironment == nil, !Passcode.canAsk, !Passcode.canAskOnTerminal
        else { return }
        let length = LockPolicy(org: org, userLockAfter: nil).minimumPasscodeLength
        throw ConfigError(
            "your org's policy asks for a passcode (\(length) characters or more), and there is no terminal to "
                + "choose one at: give it in \(Passcode.variable), or sign in at a terminal; nothing was saved")
    }

    public static func protectAtSignIn(store path: String, org: MobilePolicy?, passcode: Passcode = Passcode()) throws -> String {
        if StoreKeys.hasPasscode(path) || StoreKeys.isDemoStore(path) { return "" }
        let policy = LockPolicy(org: org, userLockAfter: UserSettings.load(path: UserSettings.path()).settings.lockAfter)
        let keyring = SessionKeyring(timeout: policy.idleSeconds)
        if let given = passcode.fromEnvironment {
            guard given.count >= policy.minimumPasscodeLength else {
                throw ConfigError("\(Passcode.variable) has fewer than the \(policy.minimumPasscodeLength) characters a passcode needs here; nothing was saved")
            }
            return try set(store: path, keyring: keyring, policy: policy, sharing: false) { _ in given }
        }
        let onTerminal = !Passcode.canAsk && Passcode.canAskOnTerminal
        guard Passcode.canAsk || onTerminal else {
            try checkCanProtectAtSignIn(store: path, org: org, passcode: passcode)
            try StoreKeys.createKeyFile(forStore: path)
            return "Your store on this machine is encrypted with a key kept beside it, which a lost laptop gives away too: forceterm passcode "
                + "protects the key with a passcode (scripts give it in \(Passcode.variable))."
        }
        let intro =
            "forceterm keeps your contacts encrypted on this machine. Choose a passcode: forceterm asks for it after \(policy.idleDescription) "
            + "without use, and a forgotten one means signing in again and starting a fresh store.\n"
        StandardStreams.writeError(intro)
        return try set(store: path, keyring: keyring, policy: policy, sharing: false) { try Passcode.new(minimumLength: $0, onTerminal: onTerminal) }
    }

    /// Asks for the passcode now, so that the next commands and terminals of this login need not.
    /// A store sharing another's key unlocks that one.
    public static func unlock(store: String, passcode: Passcode = Passcode(), keyring: SessionKeyring? = nil) throws -> String {
        let path = try StoreKeys.keyOwner(ofStore: store)
        let policy = LockPolicy.forStore(path)
        let keyring = keyring ?? SessionKeyring(timeout: policy.idleSeconds)
        let shared = try SharedStoreKey.read(forStore: store)
        if let shared, try WrappedStoreKey.read(forStore: path) == nil {
            _ = try StoreKeys.key(of: shared, forStore: store, passcode: passcode, keyring: keyring)  // says why it cannot be opened
        }
        let said = try unlockOwnKey(store: path, passcode: passcode, keyring: keyring, policy: policy)
        // The same checks as opening the store: the key it shares is still its key.
        if let shared { _ = try StoreKeys.key(of: shared, forStore: store, passcode: passcode, keyring: keyring) }
        return said
    }

    private static func unlockOwnKey(store path: String, passcode: Passcode, keyring: SessionKeyring, policy: LockPolicy) throws -> String {
        guard let wrapped = try WrappedStoreKey.read(forStore: path) else {
            guard FileManager.default.fileExists(atPath: path) else { throw ConfigError("there is no store at \(path); nothing to unlock") }
            let how =
                FileManager.default.fileExists(atPath: StoreKeys.keyFile(forStore: path))
                ? "it opens with the key file beside it; forceterm passcode\(StoreKeys.storeOption(for: path)) seals that key with one"
                : "forceterm passcode\(StoreKeys.storeOption(for: path)) sets one and encrypts it"
            throw ConfigError("the store \(path) has no passcode, so there is nothing to unlock (\(how))")
        }
        if let key = keyring.key(forStore: path) {
            try? StoreKeys.removeKeyFileReplaced(by: key, store: path)
            return "Already unlocked in this login; unlocked for another \(policy.idleDescription) from now." + SessionKeyring.sharedLoginsSuffix
        }
        // Asked here even from a pipe: unlocking is what this command is for.
        guard let given = passcode.fromEnvironment ?? PasswordInput.readLine(prompt: "Passcode for forceterm: ") else {
            throw ConfigError("no passcode given: type it at the prompt, give it on standard input, or in \(Passcode.variable)")
        }
        _ = try StoreKeys.unwrap(wrapped, passcode: given, store: path, keyring: keyring)
        let unlocked =
            "Unlocked for \(policy.idleDescription) without use, in every terminal of this login (forceterm lock locks it now)."
            + SessionKeyring.sharedLoginsSuffix
        guard given.count < policy.minimumPasscodeLength else { return unlocked }
        // The org raised its policy's pin length after this passcode was set (or an older forceterm
        // did not hold it to the org's length at sign-in).
        return unlocked + "\nYour org asks for passcodes of at least \(policy.minimumPasscodeLength) characters and yours has \(given.count): "
            + "run forceterm passcode to set a longer one."
    }

    /// Refuses, before anything is asked, a store whose passcode cannot be forgotten: none, or another store's.
    public static func checkForgettable(store path: String) throws {
        guard FileManager.default.fileExists(atPath: path) || FileManager.default.fileExists(atPath: WrappedStoreKey.file(forStore: path)) else {
            throw ConfigError("there is no store at \(path); nothing to forget")
        }
        if let shared = try SharedStoreKey.read(forStore: path) {
            let owner = StoreKeys.storeOption(for: shared.store)
            throw ConfigError(
                "\(path) has no passcode of its own: it opens with that of your store \(shared.store) "
                    + "(forceterm passcode --forgotten\(owner) sets that one aside, and this one cannot be opened after)")
        }
        guard FileManager.default.fileExists(atPath: WrappedStoreKey.file(forStore: path)) else {
            throw ConfigError("the store \(path) has no passcode to forget")
        }
    }

    /// A forgotten passcode: the locked store (with its sealed key, still encrypted, in case the
    /// passcode comes back) is moved into `set-aside/`, the saved session, whose tokens only that
    /// key opens, is removed, and the next sign-in starts a fresh store. What the old store held
    /// and never sent is not sent: it cannot be read without the passcode.
    public static func forget(store path: String, now: Date = Date()) throws -> String {
        try checkForgettable(store: path)
        let aside = OrgReset.defaultDirectory()
        try FileManager.default.createDirectory(atPath: aside, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let stamp = ISO8601DateFormatter().string(from: now).replacingOccurrences(of: ":", with: "-")
        let target = (aside as NSString).appendingPathComponent("forgotten-passcode-\(stamp).sqlite")
        // The key last: a crash between the two leaves the store where it was, still locked.
        for suffix in ["-wal", "-shm", ""] where FileManager.default.fileExists(atPath: path + suffix) {
            try FileManager.default.moveItem(atPath: path + suffix, toPath: target + suffix)
        }
        try FileManager.default.moveItem(atPath: WrappedStoreKey.file(forStore: path), toPath: WrappedStoreKey.file(forStore: target))
        // A key file an interrupted `forceterm passcode` left: the next store must not take it, nor anyone read it.
        try? StoreKeys.destroyKeyFile(ofStore: path)
        SessionKeyring().forget(store: path)
        let credentials = CredentialStore(directory: CredentialStore.defaultDirectory())
        var signedOut = ""
        if let saved = try? credentials.load(), credentials.storePath(for: saved) == path {
            _ = try credentials.remove()
            signedOut = " You are signed out: forceterm login starts a fresh store, synced from the org."
        }
        return
            "Set aside, still encrypted, in \(target) (its passcode opens it if you remember it: forceterm status --store \(target)); the changes it never sent are not sent; stores made with --store that shared its key cannot be opened now either.\(signedOut)"
    }

    /// Forgets the unlocked key at once (a shared key: for every store sharing it): the next command
    /// asks for the passcode again.
    public static func lock(store path: String) throws -> String {
        try SessionKeyring().forget(store: StoreKeys.keyOwner(ofStore: path)) ? "Locked: forceterm asks for the passcode again." : "Not unlocked in this login; nothing to lock."
    }
}
