import ForceJSON
import SmartStore

/// One field both sides changed to different values.
public struct ConflictField: Sendable, Equatable {
    public var name: String
    /// The server's value as last seen before either change; `nil` when no base was known.
    public var base: JSONValue?
    public var mine: JSONValue
    public var server: JSONValue
}

/// A record a sync found changed on both sides, as the UI shows it.
public struct SyncConflict: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// Fields both sides changed to different values; every other change is already merged.
        case fields([ConflictField])
        /// Changed here, deleted on the server.
        case deletedOnServer
        /// Deleted here, changed on the server.
        case deletedHere
    }

    public var soupName: String
    public var entryId: Int64
    public var local: JSONObject
    /// The server's values when the conflict was found; `nil` when it had deleted the record.
    public var server: JSONObject?
    public var kind: Kind
    public var detectedAt: Int64

    /// The conflict `record` carries, if any.
    public init?(record: JSONObject, soupName: String) {
        guard let entryId = record.soupEntryId, let stored = RecordConflict(record[LocalField.conflict]) else { return nil }
        self.soupName = soupName
        self.entryId = entryId
        local = record
        server = stored.server
        detectedAt = stored.detectedAt
        if record.isLocallyDeleted {
            kind = .deletedHere
        } else if let server = stored.server {
            kind = .fields(
                Self.fieldNames(stored, record: record).map { name in
                    ConflictField(name: name, base: stored.base[name], mine: record[name] ?? .null, server: server[name] ?? .null)
                })
        } else {
            kind = .deletedOnServer
        }
    }

    /// The conflicting fields: as stored, or for a conflict stored without them (by a forceterm
    /// that compared whole records), every field whose values differ.
    static func fieldNames(_ stored: RecordConflict, record: JSONObject) -> [String] {
        if let fields = stored.fields { return fields }
        return (stored.server ?? [:]).keys.filter { key in
            !key.hasPrefix("_") && key != "attributes" && key != "Id" && key != "LastModifiedDate"
                && !FieldValues.same(record[key], stored.server?[key])
        }
    }

    /// The conflicting fields, empty for a whole-record conflict.
    public var fields: [ConflictField] {
        if case let .fields(fields) = kind { return fields }
        return []
    }
}

/// How the user settles a conflict, for one field or a whole record.
public enum ConflictChoice: Sendable, Hashable {
    /// Keep mine: sent on the next sync up, conditionally on the server version the conflict
    /// showed; a later server change of the same field is a new conflict.
    case keepMine
    /// Take the server's: my change is dropped.
    case takeServer
}

/// The conflicts of a soup and their resolution, field by field or for a whole record, each in one
/// transaction. Fields outside a conflict keep whichever side changed them: the merge that found
/// the conflict already took the server's changes of other fields and kept mine.
public struct ConflictResolver: Sendable {
    public var store: SmartStore
    public var soupName: String
    public var idFieldName: String
    public var modificationDateFieldName: String

    public init(store: SmartStore, soupName: String, idFieldName: String = "Id", modificationDateFieldName: String = "LastModifiedDate") {
        self.store = store
        self.soupName = soupName
        self.idFieldName = idFieldName
        self.modificationDateFieldName = modificationDateFieldName
    }

    public func conflicts() throws -> [SyncConflict] {
        try store.read { transaction in
            let sql = "SELECT {\(soupName):_soup} FROM {\(soupName)} WHERE json_extract({\(soupName):_soup}, '$.\(LocalField.conflict)') IS NOT NULL ORDER BY {\(soupName):_soupEntryId}"
            return try transaction.query(.smart(sql, pageSize: 100_000)).compactMap { row in
                row.arrayValue?.first?.objectValue.flatMap { SyncConflict(record: $0, soupName: soupName) }
            }
        }
    }

    public func conflict(entryId: Int64) throws -> SyncConflict? {
        try store.retrieve([entryId], from: soupName).first.flatMap { SyncConflict(record: $0, soupName: soupName) }
    }

    /// Keep mine for every conflicting field (or the whole record).
    public func keepLocal(entryId: Int64) throws {
        try resolve(entryId: entryId, fields: nil, choice: .keepMine)
    }

    /// Take the server's for every conflicting field (or the whole record).
    public func takeServer(entryId: Int64) throws {
        try resolve(entryId: entryId, fields: nil, choice: .takeServer)
    }

