import Crypto
import ForceAPI
import Foundation
import SmartStore

/// The session tokens in `credentials.json`, sealed with the store's key (the passcode's, or the
/// key file's when the store has no passcode): a copied file alone is then no session. The user's
/// ids and addresses stay readable, so forceterm knows whose store to unlock. AES-256-GCM under a key derived from
/// the store key (HKDF-SHA256), so the store key itself never encrypts anything but the store.
public enum SealedTokens {
    static let prefix = "forceterm-sealed:1:"

    public static func areSealed(_ credentials: OAuthCredentials) -> Bool {
        credentials.accessToken.revealed.hasPrefix(prefix)
    }

    public static func seal(_ credentials: OAuthCredentials, with key: StoreKey) throws -> OAuthCredentials {
        guard !areSealed(credentials) else { return credentials }
        var sealed = credentials
        sealed.accessToken = Secret(try seal(credentials.accessToken.revealed, key))
        sealed.refreshToken = try credentials.refreshToken.map { Secret(try seal($0.revealed, key)) }
        return sealed
    }

    public static func open(_ credentials: OAuthCredentials, with key: StoreKey) throws -> OAuthCredentials {
        guard areSealed(credentials) else { return credentials }
        var opened = credentials
        opened.accessToken = Secret(try open(credentials.accessToken.revealed, key))
        opened.refreshToken = try credentials.refreshToken.map { Secret(try open($0.revealed, key)) }
        return opened
    }

    private static let purpose = "forceterm credentials.json tokens"

    private static func seal(_ token: String, _ key: StoreKey) throws -> String {
        prefix + (try SealedData.seal(Data(token.utf8), with: key, purpose: purpose))
    }

    private static func open(_ sealed: String, _ key: StoreKey) throws -> String {
        guard sealed.hasPrefix(prefix), let token = SealedData.open(String(sealed.dropFirst(prefix.count)), with: key, purpose: purpose) else {
            throw CredentialSealingError("the session in credentials.json does not open with this store's key; sign in again (forceterm login)")
        }
        return String(decoding: token, as: UTF8.self)
    }
}

/// Bytes sealed under a key derived from a store's key for one purpose (HKDF-SHA256, then
/// AES-256-GCM), so the store key itself never encrypts anything but the store, and what is sealed
/// for one purpose never opens as another's. Base64 of AES-GCM's nonce, ciphertext and tag.
enum SealedData {
    static func seal(_ data: Data, with key: StoreKey, purpose: String) throws -> String {
        guard let combined = try AES.GCM.seal(data, using: derived(key, purpose)).combined else {
            throw CredentialSealingError("cannot seal \(purpose) (AES-GCM gave no output)")
        }
        return combined.base64EncodedString()
    }

    /// Nil when it does not open with this key (another key, or damaged).
    static func open(_ sealed: String, with key: StoreKey, purpose: String) -> Data? {
        guard let data = Data(base64Encoded: sealed), let box = try? AES.GCM.SealedBox(combined: data) else { return nil }
        return try? AES.GCM.open(box, using: derived(key, purpose))
    }

    private static func derived(_ key: StoreKey, _ purpose: String) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: key.bytes), info: Data(purpose.utf8), outputByteCount: 32)
    }
}

struct CredentialSealingError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
