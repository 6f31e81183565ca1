import ForceJSON
import SmartStore

/// Tallies of one sync up, for summaries.
public struct SyncUpSummary: Sendable, Equatable {
    public var sent = 0
    public var created = 0
    public var updated = 0
    public var deleted = 0
    public var removedLocally = 0
    public var errors = 0
    public var conflicts = 0
    /// Updates of records deleted on the server, turned into creates (OVERWRITE).
    public var recreated = 0

    public init() {}
}

/// Applies the server's answers to the soup, inside the caller's transaction. Each record's new
/// state is a pure function of its entry and its outcome, so a run that is killed and run again
/// reaches the same end state.
public struct SyncUpRecorder: Sendable {
    public var soupName: String
    public var target: SyncUpTarget
    public var mergeMode: MergeMode

    public init(soupName: String, target: SyncUpTarget, mergeMode: MergeMode) {
        self.soupName = soupName
        self.target = target
        self.mergeMode = mergeMode
    }

    /// One write's answer from the server. `serverValues` is the server's copy for a refused
    /// conditional write (`nil` when the server no longer has the record).
    public struct Answer: Sendable {
        public var outcome: RecordOutcome
        public var write: PlannedWrite
        public var serverValues: JSONObject?

        public init(_ outcome: RecordOutcome, to write: PlannedWrite, serverValues: JSONObject?) {
            self.outcome = outcome
            self.write = write
            self.serverValues = serverValues
        }
    }

    /// Journals creates before they are sent: a record marked so whose answer was lost is
    /// recognised on the next run (docs/mobilesync.md, "Creates and crashes"). The records are
    /// read with one query and written in one batch (per record, the statements cost more than
    /// the records: `make bench-sync`).
    public func markCreatesInFlight(_ writes: [PlannedWrite], now: Int64, in transaction: StoreTransaction) throws {
        let creates = writes.filter { $0.action == .create || $0.action == .upsert }
        guard !creates.isEmpty else { return }
        var journaled: [JSONObject] = []
        for var record in try transaction.retrieve(creates.map(\.entryId), from: soupName) {
            guard let entryId = record.soupEntryId else { continue }
            if record[target.idFieldName] == nil || record[target.idFieldName]?.isNull == true {
                record[target.idFieldName] = .string(LocalField.localIdPrefix + String(entryId))
            }
            record[LocalField.createInFlight] = .object(["sentAt": .int(now)])
            journaled.append(record)
        }
        if !journaled.isEmpty { _ = try transaction.upsert(journaled, in: soupName) }
    }

    /// Records one outcome. `serverValues` is the server's copy for a refused conditional write
    /// (`nil` when the server no longer has the record).
    public func apply(
        _ outcome: RecordOutcome, to write: PlannedWrite, serverValues: JSONObject?, now: Int64,
        summary: inout SyncUpSummary, in transaction: StoreTransaction
    ) throws {
        try apply([Answer(outcome, to: write, serverValues: serverValues)], now: now, summary: &summary, in: transaction)
    }

    /// Records the answers of one request: the records are read with one query, each new state is
    /// decided in memory (in answer order, as one call per answer would), and the results are
    /// written in one batch, with the new `local_` → server id pairs.
    public func apply(_ answers: [Answer], now: Int64, summary: inout SyncUpSummary, in transaction: StoreTransaction) throws {
        guard !answers.isEmpty else { return }
        var current: [Int64: JSONObject] = [:]
        for record in try transaction.retrieve(Array(Set(answers.map(\.write.entryId))), from: soupName) {
            if let entryId = record.soupEntryId { current[entryId] = record }
        }
        var changedOrder: [Int64] = []
        var deleted: [Int64] = []
        var serverIds: [(localId: String, serverId: String)] = []
        for answer in answers {
            let entryId = answer.write.entryId
            guard let record = current[entryId] else { continue }
            switch effect(of: answer, on: record, now: now, summary: &summary) {
            case .delete:
                current.removeValue(forKey: entryId)
                deleted.append(entryId)
            case let .update(updated, createdId):
                if let createdId { serverIds.append(createdId) }
                current[entryId] = updated
                if !changedOrder.contains(entryId) { changedOrder.append(entryId) }
            }
        }
        try transaction.delete(deleted, from: soupName)
        try LocalIdMap.record(serverIds, soup: soupName, in: transaction)
        let changed = changedOrder.compactMap { current[$0] }
        if !changed.isEmpty { _ = try transaction.upsert(changed, in: soupName) }
    }

    /// What an answer does to a record: it leaves the soup, or it is stored as given (with the
    /// `local_` → server id pair of a create).
    private enum Effect {
        case delete
        case update(JSONObject, createdId: (localId: String, serverId: String)?)
    }