    /// Settles the named conflicting fields (`nil`: all of them); the conflict ends with its last
    /// field. A whole-record conflict is settled whole whatever fields are named.
    public func resolve(entryId: Int64, fields names: [String]?, choice: ConflictChoice) throws {
        try store.write { transaction in
            guard var record = try transaction.retrieve([entryId], from: soupName).first,
                let conflict = SyncConflict(record: record, soupName: soupName),
                let stored = RecordConflict(record[LocalField.conflict])
            else { return }
            switch (conflict.kind, choice) {
            case (.fields, _):
                let server = stored.server ?? [:]
                var remaining = SyncConflict.fieldNames(stored, record: record)
                var base = record.baseValues ?? [:]
                if stored.fields == nil || record.baseValues == nil {
                    // Stored by a forceterm that kept no base: the server copy shown becomes it.
                    for name in remaining { base[name] = server[name] ?? .null }
                    record[modificationDateFieldName] = server[modificationDateFieldName] ?? record[modificationDateFieldName]
                }
                for name in remaining where names.map({ $0.contains(name) }) ?? true {
                    if choice == .takeServer {
                        record[name] = server[name] ?? .null
                        base.removeValue(forKey: name)
                    } else {
                        base[name] = server[name] ?? .null
                    }
                }
                remaining.removeAll { name in names.map { $0.contains(name) } ?? true }
                record.removeValue(forKey: LocalField.conflict)
                if !remaining.isEmpty {
                    var left = stored
                    left.fields = remaining
                    left.base = stored.base.filter { remaining.contains($0.key) }
                    record[LocalField.conflict] = left.json
                }
                record.removeValue(forKey: LocalField.lastError)
                record.setBase(base.filter { key, value in !FieldValues.same(record[key], value) })
            case (.deletedOnServer, .keepMine):
                // Mine is wanted, and the server has no record to update: created again.
                record.becomeLocallyCreated(idFieldName: idFieldName)
                record.removeValue(forKey: LocalField.lastError)
            case (.deletedOnServer, .takeServer):
                try transaction.delete([entryId], from: soupName)
                return
            case (.deletedHere, .keepMine):
                // The delete goes again, conditional on the version the conflict showed. Mine wins
                // over what the server changed meanwhile also if the delete is undone before it
                // goes: the server's values of the fields that differ become their base, so an
                // undelete sends them back as a kept field conflict would.
                record[modificationDateFieldName] = stored.server?[modificationDateFieldName] ?? .null
                if let server = stored.server {
                    var base = record.baseValues ?? [:]
                    for (key, value) in server
                    where record[key] != nil && !DownloadedRecordWriter.isEngineOwned(key)
                        && key != idFieldName && key != modificationDateFieldName && key != "attributes"
                        && !FieldValues.same(record[key], value)
                    {
                        base[key] = value
                    }
                    record.setBase(base)
                }
                record.removeValue(forKey: LocalField.conflict)
                record.removeValue(forKey: LocalField.lastError)
            case (.deletedHere, .takeServer):
                let syncId = record[LocalField.syncId]?.int64Value ?? 0
                record = DownloadedRecordWriter.merge(server: stored.server ?? [:], over: record, syncId: syncId)
            }
            _ = try transaction.update(record, id: entryId, in: soupName)
        }
    }
}

/// Puts a record back as the server last had it: "revert my changes".
public struct LocalChangeReverter: Sendable {
    public var store: SmartStore
    public var soupName: String

    public init(store: SmartStore, soupName: String) {
        self.store = store
        self.soupName = soupName
    }

    public enum Outcome: Sendable, Equatable {
        /// Back at its base; the record as stored now.
        case reverted(JSONObject)
        /// Created here (never on the server) or deleted there: removed from the soup.
        case removed
    }

    /// Every local change of the record goes back to its base, a local delete is undone, a
    /// conflict ends with the server's values, and a record created here is removed. One
    /// transaction. While a write of the record may be on its way to the server, the record stays
    /// marked changed, so the next sync puts the base values back there too.
    @discardableResult
    public func revert(entryId: Int64) throws -> Outcome {
        try store.write { transaction in
            guard var record = try transaction.retrieve([entryId], from: soupName).first else { return .removed }
            let stored = RecordConflict(record[LocalField.conflict])
            if record.isLocallyCreated {
                guard record[LocalField.createInFlight] == nil else {
                    throw MobileSyncError.cannotRevert("this record is being sent to the server; revert it after the sync")
                }
                try transaction.delete([entryId], from: soupName)
                return .removed
            }
            if let stored, stored.server == nil, !record.isLocallyDeleted {
                try transaction.delete([entryId], from: soupName)
                return .removed
            }
            if let stored, let server = stored.server {
                let syncId = record[LocalField.syncId]?.int64Value ?? 0
                record = DownloadedRecordWriter.merge(server: server, over: record, syncId: syncId)
            } else {
                guard let base = record.baseValues else {
                    throw MobileSyncError.cannotRevert(
                        "this record was changed by a program that kept no copy of the server's values; take the server's values after the next sync instead")
                }
                for (key, value) in base { record[key] = value }
                let inFlight = try WriteJournal(soup: soupName).lost(in: transaction).writes[entryId] != nil
                if inFlight && !base.isEmpty {
                    record[LocalField.locallyDeleted] = false
                    record[LocalField.locallyUpdated] = true
                    record[LocalField.local] = true
                } else {
                    record.markClean()
                }
            }
            guard let saved = try transaction.update(record, id: entryId, in: soupName) else { return .removed }
            return .reverted(saved)
        }
    }
}
