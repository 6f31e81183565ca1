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
    /// Records merged with a newer server copy without a conflict: other fields' changes made on
    /// the server came in with the sync up.
    public var mergedFromServer = 0
    /// Of the created and updated: writes whose answer a dropped link lost, found done on the
    /// server (a create by its values, an update by its server copy) and not sent again.
    public var confirmedAfterLostAnswer = 0

    public init() {}
}

/// Applies the server's answers to the soup, inside the caller's transaction. Each record's new
/// state is a pure function of its entry, the write as it was sent and the answer, so a run that is
/// killed and run again reaches the same end state — and a record changed here while its write was
/// on its way keeps the newer values, still to be sent.
public struct SyncUpRecorder: Sendable {
    public var soupName: String
    public var target: SyncUpTarget
    public var mergeMode: MergeMode
    /// The fields an update may send (the merge of a refused write takes the server's value of
    /// every other field); `nil`: every field.
    public var updateFields: [String]?
    /// The sync down a created record joins (`InFlightCreates.owningSyncDownId`).
    public var owningSyncDownId: Int64?

    public init(soupName: String, target: SyncUpTarget, mergeMode: MergeMode, updateFields: [String]? = nil, owningSyncDownId: Int64? = nil) {
        self.soupName = soupName
        self.target = target
        self.mergeMode = mergeMode
        self.updateFields = updateFields
        self.owningSyncDownId = owningSyncDownId
    }

