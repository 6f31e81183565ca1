import ForceJSON
import Foundation
import GRDB
import Synchronization

/// A Change Data Capture event as stored: what changed in one record (or, for a gap, in many),
/// numbered by its replay id. The Streaming API (`/cometd`) delivers them on `/data/<Object>ChangeEvent`
/// and `/data/ChangeEvents`, each user only the records and fields they may read.
///
/// The shape follows Salesforce's Change Data Capture Developer Guide ("Change Event Message
/// Structure", "ChangeEventHeader Fields"): CREATE events carry every field with a value and no
/// changedFields; UPDATE events the changed fields, LastModifiedDate among them; DELETE events the
/// header alone. Fields are flat as a record GET returns them (Salesforce nests Name and
/// addresses into compound fields; no client here reads them). Events are kept 72 hours, as
/// Salesforce keeps them.
public struct ChangeEvent: Sendable, Equatable {
    public var replayId: Int64
    public var entityName: String
    public var changeType: String
    public var recordIds: [String]
    public var changedFields: [String]
    public var fields: JSONObject
    /// Milliseconds since 1970, as Salesforce's header has it.
    public var commitTimestamp: Int64
    public var commitUser: String
    public var transactionKey: String
    public var sequenceNumber: Int64
    public var changeOrigin: String
}

extension OrgStore {
    static let changeEventTable = "localorg_change_event"
    /// Objects Salesforce publishes no change events for ("Change Event Object Support" in the CDC
    /// guide lists neither): no events, no channel.
    static let objectsWithoutChangeEvents: Set<String> = ["RecordType", "Organization"]
    /// How long events can be replayed: Salesforce's retention for change events.
    public static let changeEventRetention: Int64 = 72 * 3600 * 1000

    static func createChangeEventTable(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE IF NOT EXISTS localorg_change_event (
                    replayId INTEGER PRIMARY KEY AUTOINCREMENT, entityName TEXT NOT NULL, changeType TEXT NOT NULL,
                    recordIds TEXT NOT NULL, changedFields TEXT NOT NULL, fields TEXT NOT NULL, commitTimestamp INTEGER NOT NULL,
                    commitUser TEXT NOT NULL, transactionKey TEXT NOT NULL, sequenceNumber INTEGER NOT NULL, changeOrigin TEXT NOT NULL);
                CREATE INDEX IF NOT EXISTS localorg_change_event_time ON localorg_change_event(commitTimestamp);
                """)
    }

    /// The transaction key and the next sequence number of the writer's current transaction: every
    /// event of one transaction shares its key, numbered in order (one writer at a time, so one slot).
    private func transactionStep(_ db: Database) -> (key: String, sequence: Int64) {
        let step = changeTransaction.withLock { current -> (key: String, sequence: Int64, isNew: Bool) in
            let next = (key: current?.key ?? UUID().uuidString.lowercased(), sequence: (current?.sequence ?? 0) + 1)
            let isNew = current == nil
            current = next
            return (next.key, next.sequence, isNew)
        }
        if step.isNew {
            db.afterNextTransaction(
                onCommit: { [self] _ in changeTransaction.withLock { $0 = nil } },
                onRollback: { [self] _ in changeTransaction.withLock { $0 = nil } })
        }
        return (step.key, step.sequence)
    }

    /// Records a change in the writer's transaction, so the event exists exactly when the change
    /// does. `now` is in seconds, as the org's dates are.
    func noteChangeEvent(
        _ db: Database, object: ObjectDefinition, type: String, recordIds: [String], changedFields: [String] = [],
        fields: JSONObject = [:], userId: String, now: Int64, origin: String? = nil
    ) throws {
        guard !Self.objectsWithoutChangeEvents.contains(object.name) else { return }
        let (key, sequence) = transactionStep(db)
        let statement = try db.cachedStatement(
            sql: """
                INSERT INTO localorg_change_event (entityName, changeType, recordIds, changedFields, fields, commitTimestamp,
                    commitUser, transactionKey, sequenceNumber, changeOrigin) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
        try statement.execute(arguments: [
            object.name, type, JSONWriter.string(.array(recordIds.map(JSONValue.string))),
            JSONWriter.string(.array(changedFields.map(JSONValue.string))), JSONWriter.string(.object(fields)), now * 1000, userId, key, sequence,
            origin ?? "",
        ])
    }

