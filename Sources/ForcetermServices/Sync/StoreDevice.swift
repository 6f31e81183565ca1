import ForceAPI
import Foundation
import SmartStore

/// The name this store's requests give the org (`Sforce-Call-Options: client=forceterm/<id>`),
/// made once per store and kept in it: the org's change events then say which changes this store
/// sent itself, which its listener passes over (the store already holds them).
public enum StoreDevice {
    static let key = "forceterm.deviceClient"

    /// `client`, naming this store in every request it sends.
    public static func naming(_ client: ForceClient, store: SmartStore) throws -> ForceClient {
        var named = client
        named.callOptionsClient = try Self.client(of: store)
        return named
    }

    /// The store's client name, made and saved on first use.
    public static func client(of store: SmartStore) throws -> String {
        if let saved = try store.read({ try $0.setting(key) }) { return saved }
        let made = "forceterm/" + String(UUID().uuidString.lowercased().filter(\.isHexDigit).prefix(12))
        return try store.write { transaction in
            // Another process may have made one first: the first one made stays.
            if let saved = try transaction.setting(key) { return saved }
            try transaction.setSetting(key, made)
            return made
        }
    }
}
