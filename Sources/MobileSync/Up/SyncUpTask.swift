import ForceJSON
import SmartStore

/// Runs one sync up against a `SyncRemote`: settle what earlier runs left unknown, plan from the
/// soup, send the requests, and record each request's answers in one store transaction, so a kill
/// loses at most the answers of the requests in flight — and those are journaled first (creates on
/// the record, `__create_in_flight__`; updates and deletes in `WriteJournal`). Consecutive
/// composite or collection requests of one action (the creates, and the conditional updates and
/// deletes of LEAVE_IF_CHANGED) form a run with up to `requestConcurrency` requests in flight, the
/// next one leaving as each answer is recorded; a run ends before the next action starts, so
/// deletes still reach the server before creates, and creates before updates.
struct SyncUpTask: Sendable {
    let store: SmartStore
    let syncs: SyncsSoup
    let remote: any SyncRemote
    let checkAccepting: @Sendable () async throws -> Void
    let report: @Sendable (SyncState) -> Void
    var requestConcurrency = SyncManager.defaultRequestConcurrency

    /// The answers to one request: an outcome per write, and the server's copy of each record
    /// whose conditional write was refused.
    private struct Answer: Sendable {
        var outcomes: [RecordOutcome]
        var serverValues: [Int: JSONObject]
    }

    /// Runs the sync up; `summary` holds the tallies of the answers recorded, also when the run
    /// then fails.
    func run(_ initial: SyncState, summary: inout SyncUpSummary) async throws -> SyncState {
        guard case let .up(target) = initial.target else {
            throw MobileSyncError.wrongSyncType(id: initial.id, expected: .syncUp, actual: .syncDown)
        }
        guard let tree = target.parentChildren else {
            return try await run(initial, soup: initial.soupName, target: target, options: initial.options, summary: &summary)
        }
        // parent_children: the parents, then their children (the parents' new ids through LocalIdMap).
        let deleting = try store.read { try Self.deletedParentIds(tree, in: $0) }
        var state = try await run(initial, soup: tree.parent.soupName, target: target, options: initial.options, summary: &summary)
        if tree.relationshipType == .masterDetail {
            // Deleting a master deletes its details on the server: they go here too, unsent.
            summary.removedLocally += try store.write { try Self.removeChildren(of: deleting, tree, in: $0) }
        }
        let childOptions = SyncOptions(mergeMode: initial.options.mergeMode)
        state = try await run(state, soup: tree.children.soupName, target: tree.childTarget, options: childOptions, summary: &summary)
        return state
    }

    /// The server ids of the parents marked deleted that are gone from the soup after the parents'
    /// sync up: deleted on the server (or already gone there).
    static func deletedParentIds(_ tree: ParentChildrenUp, in transaction: StoreTransaction) throws -> Set<String> {
        let soup = tree.parent.soupName
        let rows = try GhostCleaner.rows(
            "SELECT {\(soup):\(tree.parent.idFieldName)} FROM {\(soup)} WHERE {\(soup):\(LocalField.locallyDeleted)} IN ('true', '1', 1)",
            in: transaction)
        return Set(rows.compactMap { $0.first?.stringValue }.filter { !LocalField.isLocalId($0) })
    }

    /// Removes the children of `parentIds` whose parents are no longer in the parent soup.
    static func removeChildren(of parentIds: Set<String>, _ tree: ParentChildrenUp, in transaction: StoreTransaction) throws -> Int {
        let parents = tree.parent.soupName
        let children = tree.children.soupName
        var removed = 0
        func entryIds(_ soup: String, where field: String, is id: String) throws -> [Int64] {
            try transaction.query(
                .smart("SELECT {\(soup):_soupEntryId} FROM {\(soup)} WHERE {\(soup):\(field)} = ?", pageSize: 100_000),
                arguments: [.string(id)]
            ).compactMap { $0.arrayValue?.first?.int64Value }
        }
        for id in parentIds.sorted() where try entryIds(parents, where: tree.parent.idFieldName, is: id).isEmpty {
            let entries = try entryIds(children, where: tree.parentIdFieldName, is: id)
            try transaction.delete(entries, from: children)
            removed += entries.count
        }
        return removed
    }

