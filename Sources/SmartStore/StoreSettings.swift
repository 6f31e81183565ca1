import GRDB

/// A few named values the store keeps about itself (not records: no soup, no index), such as
/// which org a synced store belongs to. The SDK keeps the same kind of thing in its key-value
/// store beside SmartStore; here it lives in the store file, so it moves and is deleted with it.
extension StoreTransaction {
    static let settingsTable = "store_settings"

    /// The value saved under `key`, or nil.
    public func setting(_ key: String) throws -> String? {
        guard try db.tableExists(Self.settingsTable) else { return nil }
        return try String.fetchOne(db, sql: "SELECT value FROM \(Self.settingsTable) WHERE key = ?", arguments: [key])
    }

    /// Saves `value` under `key` (nil removes it).
    public func setSetting(_ key: String, _ value: String?) throws {
        try db.execute(sql: "CREATE TABLE IF NOT EXISTS \(Self.settingsTable) (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL)")
        if let value {
            try db.execute(
                sql: "INSERT INTO \(Self.settingsTable) (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                arguments: [key, value])
        } else {
            try db.execute(sql: "DELETE FROM \(Self.settingsTable) WHERE key = ?", arguments: [key])
        }
    }
}
