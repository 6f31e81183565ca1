import ForceJSON
import SmartStore

/// The first step of a sync up: reads from the server the records whose server state this laptop
/// does not know, and merges each with its local copy before anything is planned.
/// - Records a lost answer may have written (`WriteJournal`): the server holding the values we sent
///   is our own write, not another user's, so a later edit of ours never conflicts with it.
/// - Under LEAVE_IF_CHANGED, records with local changes whose modification date is unknown (our own
///   last write made it stale, and no sync down has run since): the date is the precondition of
///   the next write, so it is read rather than guessed, and any change another user made meanwhile
///   is merged field by field.
/// - Under LEAVE_IF_CHANGED, records deleted here: DELETE carries no precondition a real org
///   honours, so the server's copy is compared with the date the delete is based on first.
/// Nothing is read when there is no such record, which is the usual case: a sync down after each
/// sync up refreshes the dates.
struct ServerCopyReconciler {
    let task: SyncUpTask
    let planner: SyncUpPlanner
    let recorder: SyncUpRecorder
    /// Ids per retrieve call (the sObject Collections limit).
    static let idsPerRetrieve = 2000

    /// Returns the modification dates read, by entry id, for every record read (null when the
    /// server has none or no copy): the preconditions of this run's writes for records the merge
    /// did not otherwise change, kept in memory rather than written to every record (10k rewrites
    /// cost more than the reads; a run that dies reads them again).
    func run(summary: inout SyncUpSummary) async throws -> [Int64: JSONValue] {
        let soup = recorder.soupName
        let target = recorder.target
        let journal = WriteJournal(soup: soup)
        let leaveIfChanged = planner.options.mergeMode == .leaveIfChanged
        let (journalIds, lost, records) = try task.store.read { transaction in
            let (ids, writes) = try journal.lost(in: transaction)
            var records = try transaction.retrieve(writes.keys.sorted(), from: soup)
            if leaveIfChanged {
                // Creates have no date yet and are not on the server under an id: not read.
                let unknownDate =
                    "json_extract({\(soup):_soup}, '$.\(target.modificationDateFieldName)') IS NULL AND "
                    + "coalesce(json_extract({\(soup):_soup}, '$.\(LocalField.locallyCreated)'), 0) NOT IN (1, 'true', '1')"
                records += try SyncUpTask.dirtyRecords(soup: soup, alsoMatching: unknownDate, in: transaction)
                    .filter { $0.soupEntryId.map { writes[$0] == nil } ?? false && Self.readsServerCopy(of: $0, target: target) }
                // A delete's precondition is the server's: Salesforce takes no conditional header
                // on DELETE ("Conditional Request Headers": "DELETE requests aren't supported"),
                // so the server's copy is read first, as the SDK does, and a copy another user
                // changed since our date is merged (a conflict) instead of deleted.
                let deleted =
                    "coalesce(json_extract({\(soup):_soup}, '$.\(LocalField.locallyDeleted)'), 0) IN (1, 'true', '1') AND "
                    + "json_extract({\(soup):_soup}, '$.\(target.modificationDateFieldName)') IS NOT NULL"
                records += try SyncUpTask.dirtyRecords(soup: soup, alsoMatching: deleted, in: transaction)
                    .filter { $0.soupEntryId.map { writes[$0] == nil } ?? false && Self.readsBeforeDelete($0, target: target) }
            }
            return (ids, writes, records)
        }
        // Only records the server has under this id; created and conflicted ones wait as they are.
        var byType: [String: [(entryId: Int64, id: String)]] = [:]
        for record in records {
            guard let entryId = record.soupEntryId, let (type, id) = Self.serverAddress(of: record, target: target) else { continue }
            byType[type, default: []].append((entryId, id))
        }
        let fields = SyncDownTask.withSyncFieldsForUp(planner.updateFields ?? [], target)
        let reads = byType.keys.sorted().flatMap { type in
            (byType[type] ?? []).chunked(into: Self.idsPerRetrieve).map { (type: type, records: Array($0)) }
        }
        // Up to `requestConcurrency` reads in flight; each answer is merged in a commit of its own
        // as it arrives. The first failure ends the sync (the journal stays for the next run).
        var dates: [Int64: JSONValue] = [:]
        try await RequestWindow(width: task.requestConcurrency, checkAccepting: task.checkAccepting).run(reads.count) { [remote = task.remote] index in
            let read = reads[index]
            let copies = try await remote.retrieve(sobjectType: read.type, ids: read.records.map(\.id), fields: planner.readable(fields, of: read.type))
            return Dictionary(zip(read.records.map(\.entryId), copies).map { ($0, $1) }, uniquingKeysWith: { first, _ in first })
        } handle: { _, serverCopies in
            try task.store.write { transaction in
                try apply(serverCopies, lost: lost, now: transaction.now, summary: &summary, dates: &dates, in: transaction)
            }
        }
        if !journalIds.isEmpty { try task.store.write { try journal.remove(journalIds, in: $0) } }
        return dates
    }