    /// One soup's sync up under `state` (whose definition is saved unchanged): `soup`, `target`
    /// and `options` are the sync's own, or one side of a parent_children sync.
    private func run(
        _ initial: SyncState, soup: String, target: SyncUpTarget, options: SyncOptions,
        summary: inout SyncUpSummary
    ) async throws -> SyncState {
        var state = initial
        var planner = SyncUpPlanner(target: target, options: options, soupName: soup)
        planner.described = try describes(forRecordsOf: soup)
        let recorder = SyncUpRecorder(
            soupName: soup, target: target, mergeMode: options.mergeMode, updateFields: planner.updateFields,
            owningSyncDownId: try InFlightCreates.owningSyncDownId(soup: soup, syncs: syncs))
        // Creates found made on the server count as created: this run learnt what became of them.
        let adopted = try await InFlightCreates(
            store: store, syncs: syncs, remote: remote, soup: soup, idFieldName: target.idFieldName,
            owningSyncDownId: recorder.owningSyncDownId, checkAccepting: checkAccepting
        ).recover { record, serverIds -> JSONObject? in
            // A create with an external id is an upsert: sending it again is safe.
            if let field = target.externalIdFieldName, let value = record[field]?.stringValue, !value.isEmpty, !LocalField.isLocalId(value) {
                return nil
            }
            // Journaled before the values sent were kept: the record's own, references as then.
            return record[LocalField.createInFlight]?["fields"]?.objectValue
                ?? (try? planner.project(record, planner.createFields ?? [], serverIds: serverIds))
        }
        summary.created += adopted
        summary.confirmedAfterLostAnswer += adopted
        let freshDates = try await ServerCopyReconciler(task: self, planner: planner, recorder: recorder).run(summary: &summary)
        // A second pass sends only what the first turned into new writes: refused updates merged
        // with the server's changes (sent again with the server's date), and (OVERWRITE) updates of
        // records deleted on the server, now creates. Everything else waits for the next run.
        // Records the org refused for a moment (a locked parent row, an instance too busy) are
        // sent again in this run, alone, after a pause that grows: Salesforce tells clients to
        // retry UNABLE_TO_LOCK_ROW ("Record-Level Locking").
        var again: Set<Int64> = []
        var retrying: Set<Int64> = []
        var retries = 0
        var pass = 0
        while true {
            defer { pass += 1 }
            if pass > 0 {
                if !retrying.isEmpty {
                    if retries < retryDelays.count {
                        try await Self.pause(retryDelays[retries], checkAccepting: checkAccepting)
                        retries += 1
                    } else {
                        retrying = []  // they wait for the next run, their refusal recorded
                    }
                }
                guard !again.isEmpty || !retrying.isEmpty else { break }
            }
            let resend = again.union(retrying)
            var (records, serverIds) = try store.read { transaction in
                (try Self.dirtyRecords(soup: soup, in: transaction), try LocalIdMap.all(in: transaction))
            }
            if !freshDates.isEmpty {
                // The dates just read, for records still at an unknown one.
                for index in records.indices {
                    guard let entryId = records[index].soupEntryId, let date = freshDates[entryId],
                        records[index][target.modificationDateFieldName]?.isNull ?? true
                    else { continue }
                    records[index][target.modificationDateFieldName] = date
                }
            }
            if options.mergeMode == .leaveIfChanged {
                // Changed here after the server copies were read, at a date our own last write made
                // unknown: sent now it would go without a precondition and could overwrite another
                // user's change. It waits for the next run, which reads its server copy first.
                records.removeAll { record in
                    record.soupEntryId.map { freshDates[$0] == nil } ?? false
                        && (ServerCopyReconciler.readsServerCopy(of: record, target: target)
                            // Deleted here after the server copies were read: a real org deletes
                            // whatever its date, so the delete waits for a run that reads it first.
                            || ServerCopyReconciler.readsBeforeDelete(record, target: target))
                }
            }
            var plan = try planner.plan(records, serverIds: serverIds)
            if pass > 0 {
                plan = SyncUpPlan(writes: plan.writes.filter { resend.contains($0.entryId) })
                // A record sent again is counted again if it is refused again.
                summary.errors -= plan.writes.filter { retrying.contains($0.entryId) }.count
            }
            let requests = plan.requests(for: target)
            if pass == 0 {
                state.totalSize = plan.writes.count + plan.removeLocally.count
                try syncs.save(state)
                report(state)
            } else if requests.isEmpty {
                break
            }
            try store.write { transaction in
                try transaction.delete(plan.removeLocally, from: soup)
                try recorder.settleUnchanged(plan.unchanged, planner: planner, in: transaction)
                for (entryId, error) in plan.refused.sorted(by: { $0.key < $1.key }) {
                    try recorder.refuse(entryId, error: error, summary: &summary, in: transaction)
                }
            }
            summary.removedLocally += plan.removeLocally.count
            var progress = RunProgress(state: state, summary: summary, done: plan.removeLocally.count, resending: pass > 0)
            defer { summary = progress.summary }
            for run in Self.runs(requests) {
                try await send(run, planner: planner, target: target, recorder: recorder, progress: &progress)
            }
            state = progress.state
            again = pass == 0 ? progress.again : []
            retrying = progress.retryable
        }
        return state
    }

