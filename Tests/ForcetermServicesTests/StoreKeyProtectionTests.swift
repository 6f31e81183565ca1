import ContactsApp
import ForceAPI
import Foundation
import SmartStore
import Testing

@testable import ForcetermServices

@Suite("The store key: sealed by the passcode, kept unlocked in the kernel keyring")
struct StoreKeyProtectionTests {
    @Test func aSealedKeyOpensWithItsPasscodeOnly() throws {
        let key = StoreKey.random()
        let wrapped = try WrappedStoreKey.seal(key, passcode: "correct horse")
        #expect(try wrapped.open(passcode: "correct horse") == key)
        #expect(try wrapped.open(passcode: "correct hors") == nil)
        #expect(try wrapped.open(passcode: "") == nil)
        #expect(wrapped.iterations == 256_000 && wrapped.kdf == "PBKDF2-HMAC-SHA512")
        // A new salt each time: the same key and passcode never seal to the same bytes.
        let again = try WrappedStoreKey.seal(key, passcode: "correct horse")
        #expect(again.salt != wrapped.salt && again.sealed != wrapped.sealed)
        var damaged = wrapped
        damaged.sealed = Data(repeating: 7, count: 60).base64EncodedString()
        #expect(try damaged.open(passcode: "correct horse") == nil)
    }

    @Test func theKeyringForgetsAKeyAfterItsTimeoutAndAtLock() async throws {
        let store = "/nonexistent/forceterm-keyring-test-\(UUID().uuidString)/store.sqlite"
        let keyring = SessionKeyring(timeout: 1)
        let key = StoreKey.random()
        #expect(keyring.key(forStore: store) == nil)
        try keyring.remember(key, forStore: store)
        #expect(keyring.key(forStore: store) == key)
        try await Task.sleep(for: .milliseconds(2_200))
        #expect(keyring.key(forStore: store) == nil, "expired after a second without use")

        let longer = SessionKeyring(timeout: 60)
        try longer.remember(key, forStore: store)
        #expect(longer.key(forStore: store + "-other") == nil, "one entry per store")
        #expect(longer.forget(store: store))
        #expect(longer.key(forStore: store) == nil)
        #expect(!longer.forget(store: store))
    }

    @Test func askingWhetherAStoreIsUnlockedIsNotUse() async throws {
        let store = "/nonexistent/forceterm-keyring-test-\(UUID().uuidString)/store.sqlite"
        let keyring = SessionKeyring(timeout: 2)
        #expect(!keyring.isUnlocked(store: store))
        try keyring.remember(StoreKey.random(), forStore: store)
        #expect(keyring.isUnlocked(store: store))
        // Asked every half second (as the TUI does, each second): the timeout runs on regardless.
        for _ in 0..<6 {
            try await Task.sleep(for: .milliseconds(500))
            _ = keyring.isUnlocked(store: store)
        }
        #expect(!keyring.isUnlocked(store: store), "expired: asking is not use")
        try keyring.remember(StoreKey.random(), forStore: store)
        #expect(keyring.forget(store: store))
        #expect(!keyring.isUnlocked(store: store), "forceterm lock")
    }

    @Test func aFirstPasscodeAtSignInMeetsTheOrgsPinLength() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("forceterm-pin-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = directory + "/store.sqlite"
        let keyring = SessionKeyring(timeout: 60)
        defer { keyring.forget(store: store) }
        // At sign-in the session is not saved yet: the identity's policy is given, not read from disk.
        let org = LockPolicy(org: MobilePolicy(pinLength: 8), userLockAfter: nil)
        var asked: Int?
        #expect(throws: ConfigError.self) {
            try StorePasscode.set(store: store, keyring: keyring, policy: org) { minimum in
                asked = minimum
                return "six-ch"
            }
        }
        #expect(asked == 8, "the prompt names the org's length")
        #expect(!FileManager.default.fileExists(atPath: WrappedStoreKey.file(forStore: store)), "nothing saved")
        let set = try StorePasscode.set(store: store, keyring: keyring, policy: org) { _ in "eight-ch" }
        #expect(set.hasPrefix("Passcode set"))
    }

    @Test func theStricterOfTheOrgsPolicyAndConfigTomlWins() throws {
        let none = LockPolicy(org: nil, userLockAfter: nil)
        #expect(none.idleSeconds == 15 * 60 && !none.locksScreen && none.minimumPasscodeLength == 4)
        let org = LockPolicy(org: MobilePolicy(pinLength: 6, screenLockMinutes: 10), userLockAfter: nil)
        #expect(org.idleSeconds == 600 && org.locksScreen && org.minimumPasscodeLength == 6 && org.reason == "your org's policy")
        #expect(org.idleDescription == "10 minutes")
        let sooner = LockPolicy(org: MobilePolicy(screenLockMinutes: 10), userLockAfter: 90)
        #expect(sooner.idleSeconds == 90 && sooner.reason == "config.toml's lock-after" && sooner.idleDescription == "90 seconds")
        let later = LockPolicy(org: MobilePolicy(screenLockMinutes: 1), userLockAfter: 600)
        #expect(later.idleSeconds == 60, "the user cannot loosen the org's policy")
        #expect(LockPolicy(org: MobilePolicy(pinLength: 2), userLockAfter: nil).minimumPasscodeLength == 4)
        #expect(LockPolicy(org: nil, userLockAfter: 3).locksScreen)
    }

    @Test func configTomlTakesLockAfterInSeconds() throws {
        #expect(try UserSettings.parse("[security]\nlock-after = 300\n").lockAfter == 300)
        #expect(throws: SettingsProblem.self) { try UserSettings.parse("[security]\nlock-after = 0\n") }
        #expect(throws: SettingsProblem.self) { try UserSettings.parse("[security]\nlock-after = \"5m\"\n") }
        #expect(throws: SettingsProblem.self) { try UserSettings.parse("[security]\nscreen-lock = 5\n") }
    }
}
