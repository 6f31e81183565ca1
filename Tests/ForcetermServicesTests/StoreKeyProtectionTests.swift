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

    @Test func theKeyringForgetsAKeyAfterItsTimeoutAndAtLock() throws {
        let store = "/nonexistent/forceterm-keyring-test-\(UUID().uuidString)/store.sqlite"
        let keyring = SessionKeyring(timeout: 1)
        let key = StoreKey.random()
        #expect(keyring.key(forStore: store) == nil)
        try keyring.remember(key, forStore: store)
        #expect(keyring.key(forStore: store) == key)
        Thread.sleep(forTimeInterval: 2.2)
        #expect(keyring.key(forStore: store) == nil, "expired after a second without use")

        let longer = SessionKeyring(timeout: 60)
        try longer.remember(key, forStore: store)
        #expect(longer.key(forStore: store + "-other") == nil, "one entry per store")
        #expect(longer.forget(store: store))
        #expect(longer.key(forStore: store) == nil)
        #expect(!longer.forget(store: store))
    }
}
