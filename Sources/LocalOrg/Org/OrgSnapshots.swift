import Foundation
import GRDB

/// Named copies of an org's database (`snapshots/NAME.sqlite` in the data directory), so a trainer
/// can keep a class's starting state and bring it back. A restore makes a new org, as a sandbox
/// refresh does: a new organization id and no sessions, so every client signs in again and sees
/// that the org behind its store changed rather than mixing the two.
public struct OrgSnapshots: Sendable {
    public let directory: String

    public init(orgDirectory: OrgDirectory) { directory = orgDirectory.path + "/snapshots" }

    /// One saved snapshot.
    public struct Snapshot: Sendable, Equatable {
        public var name: String
        public var path: String
        public var savedAt: Date
        public var bytes: Int
    }

    /// What a restore did.
    public struct Restored: Sendable, Equatable {
        public var previousOrganizationId: String
        public var organizationId: String
        /// Rows per object table after the restore (`Contact` → 2000).
        public var recordCounts: [String: Int]
    }

    public static func checkedName(_ name: String) throws -> String {
        guard !name.isEmpty, name.count <= 64, !name.hasPrefix("."),
            name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) })
        else {
            throw SchemaError(description: "snapshot name \"\(name)\" must be 1 to 64 letters, digits, '.', '_' or '-' (e.g. class-start)")
        }
        return name
    }

    public func path(of name: String) -> String { directory + "/" + name + ".sqlite" }

    public func list() -> [Snapshot] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasSuffix(".sqlite") && !$0.hasPrefix(".") }.sorted().compactMap { file in
            let path = directory + "/" + file
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else { return nil }
            return Snapshot(
                name: String(file.dropLast(".sqlite".count)), path: path,
                savedAt: attributes[.modificationDate] as? Date ?? Date(timeIntervalSince1970: 0),
                bytes: (attributes[.size] as? Int) ?? 0)
        }
    }

    /// Copies the org as it is now (one consistent read, while a server may be writing) to
    /// `NAME.sqlite`, replacing a snapshot of that name only once the copy is whole.
    @discardableResult
    public func save(_ name: String, from store: OrgStore) throws -> Snapshot {
        let name = try Self.checkedName(name)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let final = path(of: name)
        let partial = directory + "/.\(name).partial-\(getpid())"
        try? FileManager.default.removeItem(atPath: partial)
        do {
            try store.copy(to: partial)
            if rename(partial, final) != 0 { throw SchemaError(description: "cannot move the snapshot into \(final): \(String(cString: strerror(errno)))") }
        } catch {
            try? FileManager.default.removeItem(atPath: partial)
            throw error
        }
        guard let saved = list().first(where: { $0.name == name }) else { throw SchemaError(description: "the snapshot \(final) vanished after saving") }
        return saved
    }

    /// Brings the org back to snapshot `name` in one transaction (a running server's requests see
    /// the org before or after, never between), under a new organization id, with every session
    /// and device code gone.
    public func restore(_ name: String, into store: OrgStore) throws -> Restored {
        let name = try Self.checkedName(name)
        let source = path(of: name)
        guard FileManager.default.fileExists(atPath: source) else {
            let known = list().map(\.name)
            throw SchemaError(
                description: "no snapshot named \(name) in \(directory)\(known.isEmpty ? "; save one with localorg snapshot save NAME" : "; there are: \(known.joined(separator: ", "))")")
        }
        return try store.replaceContents(withSnapshotAt: source)
    }
}

extension OrgStore {
    /// A consistent copy of the database at `path` (SQLite's VACUUM INTO), taken while others may write.
    func copy(to path: String) throws {
        try pool.writeWithoutTransaction { db in
            try db.execute(sql: "VACUUM INTO ?", arguments: [path])
        }
    }