    /// A create's event: every field with a value.
    func noteCreated(_ db: Database, object: ObjectDefinition, values: [String: DatabaseValue], userId: String, now: Int64, origin: String?) throws {
        var fields: JSONObject = [:]
        for field in object.fields where field.name != "Id" {
            guard let value = values[field.name], !value.isNull else { continue }
            fields[field.name] = RecordRenderer.json(value, for: field)
        }
        try noteChangeEvent(
            db, object: object, type: "CREATE", recordIds: [String.fromDatabaseValue(values["Id"] ?? .null) ?? ""],
            fields: fields, userId: userId, now: now, origin: origin)
    }

    /// An update's event: the fields whose values changed, LastModifiedDate among them; none when nothing did.
    func noteUpdated(
        _ db: Database, object: ObjectDefinition, id: String, before: [String: DatabaseValue], after: [String: DatabaseValue],
        userId: String, now: Int64, origin: String?
    ) throws {
        var changed: [String] = []
        var fields: JSONObject = [:]
        for field in object.fields where field.name != "SystemModstamp" && field.name != "LastModifiedById" {
            let value = after[field.name] ?? .null
            guard value != (before[field.name] ?? .null) else { continue }
            changed.append(field.name)
            fields[field.name] = RecordRenderer.json(value, for: field)
        }
        guard changed.contains(where: { $0 != "LastModifiedDate" }) else { return }
        try noteChangeEvent(
            db, object: object, type: "UPDATE", recordIds: [id], changedFields: changed, fields: fields, userId: userId, now: now,
            origin: origin)
    }

    /// Events after `replayId`, oldest first, of the objects named (all when nil).
    public func changeEvents(after replayId: Int64, objects: Set<String>?, limit: Int = 500) async throws -> [ChangeEvent] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT replayId, entityName, changeType, recordIds, changedFields, fields, commitTimestamp, commitUser, transactionKey,
                        sequenceNumber, changeOrigin FROM localorg_change_event WHERE replayId > ? ORDER BY replayId LIMIT ?
                    """, arguments: [replayId, limit]
            ).compactMap { row -> ChangeEvent? in
                let entity: String = row[1]
                if let objects, !objects.contains(entity) { return nil }
                func strings(_ text: String) -> [String] { ((try? JSONParser.parse(text))?.arrayValue ?? []).compactMap(\.stringValue) }
                return ChangeEvent(
                    replayId: row[0], entityName: entity, changeType: row[2], recordIds: strings(row[3]), changedFields: strings(row[4]),
                    fields: (try? JSONParser.parse(row[5] as String))?.objectValue ?? [:], commitTimestamp: row[6], commitUser: row[7],
                    transactionKey: row[8], sequenceNumber: row[9], changeOrigin: row[10])
            }
        }
    }

    /// The newest replay id (0 before any event) and the oldest still kept (nil when none is).
    public func replayBounds() async throws -> (newest: Int64, oldest: Int64?) {
        try await pool.read { db in
            let row = try Row.fetchOne(db, sql: "SELECT MAX(replayId), MIN(replayId) FROM localorg_change_event")
            // After a purge of every event the sequence still knows the last id given.
            let given = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'localorg_change_event'") ?? 0
            return (max((row?[0] as Int64?) ?? 0, given), row?[1] as Int64?)
        }
    }

    /// Forgets events older than the retention.
    public func purgeChangeEvents(now: Int64 = OrgStore.now()) async throws {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM localorg_change_event WHERE commitTimestamp < ?", arguments: [now * 1000 - Self.changeEventRetention])
        }
    }
}

extension LocalOrgAPI {
    /// A change's `changeOrigin` as Change Data Capture's header documents it: the API and its
    /// version, and `;client=<id>` only when the request named a client in its Call Options header
    /// (`Sforce-Call-Options: client=<id>`, options separated by commas, as the REST API Developer
    /// Guide writes them); without that header, no client part.
    static func changeOrigin(apiVersion: String, callOptions: String?) -> String {
        let base = "com/salesforce/api/rest/\(apiVersion)"
        let options = (callOptions ?? "").split(whereSeparator: { $0 == "," || $0 == ";" }).map { $0.trimmingCharacters(in: .whitespaces) }
        guard let client = options.first(where: { $0.hasPrefix("client=") })?.dropFirst("client=".count), !client.isEmpty else { return base }
        return "\(base);client=\(client)"
    }
}