    /// Seconds before each retry of records the org refused for a moment.
    var retryDelays: [Duration] = [.seconds(1), .seconds(2), .seconds(4)]

    /// The refusals that pass: sent again within the run.
    static let retryableCodes: Set<String> = ["UNABLE_TO_LOCK_ROW", "SERVER_UNAVAILABLE", "REQUEST_RUNNING_TOO_LONG"]

    /// Waits `delay`, a quarter more or less at random (so laptops refused together do not come
    /// back together), checking the sync was not stopped.
    static func pause(_ delay: Duration, checkAccepting: @Sendable () async throws -> Void) async throws {
        let seconds = Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18
        try await Task.sleep(for: .milliseconds(Int(seconds * 1000 * Double.random(in: 0.75...1.25))))
        try await checkAccepting()
    }

    /// What a pass has done so far: the sync's state and tallies, the writes answered, and the
    /// records to send again in the next pass.
    private struct RunProgress {
        var state: SyncState
        var summary: SyncUpSummary
        var done: Int
        var again: Set<Int64> = []
        /// Records refused for a moment (`retryableCodes`): sent again after a pause.
        var retryable: Set<Int64> = []
        /// The second pass sends records the first already counted as sent: "sent" counts records.
        var resending = false
    }

    /// Sends a run of requests that may overlap, keeping up to `requestConcurrency` in flight: a
    /// request leaves as soon as an earlier one's answer is recorded, not when a whole group has
    /// come back, so recording (and its commit) overlaps the other requests' round trips. A
    /// request's writes are journaled in a commit before it is sent — the first ones together, each
    /// later one in the commit that records the answer it waited for. Every answer that arrives is
    /// recorded, even after another request failed: records done on the server stay done; no new
    /// request leaves after a failure, and the first failure then ends the sync.
    private func send(
        _ run: [WriteRequest], planner: SyncUpPlanner, target: SyncUpTarget, recorder: SyncUpRecorder,
        progress: inout RunProgress
    ) async throws {
        let concurrency = max(requestConcurrency, 1)
        let journal = WriteJournal(soup: recorder.soupName)
        var failure: (any Error)?
        /// Requests journaled and not yet sent, and each sent request's journal entry.
        var journaled = 0
        var sent = 0
        var entries: [Int: Int64] = [:]
        func journalNext(_ count: Int, in transaction: StoreTransaction) throws {
            let end = min(journaled + count, run.count)
            for index in journaled..<end {
                try recorder.markCreatesInFlight(run[index].writes, now: transaction.now, in: transaction)
                entries[index] = try journal.record(run[index].writes, now: transaction.now, in: transaction)
            }
            journaled = end
        }
        func launch(into group: inout TaskGroup<(Int, Result<Answer, any Error>)>) async {
            guard failure == nil else { return }
            do { try await checkAccepting() } catch {
                failure = error
                return
            }
            for index in sent..<journaled {
                let request = run[index]
                group.addTask { (index, await answer(request, planner: planner, target: target)) }
            }
            sent = journaled
        }
        try await checkAccepting()
        try store.write { try journalNext(concurrency, in: $0) }
        await withTaskGroup(of: (Int, Result<Answer, any Error>).self) { group in
            await launch(into: &group)
            while let (index, result) = await group.next() {
                do {
                    let answer = try result.get()
                    try record(answer, to: run[index], journalEntry: entries[index], recorder: recorder, progress: &progress) { transaction in
                        if failure == nil { try journalNext(1, in: transaction) }
                    }
                } catch {
                    failure = failure ?? error
                }
                await launch(into: &group)
            }
        }
        if let failure { throw failure }
    }

    /// Records one request's answers in one commit, with the sync's progress, forgets its journal
    /// entry, runs `alsoInTransaction` (journaling the next request), and reports it.
    private func record(
        _ answer: Answer, to request: WriteRequest, journalEntry: Int64?, recorder: SyncUpRecorder,
        progress: inout RunProgress, alsoInTransaction: (StoreTransaction) throws -> Void
    ) throws {
        var summary = progress.summary
        var state = progress.state
        if !progress.resending { summary.sent += request.writes.count }
        let done = progress.done + request.writes.count
        let again = try store.write { transaction in
            let answers = answer.outcomes.enumerated().map { index, outcome in
                SyncUpRecorder.Answer(outcome, to: request.writes[index], serverValues: answer.serverValues[index])
            }
            let again = try recorder.apply(answers, now: transaction.now, summary: &summary, in: transaction)
            try WriteJournal(soup: recorder.soupName).remove(journalEntry.map { [$0] } ?? [], in: transaction)
            if state.totalSize > 0, done < state.totalSize { state.progress = done * 100 / state.totalSize }
            try syncs.save(state, in: transaction)
            try alsoInTransaction(transaction)
            return again
        }
        progress.again.formUnion(again)
        for (index, outcome) in answer.outcomes.enumerated() {
            guard case let .failed(errors) = outcome, errors.contains(where: { Self.retryableCodes.contains($0.errorCode) }) else { continue }
            progress.retryable.insert(request.writes[index].entryId)
        }
        progress.summary = summary
        progress.state = state
        progress.done = done
        report(state)
    }