    /// A record's new state: a pure function of the record and its answer.
    private func effect(of answer: Answer, on stored: JSONObject, now: Int64, summary: inout SyncUpSummary) -> Effect {
        var record = stored
        var createdId: (localId: String, serverId: String)?
        let write = answer.write
        let serverValues = answer.serverValues
        switch (write.action, answer.outcome) {
        case (.delete, .success), (.delete, .notFound):
            summary.deleted += 1
            return .delete
        case let (.create, .success(id)), let (.upsert, .success(id)):
            if let id {
                if let old = record[target.idFieldName]?.stringValue, LocalField.isLocalId(old) {
                    createdId = (old, id)
                }
                record[target.idFieldName] = .string(id)
            }
            record.markClean()
            summary.created += 1
        case (.update, .success):
            record.markClean()
            summary.updated += 1
        case (.update, .notFound) where mergeMode == .overwrite || record.overwritesServer:
            // As the SDK: the record was deleted on the server, so it is created again (a new id).
            // "Keep mine" asks for the same whatever the merge mode.
            record[LocalField.locallyCreated] = true
            record[LocalField.locallyUpdated] = false
            record.removeValue(forKey: target.idFieldName)
            summary.recreated += 1
        case (.update, .preconditionFailed) where Self.serverHolds(write.write, serverValues):
            // Our own earlier update whose answer was lost (a crash, a dropped connection): the
            // server already holds every value we send, so there is nothing to protect.
            if let modified = serverValues?[target.modificationDateFieldName] { record[target.modificationDateFieldName] = modified }
            record.markClean()
            summary.updated += 1
        case (.update, .notFound), (.delete, .preconditionFailed), (.update, .preconditionFailed):
            record[LocalField.conflict] = .object([
                "server": serverValues.map { .object($0) } ?? .null, "detectedAt": .int(now),
            ])
            summary.conflicts += 1
        case let (_, .failed(errors)):
            record[LocalField.lastError] = .string(JSONWriter.string(.array(errors.map(\.json))))
            record.removeValue(forKey: LocalField.createInFlight)
            summary.errors += 1
        case (.create, _), (.upsert, _), (.delete, _):
            let text: String = switch answer.outcome {
            case .notFound: "the server answered not found"
            case .preconditionFailed: "the server answered precondition failed"
            default: "unexpected answer"
            }
            record[LocalField.lastError] = .string(JSONWriter.string(.array([
                RecordError(errorCode: "UNEXPECTED_OUTCOME", message: "\(write.action.rawValue): \(text)").json,
            ])))
            record.removeValue(forKey: LocalField.createInFlight)
            summary.errors += 1
        }
        return .update(record, createdId: createdId)
    }

    /// Whether the server's copy already has every field value of an update (a missing field
    /// counts as null). Fields the copy does not show cannot be compared, so they count as different.
    static func serverHolds(_ write: RecordWrite, _ serverValues: JSONObject?) -> Bool {
        guard case let .update(_, _, fields, _) = write, let serverValues, !fields.isEmpty else { return false }
        return fields.allSatisfy { name, value in
            guard let server = serverValues[name] else { return false }
            return server == value
        }
    }

    /// Records a refusal decided before sending (no type, a pending local reference).
    public func refuse(_ entryId: Int64, error: RecordError, summary: inout SyncUpSummary, in transaction: StoreTransaction) throws {
        guard var record = try transaction.retrieve([entryId], from: soupName).first else { return }
        record[LocalField.lastError] = .string(JSONWriter.string(.array([error.json])))
        _ = try transaction.update(record, id: entryId, in: soupName)
        summary.errors += 1
    }
}

/// A record a conditional write found changed (or deleted) on the server.
public struct SyncConflict: Sendable, Equatable {
    public var soupName: String
    public var entryId: Int64
    public var local: JSONObject
    /// The server's values when the conflict was found; `nil` when it had deleted the record.
    public var server: JSONObject?
}

/// The conflicts of a soup and their resolution, for the UI's "keep mine / take the server's".
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
                guard let record = row.arrayValue?.first?.objectValue, let entryId = record.soupEntryId else { return nil }
                return SyncConflict(soupName: soupName, entryId: entryId, local: record,
                                    server: record[LocalField.conflict]?["server"]?.objectValue)
            }
        }
    }

    /// Keep mine: the local changes are written again on the next sync up, unconditionally: a
    /// server edit made since the conflict is overwritten too, and a record the server deleted is
    /// created again. A local delete is sent again and removes the server's record.
    public func keepLocal(entryId: Int64) throws {
        try store.write { transaction in
            guard var record = try transaction.retrieve([entryId], from: soupName).first, record.hasConflict else { return }
            let server = record[LocalField.conflict]?["server"]?.objectValue
            if let server {
                if let modified = server[modificationDateFieldName] { record[modificationDateFieldName] = modified }
                record[LocalField.overwriteServer] = true
            } else if !record.isLocallyDeleted {
                record[LocalField.locallyCreated] = true
                record[LocalField.locallyUpdated] = false
                record.removeValue(forKey: idFieldName)
            } else {
                try transaction.delete([entryId], from: soupName)
                return
            }
            record.removeValue(forKey: LocalField.conflict)
            record.removeValue(forKey: LocalField.lastError)
            record[LocalField.local] = true
            _ = try transaction.update(record, id: entryId, in: soupName)
        }
    }

    /// Take the server's: local changes are dropped and the server's values kept (fields only the
    /// local copy has survive); a record the server deleted is removed.
    public func takeServer(entryId: Int64) throws {
        try store.write { transaction in
            guard let record = try transaction.retrieve([entryId], from: soupName).first, record.hasConflict else { return }
            guard let server = record[LocalField.conflict]?["server"]?.objectValue else {
                try transaction.delete([entryId], from: soupName)
                return
            }
            let syncId = record[LocalField.syncId]?.int64Value ?? 0
            _ = try transaction.update(DownloadedRecordWriter.merge(server: server, over: record, syncId: syncId), id: entryId, in: soupName)
        }
    }
}
