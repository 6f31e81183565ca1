import ForceJSON
import SmartStore

/// Runs one sync up against a `SyncRemote`: plan from the soup, send the requests, and record each
/// request's answers in one store transaction, so a kill loses at most the answers of the requests
/// in flight — and those creates are journaled (`__create_in_flight__`) first. Consecutive composite
/// or collection requests of one action (the creates, and the conditional updates and deletes of
/// LEAVE_IF_CHANGED) travel up to `requestConcurrency` at a time; a window ends before the next
/// action starts, so deletes still reach the server before creates, and creates before updates.
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

    func run(_ initial: SyncState) async throws -> (SyncState, SyncUpSummary) {
        var state = initial
        guard case let .up(target) = state.target else { throw MobileSyncError.wrongSyncType(id: state.id, expected: .syncUp, actual: .syncDown) }
        let soup = state.soupName
        let recorder = SyncUpRecorder(soupName: soup, target: target, mergeMode: state.options.mergeMode)
        var summary = SyncUpSummary()
        try await recoverCreatesInFlight(soup: soup, target: target, state: state)
        // A second pass sends only the records the first turned into creates (updated here,
        // deleted on the server, OVERWRITE); everything else waits for the next run.
        var recreated: Set<Int64> = []
        for pass in 0..<2 {
            let (records, serverIds) = try store.read { transaction in
                (try Self.dirtyRecords(soup: soup, in: transaction), try LocalIdMap.all(in: transaction))
            }
            let planner = SyncUpPlanner(target: target, options: state.options, soupName: soup)
            var plan = try planner.plan(records, serverIds: serverIds)
            if pass == 1 {
                plan = SyncUpPlan(writes: plan.writes.filter { recreated.contains($0.entryId) })
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
                for (entryId, error) in plan.refused.sorted(by: { $0.key < $1.key }) {
                    try recorder.refuse(entryId, error: error, summary: &summary, in: transaction)
                }
            }
            summary.removedLocally += plan.removeLocally.count
            var done = plan.removeLocally.count
            for window in Self.windows(requests, requestConcurrency: requestConcurrency) {
                try await checkAccepting()
                try store.write { transaction in
                    for request in window { try recorder.markCreatesInFlight(request.writes, now: transaction.now, in: transaction) }
                }
                // Every answer that arrives is recorded, even when another request of the window
                // failed: records done on the server stay done. The first failure then ends the sync.
                var failure: (any Error)?
                for (request, result) in await send(window, planner: planner, target: target) {
                    let answer: Answer
                    switch result {
                    case let .success(value): answer = value
                    case let .failure(error):
                        failure = failure ?? error
                        continue
                    }
                    for (index, outcome) in answer.outcomes.enumerated()
                    where outcome == .notFound && request.writes[index].action == .update && state.options.mergeMode == .overwrite {
                        recreated.insert(request.writes[index].entryId)
                    }
                    summary.sent += request.writes.count
                    done += request.writes.count
                    try store.write { transaction in
                        let answers = answer.outcomes.enumerated().map { index, outcome in
                            SyncUpRecorder.Answer(outcome, to: request.writes[index], serverValues: answer.serverValues[index])
                        }
                        try recorder.apply(answers, now: transaction.now, summary: &summary, in: transaction)
                        if state.totalSize > 0, done < state.totalSize { state.progress = done * 100 / state.totalSize }
                        try syncs.save(state, in: transaction)
                    }
                    report(state)
                }
                if let failure { throw failure }
            }
        }
        return (state, summary)
    }

    /// Sends the requests of a window at once; their answers (or failures) come back as each arrives.
    private func send(_ window: [WriteRequest], planner: SyncUpPlanner, target: SyncUpTarget)
        async -> [(WriteRequest, Result<Answer, any Error>)] {
        guard window.count > 1 else { return [(window[0], await answer(window[0], planner: planner, target: target))] }
        return await withTaskGroup(of: (Int, Result<Answer, any Error>).self) { group in
            for (index, request) in window.enumerated() {
                group.addTask { (index, await answer(request, planner: planner, target: target)) }
            }
            var answers: [(WriteRequest, Result<Answer, any Error>)] = []
            for await (index, result) in group { answers.append((window[index], result)) }
            return answers
        }
    }

    /// One request's outcomes, plus the server's copy of each record whose precondition failed.
    private func answer(_ request: WriteRequest, planner: SyncUpPlanner, target: SyncUpTarget) async -> Result<Answer, any Error> {
        do {
            let outcomes = try await remote.send(request.writes.map(\.write), route: request.route)
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
                let found = try await remote.retrieve(sobjectType: group.sobjectType, ids: indexes.map { request.writes[$0].recordId ?? "" },
                                                      fields: SyncDownTask.withSyncFieldsForUp(fields, target))
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

    /// The requests grouped into what travels together: runs of composite or collection requests
    /// of one route and action, at most `requestConcurrency` long; single-record requests alone.
    /// The records of one action are independent (references to records created in the same run
    /// are held back by the planner), so their requests may overlap. Order is kept.
    static func windows(_ requests: [WriteRequest], requestConcurrency: Int) -> [[WriteRequest]] {
        var windows: [[WriteRequest]] = []
        for request in requests {
            if request.route != .single, let last = windows.last, last.count < max(requestConcurrency, 1),
               last[0].route == request.route, last[0].writes.first?.action == request.writes.first?.action {
                windows[windows.count - 1].append(request)
            } else {
                windows.append([request])
            }
        }
        return windows
    }

    /// Records a killed run had sent as creates without hearing back. With an external id the next
    /// send is an upsert and needs nothing here. Without one, the server is asked for a record of
    /// that type created since the send with the same field values: exactly one match is adopted
    /// as the record's server copy, none means the create never arrived (it is sent again), and
    /// several are left to the user with an error.
    private func recoverCreatesInFlight(soup: String, target: SyncUpTarget, state: SyncState) async throws {
        let records = try store.read { try Self.dirtyRecords(soup: soup, in: $0) }.filter { $0[LocalField.createInFlight] != nil }
        guard !records.isEmpty else { return }
        let serverIds = try store.read { try LocalIdMap.all(in: $0) }
        let planner = SyncUpPlanner(target: target, options: state.options, soupName: soup)
        for record in records {
            guard let entryId = record.soupEntryId else { continue }
            if let field = target.externalIdFieldName, let value = record[field]?.stringValue, !value.isEmpty, !LocalField.isLocalId(value) {
                continue
            }
            guard let type = record["attributes"]?["type"]?.stringValue,
                  let sentAt = record[LocalField.createInFlight]?["sentAt"]?.int64Value,
                  // The values as sent: local references rewritten to the server ids they had then.
                  let fields = try? planner.project(record, planner.createFields ?? [], serverIds: serverIds)
            else { continue }
            let query = CreateRecovery.query(sobjectType: type, fields: fields, sentAt: sentAt, idField: target.idFieldName)
            let matches = try await remote.query(query, batchSize: nil).records.compactMap { $0[target.idFieldName]?.stringValue }
            try store.write { transaction in
                guard var current = try transaction.retrieve([entryId], from: soup).first else { return }
                switch matches.count {
                case 0:
                    current.removeValue(forKey: LocalField.createInFlight)
                case 1:
                    if let old = current[target.idFieldName]?.stringValue, LocalField.isLocalId(old) {
                        try LocalIdMap.record(localId: old, serverId: matches[0], soup: soup, in: transaction)
                    }
                    current[target.idFieldName] = .string(matches[0])
                    if current.isLocallyDeleted {
                        current[LocalField.locallyCreated] = false
                    } else {
                        current.markClean()
                    }
                default:
                    current[LocalField.lastError] = .string(JSONWriter.string(.array([RecordError(
                        errorCode: "DUPLICATE_SUSPECTED",
                        message: "a create of this record may have reached the server before a crash, and \(matches.count) matching records exist (\(matches.joined(separator: ", "))); delete the extra ones on the server, then clear this record's error").json])))
                }
                _ = try transaction.update(current, id: entryId, in: soup)
            }
        }
    }

    /// Dirty entries of a soup in entry-id order.
    static func dirtyRecords(soup: String, in transaction: StoreTransaction) throws -> [JSONObject] {
        let sql = "SELECT {\(soup):_soup} FROM {\(soup)} WHERE \(LocalField.dirtyPredicate(soup: soup)) ORDER BY {\(soup):_soupEntryId}"
        return try GhostCleaner.rows(sql, in: transaction).compactMap { $0.first?.objectValue }
    }
}

/// The lookup that recognises a create whose answer was lost (no external id configured).
public enum CreateRecovery {
    /// Allowed clock skew between this machine and the server when comparing creation times.
    public static let skewMillis: Int64 = 5 * 60 * 1000

    /// `select Id from T where CreatedDate >= <sent - skew> and F1 = 'v1' and F2 = null … limit 3`.
    /// Only scalar values take part; text is escaped as SOQL wants.
    public static func query(sobjectType: String, fields: JSONObject, sentAt: Int64, idField: String = "Id") -> String {
        var predicates = ["CreatedDate >= \(SalesforceTimestamp.format(sentAt - skewMillis))"]
        for (name, value) in fields {
            switch value {
            case .null: predicates.append("\(name) = null")
            case let .string(text): predicates.append("\(name) = '\(text.replacingAll("\\", with: "\\\\").replacingAll("'", with: "\\'"))'")
            case let .bool(flag): predicates.append("\(name) = \(flag)")
            case let .int(number): predicates.append("\(name) = \(number)")
            case let .double(number): predicates.append("\(name) = \(number)")
            case .array, .object: continue
            }
        }
        return "select \(idField) from \(sobjectType) where \(predicates.joined(separator: " and ")) order by CreatedDate limit 3"
    }
}

extension SyncDownTask {
    static func withSyncFieldsForUp(_ fields: [String], _ target: SyncUpTarget) -> [String] {
        var all = [target.idFieldName, target.modificationDateFieldName]
        for field in fields where !all.contains(where: { $0.caseInsensitiveEquals(field) }) { all.append(field) }
        return all
    }
}
