import ContactsApp
import Crypto
import Foundation
import SmartStore

/// A store encrypted with another store's key: a store made with `--store`
/// while the signed-in user's store has a passcode takes that store's key, as the SDK encrypts all
/// of an app's stores with one key. So one passcode, one `forceterm unlock`, one `lock` and one
/// timeout cover them all, and a passcode change reaches them at once. The file beside the store
/// (`<store>.key-of`, 0600) names the store whose key it is and holds a check value of that key,
/// never the key: a store whose key was replaced (set aside after a forgotten passcode) is told apart from
/// a wrong passcode.
public struct SharedStoreKey: Codable, Sendable, Equatable {
    /// The store whose passcode-protected key this store uses.
    public var store: String
    /// Base64: the first 16 bytes of HMAC-SHA256(key, "forceterm store key check").
    public var check: String

    public static func file(forStore path: String) -> String { path + ".key-of" }

    public init(store: String, key: StoreKey) {
        self.store = store
        self.check = Self.check(of: key)
    }

    /// Whether `key` is the one this store was encrypted with.
    public func matches(_ key: StoreKey) -> Bool { Self.check(of: key) == check }

    static func check(of key: StoreKey) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Data("forceterm store key check".utf8), using: SymmetricKey(data: key.bytes))
        return Data(Data(mac).prefix(16)).base64EncodedString()
    }

    public static func read(forStore path: String) throws -> SharedStoreKey? {
        try OwnerOnlyFile.readJSON(
            SharedStoreKey.self, from: file(forStore: path),
            damaged: "it names the store whose key opens \(path), which cannot be opened without it")
    }

    /// Replaces the file whole, owner-only.
    public func write(forStore path: String) throws { try OwnerOnlyFile.writeJSON(self, to: Self.file(forStore: path)) }
}
