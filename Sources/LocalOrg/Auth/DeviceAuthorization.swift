import Crypto
import Foundation
import GRDB

/// The OAuth device flow in Salesforce's dialect: a client asks for a code pair, a person signs
/// in at the verification page (or a trainer runs `localorg approve CODE`), and the client's
/// polling turns into tokens. Device codes are secrets, so only their SHA-256 is stored.
public struct DeviceAuthorization: Sendable {
    public enum PollOutcome: Sendable, Equatable {
        case pending, slowDown, expired, denied, invalid
        case approved(userId: String)
    }

    let store: OrgStore
    /// Seconds between polls that the client is asked to keep to.
    public static let interval: Int64 = 5
    /// How long a code pair can be approved.
    public static let lifetime: Int64 = 600
    /// User codes avoid letters and digits people confuse (0/O, 1/I/L).
    static let userCodeAlphabet = Array("ABCDEFGHJKMNPQRSTUVWXYZ23456789")

    public init(store: OrgStore) { self.store = store }

    static func ensureTable(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE IF NOT EXISTS localorg_device_code (
                    deviceCodeHash BLOB PRIMARY KEY NOT NULL, userCode TEXT NOT NULL UNIQUE, clientId TEXT NOT NULL,
                    scope TEXT NOT NULL, createdAt INTEGER NOT NULL, expiresAt INTEGER NOT NULL,
                    lastPolledAt INTEGER, approvedUserId TEXT, denied INTEGER NOT NULL DEFAULT 0, consumed INTEGER NOT NULL DEFAULT 0)
                """)
    }

    static func hash(_ deviceCode: String) -> Data { Data(SHA256.hash(data: Array(deviceCode.utf8))) }

    /// Starts a flow: returns the device code (for the client) and the user code (for the person).
    public func start(clientId: String, scope: String) async throws -> (deviceCode: String, userCode: String) {
        let deviceCode = base64URL(randomBytes(32))
        let userCode = String(randomBytes(8).map { Self.userCodeAlphabet[Int($0) % Self.userCodeAlphabet.count] })
        let now = OrgStore.now()
        try await store.write { db in
            try db.execute(sql: "DELETE FROM localorg_device_code WHERE expiresAt < ?", arguments: [now - 86_400])
            try db.execute(
                sql: "INSERT INTO localorg_device_code (deviceCodeHash, userCode, clientId, scope, createdAt, expiresAt) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [Self.hash(deviceCode), userCode, clientId, scope, now, now + Self.lifetime])
        }
        return (deviceCode, userCode)
    }

    /// A client's poll. An approved code works once; polling faster than the interval slows down.
    public func poll(deviceCode: String, clientId: String) async throws -> PollOutcome {
        let now = OrgStore.now()
        return try await store.write { db in
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT clientId, expiresAt, lastPolledAt, approvedUserId, denied, consumed FROM localorg_device_code WHERE deviceCodeHash = ?",
                    arguments: [Self.hash(deviceCode)])
            else { return .invalid }
            let storedClient: String = row[0]
            let consumed: Bool = row[5]
            guard storedClient == clientId, !consumed else { return .invalid }
            let expiresAt: Int64 = row[1]
            if expiresAt <= now { return .expired }
            if row[4] as Bool { return .denied }
            let lastPolledAt: Int64? = row[2]
            try db.execute(sql: "UPDATE localorg_device_code SET lastPolledAt = ? WHERE deviceCodeHash = ?", arguments: [now, Self.hash(deviceCode)])
            if let approved: String = row[3] {
                try db.execute(sql: "UPDATE localorg_device_code SET consumed = 1 WHERE deviceCodeHash = ?", arguments: [Self.hash(deviceCode)])
                return .approved(userId: approved)
            }
            if let lastPolledAt, now - lastPolledAt < Self.interval { return .slowDown }
            return .pending
        }
    }

    /// Approves (or denies) a pending user code for a user. Returns false for an unknown,
    /// expired or already-decided code.
    public func decide(userCode: String, userId: String, approve: Bool) async throws -> Bool {
        let normalized = userCode.uppercased().filter { $0 != "-" && $0 != " " }
        let now = OrgStore.now()
        return try await store.write { db in
            try db.execute(
                sql: """
                    UPDATE localorg_device_code SET approvedUserId = CASE WHEN ? THEN ? END, denied = CASE WHEN ? THEN 0 ELSE 1 END
                    WHERE userCode = ? AND expiresAt > ? AND approvedUserId IS NULL AND denied = 0 AND consumed = 0
                    """, arguments: [approve, userId, approve, normalized, now])
            return db.changesCount == 1
        }
    }
}