    var fieldMerge: FieldMerge {
        FieldMerge(
            idFieldName: target.idFieldName, modificationDateFieldName: target.modificationDateFieldName,
            updatableFields: updateFields.map(Set.init))
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

    /// Journals creates before they are sent, with the values sent: a record marked so whose
    /// answer was lost is recognised on the next run (docs/mobilesync.md, "Creates and crashes"),
    /// even if it was edited since. The records are read with one query and written in one batch
    /// (per record, the statements cost more than the records: `make bench-sync`).
    public func markCreatesInFlight(_ writes: [PlannedWrite], now: Int64, in transaction: StoreTransaction) throws {
        let creates = writes.filter { $0.action == .create || $0.action == .upsert }
        guard !creates.isEmpty else { return }
        let sent = Dictionary(creates.map { ($0.entryId, $0.write.sentFields) }, uniquingKeysWith: { _, last in last })
        var journaled: [JSONObject] = []
        for var record in try transaction.retrieve(creates.map(\.entryId), from: soupName) {
            guard let entryId = record.soupEntryId else { continue }
            if record[target.idFieldName] == nil || record[target.idFieldName]?.isNull == true {
                record[target.idFieldName] = .string(LocalField.localIdPrefix + String(entryId))
            }
            record[LocalField.createInFlight] = .object(["sentAt": .int(now), "fields": .object(sent[entryId] ?? [:])])
            journaled.append(record)
        }
        if !journaled.isEmpty { _ = try transaction.upsert(journaled, in: soupName) }
    }

    /// Records one outcome. `serverValues` is the server's copy for a refused conditional write
    /// (`nil` when the server no longer has the record).
    @discardableResult
    public func apply(
        _ outcome: RecordOutcome, to write: PlannedWrite, serverValues: JSONObject?, now: Int64,
        summary: inout SyncUpSummary, in transaction: StoreTransaction
    ) throws -> Set<Int64> {
        try apply([Answer(outcome, to: write, serverValues: serverValues)], now: now, summary: &summary, in: transaction)
    }

    /// Records the answers of one request: the records are read with one query, each new state is
    /// decided in memory (in answer order, as one call per answer would), and the results are
    /// written in one batch, with the new `local_` → server id pairs. Returns the records to send
    /// again in this run: their refused write merged cleanly with the server's changes, or (under
    /// OVERWRITE) the server had deleted them and they are now creates.
    @discardableResult
    public func apply(_ answers: [Answer], now: Int64, summary: inout SyncUpSummary, in transaction: StoreTransaction) throws -> Set<Int64> {
        guard !answers.isEmpty else { return [] }
        var current: [Int64: JSONObject] = [:]
        for record in try transaction.retrieve(Array(Set(answers.map(\.write.entryId))), from: soupName) {
            if let entryId = record.soupEntryId { current[entryId] = record }
        }
        var changedOrder: [Int64] = []
        var deleted: [Int64] = []
        var serverIds: [(localId: String, serverId: String)] = []
        var resend: Set<Int64> = []
        for answer in answers {
            let entryId = answer.write.entryId
            guard let record = current[entryId] else { continue }
            switch effect(of: answer, on: record, now: now, summary: &summary) {
            case .delete:
                current.removeValue(forKey: entryId)
                deleted.append(entryId)
            case let .update(updated, createdId, again):
                if let createdId { serverIds.append(createdId) }
                if again { resend.insert(entryId) }
                current[entryId] = updated
                if !changedOrder.contains(entryId) { changedOrder.append(entryId) }
            }
        }
        try transaction.delete(deleted, from: soupName)
        try LocalIdMap.record(serverIds, soup: soupName, in: transaction)
        let changed = changedOrder.compactMap { current[$0] }
        if !changed.isEmpty { _ = try transaction.upsert(changed, in: soupName) }
        return resend
    }

    /// What an answer does to a record: it leaves the soup, or it is stored as given (with the
    /// `local_` → server id pair of a create, and whether to send it again in this run).
    private enum Effect {
        case delete
        case update(JSONObject, createdId: (localId: String, serverId: String)?, sendAgain: Bool)
    }

    /// A record's new state: a pure function of the record, the write as sent and its answer.
    private func effect(of answer: Answer, on stored: JSONObject, now: Int64, summary: inout SyncUpSummary) -> Effect {
        var record = stored
        var createdId: (localId: String, serverId: String)?
        var sendAgain = false
        let write = answer.write
        let serverValues = answer.serverValues
        switch (write.action, answer.outcome) {
        case (.delete, .success), (.delete, .notFound), (.delete, .preconditionFailed):
            if answer.outcome == .preconditionFailed, let server = serverValues {
                // Changed on the server since our version. Undeleted here meanwhile: nothing to
                // decide, the server's changes are merged in. Otherwise the delete goes again with
                // the new date, unless that is a conflict.
                if !record.isLocallyDeleted {
                    let merged = fieldMerge.merge(local: record, server: server, now: now)
                    record = merged.record
                    if !merged.conflictingFields.isEmpty { summary.conflicts += 1 }
                } else if fieldMerge.meetWhileDeletedHere(&record, server: server, now: now) {
                    summary.conflicts += 1
                } else {
                    sendAgain = true
                }
                break
            }
            // Done, or refused for a record the server no longer has: nothing is left to delete.
            summary.deleted += 1
            guard record.isLocallyDeleted else {
                // Undeleted here while the delete was on its way: the server no longer has it, and
                // the user wants it back.
                record.becomeLocallyCreated(idFieldName: target.idFieldName)
                summary.recreated += 1
                break
            }
            return .delete
        case let (.create, .success(id)), let (.upsert, .success(id)):
            if let id {
                if let old = record[target.idFieldName]?.stringValue, LocalField.isLocalId(old) {
                    createdId = (old, id)
                }
                record[target.idFieldName] = .string(id)
            }
            record.adoptServerIds(of: write.references, sent: write.write.sentFields)
            record.settleCreate(sent: write.write.sentFields, syncDownId: owningSyncDownId)
            summary.created += 1
        case (.update, .success):
            record.removeValue(forKey: LocalField.lastError)
            record.adoptServerIds(of: write.references, sent: write.write.sentFields)
            record.settleUpdate(sent: write.write.sentFields, modificationDateFieldName: target.modificationDateFieldName)
            summary.updated += 1
        case (.update, .notFound) where mergeMode == .overwrite || record.overwritesServer:
            // As the SDK: the record was deleted on the server, so it is created again (a new id),
            // in this run under OVERWRITE.
            record.becomeLocallyCreated(idFieldName: target.idFieldName)
            summary.recreated += 1
            sendAgain = mergeMode == .overwrite
        case (.update, .preconditionFailed) where serverValues != nil:
            let merged = fieldMerge.merge(local: record, server: serverValues ?? [:], now: now)
            record = merged.record
            if merged.conflictingFields.isEmpty, merged.tookServerValues { summary.mergedFromServer += 1 }
            if !merged.conflictingFields.isEmpty {
                summary.conflicts += 1
            } else if merged.hasLocalChanges {
                // Only other fields changed on the server (or our own earlier write, whose answer
                // was lost): the merge took them, and the changes go again with the new date.
                sendAgain = true
            } else {
                summary.updated += 1
            }
        case (.update, .notFound), (.update, .preconditionFailed):
            record[LocalField.conflict] = RecordConflict(server: nil, detectedAt: now).json
            summary.conflicts += 1
        case let (_, .failed(errors)):
            record[LocalField.lastError] = .string(JSONWriter.string(.array(errors.map(\.json))))
            record.removeValue(forKey: LocalField.createInFlight)
            summary.errors += 1
        case (.create, _), (.upsert, _), (.delete, _):
            let text: String =
                switch answer.outcome {
                case .notFound: "the server answered not found"
                case .preconditionFailed: "the server answered precondition failed"
                default: "unexpected answer"
                }
            record[LocalField.lastError] = .string(
                JSONWriter.string(
                    .array([
                        RecordError(errorCode: "UNEXPECTED_OUTCOME", message: "\(write.action.rawValue): \(text)").json
                    ])))
            record.removeValue(forKey: LocalField.createInFlight)
            summary.errors += 1
        }
        return .update(record, createdId: createdId, sendAgain: sendAgain)
    }

    /// Marks clean the records a plan found with nothing to send, checking each again in this
    /// transaction: one changed since the plan was read keeps its changes.
    func settleUnchanged(_ entryIds: [Int64], planner: SyncUpPlanner, in transaction: StoreTransaction) throws {
        guard !entryIds.isEmpty, let fields = planner.updateFields else { return }
        var settled: [JSONObject] = []
        for var record in try transaction.retrieve(entryIds, from: soupName)
        where record.isDirty && !record.isLocallyCreated && !record.isLocallyDeleted && !record.hasConflict
            && planner.changedFields(record, of: fields).isEmpty
        {
            record.markClean()
            settled.append(record)
        }
        if !settled.isEmpty { _ = try transaction.upsert(settled, in: soupName) }
    }

    /// Records a refusal decided before sending (no type, a pending local reference).
    public func refuse(_ entryId: Int64, error: RecordError, summary: inout SyncUpSummary, in transaction: StoreTransaction) throws {
        guard var record = try transaction.retrieve([entryId], from: soupName).first else { return }
        record[LocalField.lastError] = .string(JSONWriter.string(.array([error.json])))
        _ = try transaction.update(record, id: entryId, in: soupName)
        summary.errors += 1
    }
}

extension RecordWrite {
    /// The field values this write carries to the server (an upsert's external id included).
    var sentFields: JSONObject {
        switch self {
        case let .create(_, fields), let .update(_, _, fields, _): return fields
        case let .upsert(_, field, value, fields):
            var all = fields
            all[field] = .string(value)
            return all
        case .delete: return [:]
        }
    }
}

extension JSONObject {
    /// A reference sent as the server id its `local_` id now maps to holds that server id from now
    /// on, unless the field was changed while the write was on its way.
    mutating func adoptServerIds(of references: [String: String], sent: JSONObject) {
        for (field, localId) in references where self[field]?.stringValue == localId {
            self[field] = sent[field] ?? self[field]
        }
    }

