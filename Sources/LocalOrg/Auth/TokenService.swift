import Crypto
import Foundation
import GRDB
import _CryptoExtras

/// Password hashes as `pbkdf2-sha256$ROUNDS$SALT$HASH` (base64), verified in constant time.
public enum PasswordHasher {
    static let rounds = 210_000

    public static func hash(_ password: String) throws -> String {
        let salt = randomBytes(16)
        let key = try KDF.Insecure.PBKDF2.deriveKey(from: Array(password.utf8), salt: salt, using: .sha256, outputByteCount: 32, rounds: rounds)
        let hash = key.withUnsafeBytes { Data($0) }
        return "pbkdf2-sha256$\(rounds)$\(Data(salt).base64EncodedString())$\(hash.base64EncodedString())"
    }

    public static func verify(_ password: String, against stored: String) -> Bool {
        let parts = stored.split(separator: "$")
        guard parts.count == 4, parts[0] == "pbkdf2-sha256", let storedRounds = Int(parts[1]), storedRounds >= rounds,
            let salt = Data(base64Encoded: String(parts[2])), let expected = Data(base64Encoded: String(parts[3])),
            let key = try? KDF.Insecure.PBKDF2.deriveKey(
                from: Array(password.utf8), salt: salt, using: .sha256,
                outputByteCount: expected.count, rounds: storedRounds)
        else { return false }
        return key.withUnsafeBytes { constantTimeEqual(Array($0), Array(expected)) }
    }
}

/// Compares two byte strings in time that depends only on their lengths.
func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
    guard lhs.count == rhs.count else { return false }
    var difference: UInt8 = 0
    for index in lhs.indices { difference |= lhs[index] ^ rhs[index] }
    return difference == 0
}

/// Bytes from the system's cryptographically secure generator (getrandom on Linux).
func randomBytes(_ count: Int) -> [UInt8] {
    var generator = SystemRandomNumberGenerator()
    return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
}

func base64URL(_ bytes: [UInt8]) -> String {
    Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
}

/// Who a valid access token belongs to.
public struct Session: Sendable {
    public var userId: String
    public var isAdmin: Bool
    public var clientId: String
    /// For the request log: who did it.
    public var username: String = ""
    /// What the user's profile and permission sets let them do with each field.
    public var fields: FieldAccess = .administrator
}

/// OAuth access and refresh tokens. A token is `ORGID!SELECTOR.VERIFIER`: the selector finds the
/// row, and only a SHA-256 of the random verifier is stored, compared in constant time.
public struct TokenService: Sendable {
    public enum Kind: String, Sendable { case access, refresh }

    let store: OrgStore
    /// Read when used: a snapshot restore gives the org a new id while the server runs.
    func organizationId() async -> String { (try? await store.currentOrganizationId()) ?? "" }
    /// How long access tokens live (`--token-ttl`).
    public let accessTokenLifetime: Int64

    public init(store: OrgStore, accessTokenLifetime: Int64) throws {
        self.store = store
        self.accessTokenLifetime = accessTokenLifetime
    }

    /// Issues a token and stores its hash. Refresh tokens never expire; access tokens after the TTL.
    public func issue(kind: Kind, userId: String, clientId: String, refreshSelector: String? = nil) async throws -> (token: String, selector: String) {
        let selector = base64URL(randomBytes(12))
        let verifier = base64URL(randomBytes(32))
        let verifierHash = Data(SHA256.hash(data: Array(verifier.utf8)))
        let now = OrgStore.now()
        let expiresAt: Int64? = kind == .access ? now + accessTokenLifetime : nil
        try await store.write { db in
            // Forget access tokens that expired more than a day ago, so the table does not grow forever.
            try db.execute(sql: "DELETE FROM localorg_token WHERE kind = 'access' AND expiresAt < ?", arguments: [now - 86_400])
            try db.execute(
                sql: """
                    INSERT INTO localorg_token (selector, verifierHash, kind, userId, clientId, issuedAt, expiresAt, refreshSelector)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """, arguments: [selector, verifierHash, kind.rawValue, userId, clientId, now, expiresAt, refreshSelector])
        }
        return ("\(String(await organizationId().prefix(15)))!\(selector).\(verifier)", selector)
    }

    /// The row behind a token when the token is genuine, of the wanted kind, and not revoked.
    func lookUp(_ token: String, kind: Kind) async throws -> (selector: String, userId: String, clientId: String, issuedAt: Int64, expiresAt: Int64?)? {
        guard let bang = token.firstIndex(of: "!"), let dot = token.lastIndex(of: "."), bang < dot else { return nil }
        let selector = String(token[token.index(after: bang)..<dot])
        let verifier = String(token[token.index(after: dot)...])
        let presentedHash = Array(SHA256.hash(data: Array(verifier.utf8)))
        let row = try await store.pool.read { db in
            try Row.fetchOne(
                db,
                sql: """
                    SELECT verifierHash, userId, clientId, issuedAt, expiresAt FROM localorg_token WHERE selector = ? AND kind = ? AND revoked = 0
                    """, arguments: [selector, kind.rawValue]
            ).map { row -> (Data, String, String, Int64, Int64?) in (row[0], row[1], row[2], row[3], row[4]) }
        }
        guard let row, constantTimeEqual(Array(row.0), presentedHash) else { return nil }
        return (selector, row.1, row.2, row.3, row.4)
    }

    /// A user's username, empty for an unknown user.
    func username(of userId: String) async throws -> String {
        let userTable = quoted(store.schema.object(named: "User")?.tableName ?? "User")
        return try await store.pool.read { db in
            try String.fetchOne(db, sql: "SELECT COALESCE(Username, '') FROM \(userTable) WHERE Id = ?", arguments: [userId]) ?? ""
        }
    }

    /// The session of a valid, unexpired access token.
    public func session(forAccessToken token: String) async throws -> Session? {
        guard let found = try await lookUp(token, kind: .access) else { return nil }
        if let expiresAt = found.expiresAt, expiresAt <= OrgStore.now() { return nil }
        let userTable = quoted(store.schema.object(named: "User")?.tableName ?? "User")
        let (isAdmin, username, fields) = try await store.pool.read { db -> (Bool, String, FieldAccess) in
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT c.isAdmin, COALESCE(u.Username, '') FROM localorg_credential c LEFT JOIN \(userTable) u ON u.Id = c.userId
                    WHERE c.userId = ?
                    """, arguments: [found.userId])
            let isAdmin: Bool = row?[0] ?? false
            return (isAdmin, row?[1] ?? "", try OrgStore.fieldAccess(db, userId: found.userId, isAdmin: isAdmin))
        }
        RequestContext.current?.note(username: username)
        RequestContext.current?.note(tokenSelector: found.selector)
        return Session(userId: found.userId, isAdmin: isAdmin, clientId: found.clientId, username: username, fields: fields)
    }

    /// Revokes a token; revoking a refresh token also revokes the access tokens issued from it.
    /// Returns false when the token is unknown.
    public func revoke(_ token: String) async throws -> Bool {
        for kind in [Kind.refresh, .access] {
            guard let found = try await lookUp(token, kind: kind) else { continue }
            try await store.write { db in
                try db.execute(
                    sql: "UPDATE localorg_token SET revoked = 1 WHERE selector = ? OR refreshSelector = ?",
                    arguments: [found.selector, kind == .refresh ? found.selector : "-"])
            }
            return true
        }
        return false
    }
}