    /// Replaces every table's rows with the snapshot's, gives the org a new id and forgets every
    /// token and device code, all in one transaction.
    func replaceContents(withSnapshotAt path: String) throws -> OrgSnapshots.Restored {
        guard let organization = schema.object(named: "Organization") else { throw SchemaError(description: "the schema has no Organization object") }
        let previous = try organizationId()
        let newId = Self.newOrganizationId()
        let counts = try pool.writeWithoutTransaction { db -> [String: Int] in
            try db.execute(sql: "ATTACH DATABASE ? AS snapshot", arguments: [path])
            defer { try? db.execute(sql: "DETACH DATABASE snapshot") }
            func tables(_ schemaName: String) throws -> [String] {
                try String.fetchAll(db, sql: "SELECT name FROM \(schemaName).sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
            }
            func columns(_ schemaName: String, _ table: String) throws -> [String] {
                try Row.fetchAll(db, sql: "PRAGMA \(schemaName).table_info(\(quoted(table)))").map { $0["name"] as String }
            }
            let snapshotTables = Set(try tables("snapshot"))
            guard snapshotTables.contains("localorg_sequence"), snapshotTables.contains(organization.tableName) else {
                throw SchemaError(description: "\(path) is not a localorg snapshot")
            }
            var counts: [String: Int] = [:]
            try db.inTransaction(.immediate) {
                // Ids handed out since the snapshot are never handed out again to other records:
                // a client still holding one must not find a different record under it.
                let sequences = try Row.fetchAll(db, sql: "SELECT keyPrefix, lastNumber FROM main.localorg_sequence")
                    .map { (prefix: $0[0] as String, last: $0[1] as Int64) }
                // The log is the room's, not the org's: it runs on across restores. So do the
                // change events: a replay id is never handed out twice.
                for table in try tables("main") where table != OrgStore.eventTable && table != OrgStore.changeEventTable {
                    try db.execute(sql: "DELETE FROM main.\(quoted(table))")
                    guard snapshotTables.contains(table) else { continue }
                    // Columns the schema gained since the snapshot keep their defaults.
                    let snapshotColumns = Set(try columns("snapshot", table))
                    let shared = try columns("main", table).filter(snapshotColumns.contains).map(quoted).joined(separator: ", ")
                    try db.execute(sql: "INSERT INTO main.\(quoted(table)) (\(shared)) SELECT \(shared) FROM snapshot.\(quoted(table))")
                }
                for sequence in sequences {
                    try db.execute(
                        sql: """
                            INSERT INTO main.localorg_sequence (keyPrefix, lastNumber) VALUES (?, ?)
                            ON CONFLICT(keyPrefix) DO UPDATE SET lastNumber = MAX(lastNumber, excluded.lastNumber)
                            """, arguments: [sequence.prefix, sequence.last])
                }
                try db.execute(sql: "DELETE FROM main.localorg_token")
                try db.execute(sql: "DELETE FROM main.localorg_device_code")
                try db.execute(sql: "UPDATE main.\(quoted(organization.tableName)) SET Id = ?", arguments: [newId])
                let name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
                try Self.appendEvents(
                    db,
                    [
                        RequestLogEntry(
                            time: Date(), username: nil, method: "RESTORE", path: "/snapshots/\(name)", status: 200,
                            inner: nil, milliseconds: 0, origin: "localorg snapshot restore: new org \(newId)")
                    ])
                for object in schema.objects {
                    counts[object.name] = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM main.\(quoted(object.tableName)) WHERE IsDeleted = 0") ?? 0
                    // Any record may have changed: a gap event per object tells subscribers to sync
                    // again (changeType GAP_OVERFLOW; the wildcard id, `001*`, as the CDC guide writes "all of an object").
                    try noteChangeEvent(
                        db, object: object, type: "GAP_OVERFLOW", recordIds: [object.keyPrefix + "*"], userId: "",
                        now: Self.now(), origin: "localorg snapshot restore")
                }
                return .commit
            }
            return counts
        }
        return OrgSnapshots.Restored(previousOrganizationId: previous, organizationId: newId, recordCounts: counts)
    }

    /// A fresh `00D…` id: random, so an org set up again (a restore, a new data directory seeded
    /// the same way) never has the id of the one clients knew.
    static func newOrganizationId() -> String {
        SalesforceId.make(keyPrefix: "00D", number: Int64.random(in: 1..<(62 * 62 * 62 * 62 * 62 * 62 * 62 * 62)))
    }
}