    /// A create reached the server with `sent`: the record is no longer created here; a field
    /// changed while the create was on its way stays a local change, with the value sent as base.
    mutating func settleCreate(sent: JSONObject, syncDownId: Int64?) {
        removeValue(forKey: LocalField.createInFlight)
        removeValue(forKey: LocalField.createInDoubt)
        removeValue(forKey: LocalField.allowDuplicate)
        if let syncDownId, self[LocalField.syncId] == nil { self[LocalField.syncId] = .int(syncDownId) }
        var base: JSONObject = [:]
        for (key, value) in sent where !FieldValues.same(self[key], value) { base[key] = value }
        self[LocalField.locallyCreated] = false
        setBase(base)
    }

    /// An update reached the server with `sent`. The server's new modification date is not in the
    /// answer, so it becomes unknown (null): the next conditional write reads the record first
    /// rather than send a date our own write has made stale. A field changed again while the update
    /// was on its way stays a local change.
    mutating func settleUpdate(sent: JSONObject, modificationDateFieldName: String) {
        self[modificationDateFieldName] = .null
        removeValue(forKey: LocalField.overwriteServer)
        settle(sent: sent)
    }

    /// Created again on the next sync up (a new id): the server no longer has the record and the
    /// user wants it.
    mutating func becomeLocallyCreated(idFieldName: String) {
        self[LocalField.local] = true
        self[LocalField.locallyCreated] = true
        self[LocalField.locallyUpdated] = false
        self[LocalField.locallyDeleted] = false
        removeValue(forKey: idFieldName)
        removeValue(forKey: LocalField.base)
        removeValue(forKey: LocalField.conflict)
        removeValue(forKey: LocalField.overwriteServer)
    }
}
