import ForceJSON
import Foundation
import GRDB

/// Salesforce's default password policy for failed sign-ins: after 10 invalid attempts in a row
/// the user is locked out for 15 minutes, or until an administrator unlocks them.
public enum LockoutPolicy {
    public static let maximumInvalidAttempts = 10
    public static let lockoutSeconds: Int64 = 15 * 60
}

/// What a sign-in with a username and password found.
public enum SignInCheck: Sendable, Equatable {
    case accepted(userId: String, isAdmin: Bool)
    /// No such user, or the wrong password: callers answer both alike, as Salesforce does.
    case refused
    case inactive
    /// Too many invalid attempts; refused, even with the right password, until this time.
    case lockedOut(until: Int64)
}

/// A user as `localorg user list` shows them.
public struct OrgUserSummary: Sendable, Equatable {
    public var id: String
    public var username: String
    public var name: String
    public var isAdmin: Bool
    public var isActive: Bool
    public var failedLogins: Int
    public var lockedUntil: Int64?
    public var lastLoginAt: Int64?
}

/// The administrator a new org gets when it is not a demo org: a password nobody chose, shown once.
public struct NewOrgAdministrator: Sendable, Equatable {
    public static let defaultUsername = "admin@localorg.test"
    public var username: String
    public var password: String
}

/// A user to add: `localorg user add`, one or many.
public struct NewOrgUser: Sendable, Equatable {
    public var username: String
    public var password: String
    public var firstName: String?
    public var lastName: String
    public var isAdmin: Bool
    /// The profile's name; nil: Standard User (System Administrator for administrators).
    public var profile: String?

    public init(
        username: String, password: String, firstName: String? = nil, lastName: String? = nil, isAdmin: Bool = false,
        profile: String? = nil
    ) {
        self.username = username
        self.password = password
        self.profile = profile
        self.firstName = firstName
        self.lastName = lastName ?? String(username.split(separator: "@").first ?? Substring(username))
        self.isAdmin = isAdmin
    }
}

extension OrgStore {
    /// Columns added to `localorg_credential` after it was first made.
    static func addSignInColumns(_ db: Database) throws {
        let existing = Set(try Row.fetchAll(db, sql: "PRAGMA table_info(localorg_credential)").map { $0["name"] as String })
        for (column, definition) in [("failedLogins", "INTEGER NOT NULL DEFAULT 0"), ("lockedUntil", "INTEGER"), ("lastLoginAt", "INTEGER")]
        where !existing.contains(column) {
            try db.execute(sql: "ALTER TABLE localorg_credential ADD COLUMN \(column) \(definition)")
        }
    }

    /// Checks a password sign-in and keeps count: a failure adds one to the user's invalid
    /// attempts (locking them out at `LockoutPolicy.maximumInvalidAttempts`), a success clears it.
    public func checkSignIn(username: String, password: String, now: Int64 = OrgStore.now()) async throws -> SignInCheck {
        guard let user = schema.object(named: "User") else { return .refused }
        let found = try await pool.read { db -> Row? in
            try Row.fetchOne(
                db,
                sql: """
                    SELECT u.Id, c.passwordHash, c.isAdmin, u.IsActive, c.lockedUntil FROM \(quoted(user.tableName)) u
                    JOIN localorg_credential c ON c.userId = u.Id
                    WHERE u.Username = ? COLLATE NOCASE AND u.IsDeleted = 0
                    """, arguments: [username])
        }
        guard let found else { return .refused }
        let userId: String = found[0]
        let isAdmin: Bool = found[2]
        let isActive: Bool = found[3]
        if let lockedUntil = found[4] as Int64?, lockedUntil > now { return .lockedOut(until: lockedUntil) }
        // The slow hash check runs outside any write, so failed attempts never block the org.
        let matches = PasswordHasher.verify(password, against: found[1])
        return try await pool.write { db in
            guard matches else {
                try db.execute(
                    sql: """
                        UPDATE localorg_credential
                        SET failedLogins = CASE WHEN lockedUntil IS NOT NULL AND lockedUntil <= ? THEN 1 ELSE failedLogins + 1 END,
                            lockedUntil = CASE WHEN lockedUntil IS NOT NULL AND lockedUntil <= ? THEN NULL ELSE lockedUntil END
                        WHERE userId = ?
                        """, arguments: [now, now, userId])
                let failures = try Int.fetchOne(db, sql: "SELECT failedLogins FROM localorg_credential WHERE userId = ?", arguments: [userId]) ?? 0
                if failures >= LockoutPolicy.maximumInvalidAttempts {
                    try db.execute(
                        sql: "UPDATE localorg_credential SET lockedUntil = ? WHERE userId = ?",
                        arguments: [now + LockoutPolicy.lockoutSeconds, userId])
                    return .lockedOut(until: now + LockoutPolicy.lockoutSeconds)
                }
                return .refused
            }
            guard isActive else { return .inactive }
            try db.execute(
                sql: "UPDATE localorg_credential SET failedLogins = 0, lockedUntil = NULL, lastLoginAt = ? WHERE userId = ?",
                arguments: [now, userId])
            return .accepted(userId: userId, isAdmin: isAdmin)
        }
    }