    /// One request's outcomes, plus the server's copy of each record whose precondition failed.
    private func answer(_ request: WriteRequest, planner: SyncUpPlanner, target: SyncUpTarget) async -> Result<Answer, any Error> {
        do {
            let outcomes = try await remote.send(request.writes.map(\.write), route: request.route, allowingDuplicates: request.allowsDuplicates)
            guard outcomes.count == request.writes.count else {
                throw MobileSyncError.remote(.malformedResponse("\(outcomes.count) results for \(request.writes.count) records"))
            }
            // The server's copies of the refused writes: one retrieve per type and field list.
            var serverValues: [Int: JSONObject] = [:]
            let refused = Dictionary(grouping: outcomes.indices.filter { outcomes[$0] == .preconditionFailed }) { index in
                RefusedGroup(sobjectType: request.writes[index].write.sobjectType, isUpdate: request.writes[index].action == .update)
            }
            for (group, indexes) in refused.sorted(by: { $0.value[0] < $1.value[0] }) {
                let fields = (group.isUpdate ? planner.updateFields : planner.createFields) ?? []
                let found = try await remote.retrieve(
                    sobjectType: group.sobjectType, ids: indexes.map { request.writes[$0].recordId ?? "" },
                    fields: planner.readable(SyncDownTask.withSyncFieldsForUp(fields, target), of: group.sobjectType))
                for (index, record) in zip(indexes, found) { serverValues[index] = record }
            }
            return .success(Answer(outcomes: outcomes, serverValues: serverValues))
        } catch {
            return .failure(error)
        }
    }

    /// Refused writes whose server copies one retrieve can read.
    private struct RefusedGroup: Hashable {
        var sobjectType: String
        var isUpdate: Bool
    }

    /// The requests grouped into runs whose requests may be in flight together: consecutive
    /// composite or collection requests of one route and action; single-record requests alone.
    /// The records of one action are independent (references to records created in the same run
    /// are held back by the planner), so their requests may overlap; a run ends before the next
    /// action starts, so deletes reach the server before creates, and creates before updates.
    /// Order is kept.
    static func runs(_ requests: [WriteRequest]) -> [[WriteRequest]] {
        var runs: [[WriteRequest]] = []
        for request in requests {
            if request.route != .single, let last = runs.last, last[0].route == request.route,
                last[0].writes.first?.action == request.writes.first?.action, last[0].allowsDuplicates == request.allowsDuplicates
            {
                runs[runs.count - 1].append(request)
            } else {
                runs.append([request])
            }
        }
        return runs
    }

    /// The stored describes of the sObject types the soup's dirty records are of.
    private func describes(forRecordsOf soup: String) throws -> [String: DescribedFields] {
        let sql = "SELECT DISTINCT json_extract({\(soup):_soup}, '$.attributes.type') FROM {\(soup)} WHERE \(LocalField.dirtyPredicate(soup: soup))"
        let types = try store.read { try GhostCleaner.rows(sql, in: $0) }.compactMap { $0.first?.stringValue }
        var found: [String: DescribedFields] = [:]
        for type in types { found[type] = try DescribedFields.stored(type, store: store, syncs: syncs) }
        return found
    }

    /// Dirty entries of a soup in entry-id order; `condition` (Smart SQL) narrows them further.
    static func dirtyRecords(soup: String, alsoMatching condition: String? = nil, in transaction: StoreTransaction) throws -> [JSONObject] {
        let predicate = LocalField.dirtyPredicate(soup: soup) + (condition.map { " AND (\($0))" } ?? "")
        let sql = "SELECT {\(soup):_soup} FROM {\(soup)} WHERE \(predicate) ORDER BY {\(soup):_soupEntryId}"
        return try GhostCleaner.rows(sql, in: transaction).compactMap { $0.first?.objectValue }
    }
}

extension SyncDownTask {
    static func withSyncFieldsForUp(_ fields: [String], _ target: SyncUpTarget) -> [String] {
        var all = [target.idFieldName, target.modificationDateFieldName]
        for field in fields where !all.contains(where: { $0.caseInsensitiveEquals(field) }) { all.append(field) }
        return all
    }
}