    /// The type and id under which the server has `record`; nil for a record created here or in
    /// conflict (not read: they wait as they are), or without a type.
    static func serverAddress(of record: JSONObject, target: SyncUpTarget) -> (type: String, id: String)? {
        guard !record.isLocallyCreated, !record.hasConflict, let id = record[target.idFieldName]?.stringValue, !LocalField.isLocalId(id),
            let type = record["attributes"]?["type"]?.stringValue, !type.isEmpty
        else { return nil }
        return (type, id)
    }

    /// Whether a run of this reconciler reads `record` under LEAVE_IF_CHANGED: changed here at a
    /// date unknown, and on the server under its id.
    static func readsServerCopy(of record: JSONObject, target: SyncUpTarget) -> Bool {
        record.isDirty && !record.overwritesServer && (record[target.modificationDateFieldName]?.isNull ?? true)
            && serverAddress(of: record, target: target) != nil
    }

    /// Whether a run reads `record`'s server copy before deleting it under LEAVE_IF_CHANGED:
    /// deleted here at a known date, on the server under its id, not "keep mine".
    static func readsBeforeDelete(_ record: JSONObject, target: SyncUpTarget) -> Bool {
        record.isDirty && record.isLocallyDeleted && !record.overwritesServer && !(record[target.modificationDateFieldName]?.isNull ?? true)
            && serverAddress(of: record, target: target) != nil
    }

    /// Merges each record with its server copy (`nil`: the server has no such record), reading it
    /// again in this transaction.
    private func apply(
        _ serverCopies: [Int64: JSONObject?], lost: [Int64: WriteJournal.Entry], now: Int64,
        summary: inout SyncUpSummary, dates: inout [Int64: JSONValue], in transaction: StoreTransaction
    ) throws {
        let soup = recorder.soupName
        let target = recorder.target
        var removed: [Int64] = []
        var changed: [JSONObject] = []
        for var record in try transaction.retrieve(serverCopies.keys.sorted(), from: soup) {
            guard let entryId = record.soupEntryId, !record.isLocallyCreated, !record.hasConflict else { continue }
            // Every record read is known to this run, whatever the merge does (a null date too).
            dates[entryId] = (serverCopies[entryId] ?? nil)?[target.modificationDateFieldName] ?? .null
            let own = lost[entryId]?.fields ?? [:]
            switch (serverCopies[entryId] ?? nil, record.isLocallyDeleted) {
            case (nil, true):
                // Deleted on both sides (or our own delete arrived): nothing is left to keep.
                removed.append(entryId)
                summary.deleted += 1
                continue
            case let (server?, true):
                if recorder.fieldMerge.meetWhileDeletedHere(&record, server: server, own: own, now: now) { summary.conflicts += 1 }
            case (nil, false):
                if lost[entryId]?.isDelete == true || (record.isDirty && planner.options.mergeMode == .overwrite) {
                    // Our own delete arrived before the user undid it, or OVERWRITE: created again.
                    record.becomeLocallyCreated(idFieldName: target.idFieldName)
                    summary.recreated += 1
                } else if record.isDirty {
                    record[LocalField.conflict] = RecordConflict(server: nil, detectedAt: now).json
                    summary.conflicts += 1
                } else {
                    continue  // a ghost: the sync down's ghost cleaning removes it
                }
            case let (server?, false):
                let merged = recorder.fieldMerge.merge(local: record, server: server, own: own, now: now)
                var datedOnly = record
                datedOnly[target.modificationDateFieldName] = server[target.modificationDateFieldName] ?? .null
                if merged.record == datedOnly, lost[entryId] == nil {
                    dates[entryId] = datedOnly[target.modificationDateFieldName]
                    continue
                }
                record = merged.record
                if !merged.conflictingFields.isEmpty {
                    summary.conflicts += 1
                } else if let write = lost[entryId], !write.isDelete, !merged.record.isDirty {
                    summary.updated += 1  // our write whose answer was lost had arrived
                    summary.confirmedAfterLostAnswer += 1
                } else if merged.tookServerValues {
                    summary.mergedFromServer += 1
                }
            }
            changed.append(record)
        }
        try transaction.delete(removed, from: soup)
        if !changed.isEmpty { _ = try transaction.upsert(changed, in: soup) }
    }
}
