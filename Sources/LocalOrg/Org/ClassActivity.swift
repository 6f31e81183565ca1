import Foundation
import GRDB

/// What one user did, as the trainer's page shows it: from the log and the field history, so
/// the counts agree with the log lines the server printed.
public struct UserActivity: Sendable, Equatable {
    public var userId: String
    public var username: String
    public var name: String
    public var isAdmin: Bool
    public var isActive: Bool
    public var lockedUntil: Int64?
    public var lastSignIn: Int64?
    /// The user's last data API request (a sync is a run of them).
    public var lastSync: Date?
    public var requests: Int
    /// Distinct records the user created, changed or deleted.
    public var recordsChanged: Int
    /// Writes refused because the record had changed on the server since the user read it.
    public var conflicts: Int
    /// Refusals of every other kind: whole requests, and records inside composite requests.
    public var errors: Int
}

extension OrgStore {
    /// Every user who can sign in, with what they did, by username.
    public func classActivity() async throws -> [UserActivity] {
        guard let user = schema.object(named: "User") else { return [] }
        return try await pool.read { db in
            let fromLog = try Row.fetchAll(
                db,
                sql: """
                    SELECT username, COUNT(*), SUM(conflicts), SUM(errors),
                           MAX(CASE WHEN path LIKE '/services/data/%' THEN timeMilliseconds END)
                    FROM localorg_event WHERE username IS NOT NULL GROUP BY username COLLATE NOCASE
                    """
            ).reduce(into: [String: Row]()) { byName, row in byName[(row[0] as String).lowercased()] = row }
            let changed = try Row.fetchAll(db, sql: "SELECT userId, COUNT(DISTINCT recordId) FROM \(OrgStore.historyTable) GROUP BY userId")
                .reduce(into: [String: Int]()) { byId, row in byId[row[0]] = row[1] }
            return try Row.fetchAll(
                db,
                sql: """
                    SELECT u.Id, u.Username, TRIM(COALESCE(u.FirstName, '') || ' ' || COALESCE(u.LastName, '')), c.isAdmin, u.IsActive,
                           c.lockedUntil, c.lastLoginAt
                    FROM \(quoted(user.tableName)) u JOIN localorg_credential c ON c.userId = u.Id
                    WHERE u.IsDeleted = 0 ORDER BY u.Username
                    """
            ).map { row in
                let username: String = row[1]
                let log = fromLog[username.lowercased()]
                let lastSync: Int64? = log?[4]
                return UserActivity(
                    userId: row[0], username: username, name: row[2], isAdmin: row[3], isActive: row[4], lockedUntil: row[5],
                    lastSignIn: row[6], lastSync: lastSync.map { Date(timeIntervalSince1970: Double($0) / 1000) },
                    requests: log?[1] ?? 0, recordsChanged: changed[row[0]] ?? 0, conflicts: log?[2] ?? 0, errors: log?[3] ?? 0)
            }
        }
    }
}
