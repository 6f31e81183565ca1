import Crypto
import ForceAPI
import Foundation
import SmartStore

/// The session tokens in `credentials.json`, sealed with the store's key once the store has a
/// passcode: a copied file is then no session without the passcode. The user's ids and addresses
/// stay readable, so forceterm knows whose store to unlock. AES-256-GCM under a key derived from
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

    private static func tokenKey(_ key: StoreKey) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: key.bytes), info: Data("forceterm credentials.json tokens".utf8), outputByteCount: 32)
    }

    private static func seal(_ token: String, _ key: StoreKey) throws -> String {
        guard let combined = try AES.GCM.seal(Data(token.utf8), using: tokenKey(key)).combined else {
            throw CredentialSealingError("cannot seal the session tokens (AES-GCM gave no output)")
        }
        return prefix + combined.base64EncodedString()
    }

    private static func open(_ sealed: String, _ key: StoreKey) throws -> String {
        guard sealed.hasPrefix(prefix), let data = Data(base64Encoded: String(sealed.dropFirst(prefix.count))),
              let box = try? AES.GCM.SealedBox(combined: data), let token = try? AES.GCM.open(box, using: tokenKey(key)) else {
            throw CredentialSealingError("the session in credentials.json does not open with this store's key; sign in again (forceterm login)")
        }
        return String(decoding: token, as: UTF8.self)
    }
}

struct CredentialSealingError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