    /// The username of a user id, for the log.
    public func username(userId: String) throws -> String? {
        guard let user = schema.object(named: "User") else { return nil }
        return try pool.read { db in
            try String.fetchOne(db, sql: "SELECT Username FROM \(quoted(user.tableName)) WHERE Id = ?", arguments: [userId])
        }
    }

    /// Every user who can sign in, by username.
    public func userSummaries() throws -> [OrgUserSummary] {
        guard let user = schema.object(named: "User") else { return [] }
        return try pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT u.Id, u.Username, TRIM(COALESCE(u.FirstName, '') || ' ' || COALESCE(u.LastName, '')), c.isAdmin, u.IsActive,
                           c.failedLogins, c.lockedUntil, c.lastLoginAt
                    FROM \(quoted(user.tableName)) u JOIN localorg_credential c ON c.userId = u.Id
                    WHERE u.IsDeleted = 0 ORDER BY u.Username
                    """
            ).map {
                OrgUserSummary(
                    id: $0[0], username: $0[1], name: $0[2], isAdmin: $0[3], isActive: $0[4],
                    failedLogins: $0[5], lockedUntil: $0[6], lastLoginAt: $0[7])
            }
        }
    }

    /// Adds every user in one transaction: one that cannot be added (a taken username, a bad
    /// name) adds none, and the error names it.
    @discardableResult
    public func addUsers(_ users: [NewOrgUser]) throws -> [String] {
        guard let user = schema.object(named: "User") else { throw SchemaError(description: "no User object") }
        var seen = Set<String>()
        for new in users where !seen.insert(new.username.lowercased()).inserted {
            throw APIError(status: 400, errorCode: "DUPLICATE_USERNAME", message: "\(new.username) is listed twice")
        }
        // Hashing is slow on purpose; done before the transaction so it stays short.
        let hashes = try users.map { try PasswordHasher.hash($0.password) }
        let now = Self.now()
        return try pool.write { db in
            let adminId = try String.fetchOne(db, sql: "SELECT userId FROM localorg_credential WHERE isAdmin = 1 LIMIT 1") ?? ""
            var ids: [String] = []
            for (new, hash) in zip(users, hashes) {
                if try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(quoted(user.tableName)) WHERE Username = ? COLLATE NOCASE", arguments: [new.username]) ?? 0 > 0 {
                    throw APIError(status: 400, errorCode: "DUPLICATE_USERNAME", message: "\(new.username) is already a user of this org")
                }
                let body: JSONObject = [
                    "Username": .string(new.username), "FirstName": new.firstName.map(JSONValue.string) ?? .null,
                    "LastName": .string(new.lastName), "Email": .string(new.username), "IsActive": true,
                    "Alias": .string(String(new.username.prefix(8))), "TimeZoneSidKey": "GMT", "LanguageLocaleKey": "en_US",
                ]
                var values: [String: DatabaseValue]
                do {
                    values = try RecordValidator.values(for: user, body: body, mode: .create)
                } catch let error as APIError {
                    throw APIError(status: error.status, errorCode: error.errorCode, message: "\(new.username): \(error.message)")
                }
                let id = try insertRow(db, object: user, values: &values, actingUserId: adminId.isEmpty ? "" : adminId, now: now)
                try db.execute(
                    sql: "INSERT INTO localorg_credential (userId, passwordHash, isAdmin) VALUES (?, ?, ?)",
                    arguments: [id, hash, new.isAdmin])
                if let profile = new.profile { try assignProfile(profile, toUserIds: [id], in: db) }
                ids.append(id)
            }
            return ids
        }
    }

    /// The credential row of `username`, or an error naming the users there are.
    private func credentialUserId(_ db: Database, username: String) throws -> String {
        guard let user = schema.object(named: "User") else { throw SchemaError(description: "no User object") }
        if let id = try String.fetchOne(
            db,
            sql: """
                SELECT u.Id FROM \(quoted(user.tableName)) u JOIN localorg_credential c ON c.userId = u.Id
                WHERE u.Username = ? COLLATE NOCASE AND u.IsDeleted = 0
                """, arguments: [username])
        {
            return id
        }
        throw SchemaError(description: "no user \(username) in this org; localorg user list shows them")
    }

    /// Clears a lockout and the count of invalid attempts. Returns whether the user was locked out.
    @discardableResult
    public func unlock(username: String) throws -> Bool {
        try pool.write { db in
            let id = try credentialUserId(db, username: username)
            let wasLocked = try Int64.fetchOne(db, sql: "SELECT lockedUntil FROM localorg_credential WHERE userId = ?", arguments: [id]).map { $0 > Self.now() } ?? false
            try db.execute(sql: "UPDATE localorg_credential SET failedLogins = 0, lockedUntil = NULL WHERE userId = ?", arguments: [id])
            return wasLocked
        }
    }

    /// Deactivates (ending every session of the user at once, so a trainee who leaves is out) or
    /// reactivates a user.
    /// Gives a user a profile (nil or Standard User: the default).
    public func setProfile(username: String, _ profile: String?) throws {
        try pool.write { db in try assignProfile(profile, toUserIds: [try credentialUserId(db, username: username)], in: db) }
    }

    /// The id of the user who signs in as `username`, or an error naming the users there are.
    public func signInUserId(username: String) throws -> String {
        try pool.read { db in try credentialUserId(db, username: username) }
    }

    public func setActive(username: String, _ active: Bool) throws {
        guard let user = schema.object(named: "User") else { throw SchemaError(description: "no User object") }
        try pool.write { db in
            let id = try credentialUserId(db, username: username)
            try db.execute(sql: "UPDATE \(quoted(user.tableName)) SET IsActive = ?, LastModifiedDate = ? WHERE Id = ?", arguments: [active, Self.now(), id])
            if !active { try db.execute(sql: "UPDATE localorg_token SET revoked = 1 WHERE userId = ?", arguments: [id]) }
        }
    }

    /// Sets a user's password (and clears a lockout, as a reset by an administrator does).
    public func setPassword(username: String, password: String) throws {
        let hash = try PasswordHasher.hash(password)
        try pool.write { db in
            let id = try credentialUserId(db, username: username)
            try db.execute(sql: "UPDATE localorg_credential SET passwordHash = ?, failedLogins = 0, lockedUntil = NULL WHERE userId = ?", arguments: [hash, id])
        }
    }

    /// The demo users still active with the password `localorg serve` prints (and the docs
    /// publish): anyone who has read them can sign in as these users.
    public func demoUsersWithPublishedPasswords() throws -> [(username: String, password: String, admin: Bool)] {
        guard let user = schema.object(named: "User") else { return [] }
        return try Self.demoUsers.filter { demo in
            let hash = try pool.read { db in
                try String.fetchOne(
                    db,
                    sql: """
                        SELECT c.passwordHash FROM \(quoted(user.tableName)) u JOIN localorg_credential c ON c.userId = u.Id
                        WHERE u.Username = ? COLLATE NOCASE AND u.IsActive = 1 AND u.IsDeleted = 0
                        """, arguments: [demo.username])
            }
            return hash.map { PasswordHasher.verify(demo.password, against: $0) } ?? false
        }.map { ($0.username, $0.password, $0.admin) }
    }

    /// A password nobody chose: 12 letters and digits without look-alikes (0/O, 1/l/I), in
    /// groups of four for reading aloud, from the system's secure random generator.
    public static func generatedPassword() -> String {
        let alphabet = Array("abcdefghijkmnpqrstuvwxyzACDEFGHJKLMNPQRTUVWXY2345679")
        var generator = SystemRandomNumberGenerator()
        let characters = (0..<12).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] }
        return stride(from: 0, to: 12, by: 4).map { String(characters[$0..<$0 + 4]) }.joined(separator: "-")
    }
}
