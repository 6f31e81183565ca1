import ContactsApp
import Crypto
import Foundation
import SmartStore
import _CryptoExtras

/// A store's key, wrapped by the user's passcode, in a file beside the store
/// (`<store>.passcode-key`, 0600): PBKDF2-HMAC-SHA512 with SQLCipher 4's 256,000 iterations turns
/// the passcode into a key that seals the store key with AES-256-GCM. The passcode itself is
/// stored nowhere; changing it re-seals the same store key, so the store is not re-encrypted.
/// Wrong tries are counted in the file, so the count survives a restart.
public struct WrappedStoreKey: Codable, Sendable, Equatable {
    public static let iterations = 256_000

    public var kdf = "PBKDF2-HMAC-SHA512"
    public var iterations: Int
    /// Base64: 16 random bytes.
    public var salt: String
    /// Base64: AES-GCM's nonce, the sealed 32-byte key and its tag.
    public var sealed: String
    /// Wrong passcodes since the last right one.
    public var failedAttempts = 0
    /// When the last wrong one was given (seconds since 1970): from `PasscodeTries.firstWait`
    /// wrong ones in a row, the next try waits from then.
    public var lastFailure: Double?

    public static func file(forStore path: String) -> String { path + ".passcode-key" }

    /// Seals `key` with `passcode`.
    public static func seal(_ key: StoreKey, passcode: String, iterations: Int = iterations) throws -> WrappedStoreKey {
        var generator = SystemRandomNumberGenerator()
        let salt = (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let wrapping = try derive(passcode: passcode, salt: salt, iterations: iterations)
        guard let combined = try AES.GCM.seal(key.bytes, using: wrapping).combined else {
            throw ConfigError("cannot seal the store key (AES-GCM gave no output)")
        }
        return WrappedStoreKey(iterations: iterations, salt: Data(salt).base64EncodedString(), sealed: combined.base64EncodedString())
    }

    /// The store key, or nil when `passcode` is not the one it was sealed with.
    public func open(passcode: String) throws -> StoreKey? {
        guard let salt = Data(base64Encoded: self.salt), let sealed = Data(base64Encoded: self.sealed), kdf == "PBKDF2-HMAC-SHA512" else {
            throw ConfigError("the passcode-protected key is damaged (unreadable salt, key or method); sign in again to start a fresh store")
        }
        let wrapping = try Self.derive(passcode: passcode, salt: Array(salt), iterations: iterations)
        guard let box = try? AES.GCM.SealedBox(combined: sealed), let bytes = try? AES.GCM.open(box, using: wrapping) else { return nil }
        return StoreKey(bytes: Array(bytes))
    }

    private static func derive(passcode: String, salt: [UInt8], iterations: Int) throws -> SymmetricKey {
        try KDF.Insecure.PBKDF2.deriveKey(
            from: Array(passcode.utf8), salt: salt, using: .sha512, outputByteCount: 32,
            unsafeUncheckedRounds: iterations)
    }

    // MARK: The file

    public static func read(forStore path: String) throws -> WrappedStoreKey? {
        try OwnerOnlyFile.readJSON(
            WrappedStoreKey.self, from: file(forStore: path),
            damaged: "the store cannot be unlocked without it: sign in again to start a fresh store")
    }

    /// Replaces the file whole, owner-only.
    public func write(forStore path: String) throws { try OwnerOnlyFile.writeJSON(self, to: Self.file(forStore: path)) }
}
