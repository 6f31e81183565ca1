import ForceJSON
import SmartStore

/// What a sync down did with the records it received, counted as its pages commit: a sync that
/// fails or is stopped midway has the tallies of the pages it saved.
public struct SyncDownSummary: Sendable, Equatable {
    /// Written to the store: new, or changed on the server.
    public var stored = 0
    /// Already held unchanged, so not written again.
    public var unchanged = 0
    /// Left alone because they have local changes (LEAVE_IF_CHANGED).
    public var keptLocalChanges = 0
    /// Of `stored`, those whose values were all held already (the modification time aside):
    /// mostly this run's own sync up coming back. Not news from the server.
    public var heldAlready = 0
    /// Stored because the server had something this store did not.
    public var changedOnServer: Int { stored - heldAlready }

    /// Every record received and committed, whatever became of it.
    public var received: Int { stored + unchanged + keptLocalChanges }
    /// Fields the query names that the org hides from this user (its describe lacks them, or it
    /// answered `No such column`): left out, the rest synced.
    public var leftOutFields: [String] = []

    public init() {}

    init(_ result: DownloadedRecordWriter.Result) {
        stored = result.saved
        unchanged = result.skippedUnchanged
        keptLocalChanges = result.skippedDirty
        heldAlready = result.heldAlready
    }

    public static func + (left: SyncDownSummary, right: SyncDownSummary) -> SyncDownSummary {
        var sum = left
        sum.stored += right.stored
        sum.unchanged += right.unchanged
        sum.keptLocalChanges += right.keptLocalChanges
        sum.heldAlready += right.heldAlready
        sum.leftOutFields = Array(Set(left.leftOutFields + right.leftOutFields)).sorted()
        return sum
    }
}

/// Runs one sync down against a `SyncRemote`: fetch page by page, save each page and the sync's
/// progress in one store transaction, and persist the high-water mark as it goes when the target
/// is sorted by modification, so a killed or stopped sync resumes incrementally. A capped query
/// (`SyncDownTarget.isCapped`) always runs whole.
struct SyncDownTask: Sendable {
    let store: SmartStore
    let syncs: SyncsSoup
    let remote: any SyncRemote
    let checkAccepting: @Sendable () async throws -> Void
    let report: @Sendable (SyncState) -> Void
    /// A sync into empty soups expecting at least this many records defers their indexes (`SoupBulkLoad`).
    var bulkLoadMinimum = Int.max
    /// Query pages asked for at once (`PageLookahead`); 1 asks for each in turn.
    var pagesInFlight = 1

    /// Runs the sync; `summary` receives the tallies of each page as it commits, also when the
    /// run then fails.
    func run(_ initial: SyncState, summary: inout SyncDownSummary) async throws -> SyncState {
        var state = initial
        guard case let .down(target) = state.target else { throw MobileSyncError.wrongSyncType(id: state.id, expected: .syncDown, actual: .syncUp) }
        let capped = target.isCapped
        // Our own creates whose answers were lost: adopted first, so their server copies in the
        // pages below update them instead of being stored as second records.
        for (soup, idField) in Self.soupsWithIdFields(of: target, soupName: state.soupName) {
            try await InFlightCreates(
                store: store, syncs: syncs, remote: remote, soup: soup, idFieldName: idField, owningSyncDownId: nil,
                checkAccepting: checkAccepting
            )
            .recover { record, _ in record[LocalField.createInFlight]?["fields"]?.objectValue }
        }
        let boundary = state.maxTimeStamp > 0 && !capped ? state.maxTimeStamp : nil
        // A capped sync records its mark only when a run completes, and a changed definition
        // resets it: with one, the records held come from this query and may be skipped.
        let skip: DownloadedRecordWriter.SkipUnchanged = if let boundary { .atBoundary(boundary) } else if capped, state.maxTimeStamp > 0 { .always } else { .never }
        let leftOut = LeftOutFields()
        let fetch = fetch(target, leftOut: leftOut)
        let page: SyncDownPage
        do {
            page = try await fetch.first(state: state, since: boundary)
        } catch {
            summary.leftOutFields = leftOut.names
            throw error
        }
        summary.leftOutFields = leftOut.names
        state.totalSize = page.totalSize
        try syncs.save(state)
        report(state)
        let bulkLoad = page.totalSize >= bulkLoadMinimum ? try beginBulkLoad(target, soupName: state.soupName) : nil
        do {
            state = try await savePages(from: page, of: target, fetch: fetch, boundary: boundary, skip: skip, state: state, summary: &summary)
        } catch {
            // Not rethrown over the sync's own error: a failed rebuild leaves its status row, and
            // the next open of the store rebuilds once this process has let go of the lock.
            try? bulkLoad?.finish()
            throw error
        }
        try bulkLoad?.finish()
        // A whole run fetched every record of the set: as good as comparing every id, so the
        // ghost check's count may stand in for the ids until `idComparisonInterval` passes.
        if boundary == nil { state.idsComparedAt = state.startTime }
        return state
    }

    /// Saves `first` and every page after it, each with the sync's progress and tallies in one
    /// transaction; the progress counts the records of the pages committed (each one stored,
    /// unchanged or kept; parents only, for parent_children).
    private func savePages(
        from first: SyncDownPage, of target: SyncDownTarget, fetch: any SyncDownFetch, boundary: Int64?, skip: DownloadedRecordWriter.SkipUnchanged,
        state initial: SyncState, summary: inout SyncDownSummary
    ) async throws -> SyncState {
        var state = initial
        var page = first
        var skip = skip
        var restarts = 0
        // A SOQL target sorted by modification can ask again from its mark (`>=`, the boundary's
        // records skipped as held). Not parent_children: its query after a mark is `>` on parents
        // and filters their children too, so a restart there would lose records.
        let sorted = isSortedByModification(target)
        let resumable: Bool = if case .soql = target.kind { sorted } else { false }
        var committed = 0
        var newest = state.maxTimeStamp
        var lookahead = PageLookahead(fetch: fetch, since: boundary, pagesInFlight: pagesInFlight)
        let holding = try holding(of: state)
        // Values of ours whose answers were lost: merging must not mistake them for another user's.
        let ownWrites = try store.read { transaction in
            try Dictionary(
                uniqueKeysWithValues: Self.soups(of: target, soupName: state.soupName).map { soup in
                    (soup, try WriteJournal(soup: soup).lost(in: transaction).writes.mapValues(\.fields))
                })
        }
        do {
            while true {
                try await checkAccepting()
                let records = page.records
                let batchNewest = DownloadedRecordWriter.latestModification(of: records.map(\.record), field: target.modificationDateFieldName)
                newest = max(newest, batchNewest)
                let reachedEnd: Bool = if case .none = page.next { true } else { false }
                // The next pages are asked for while this one is written, so the server's paging and
                // the JSON parsing overlap the store's work. Only reads: a failure surfaces after
                // this page has committed, and a failed write cancels them (drained below).
                let following = reachedEnd ? nil : lookahead.next(after: page)
                let pageSummary = try store.write { transaction in
                    var pageSummary = SyncDownSummary()
                    for soup in Set(records.map(\.soup)).sorted() {
                        var writer = DownloadedRecordWriter(
                            soupName: soup, idFieldName: target.idFieldName, modificationDateFieldName: target.modificationDateFieldName,
                            syncId: state.id)
                        writer.ownWrites = ownWrites[soup] ?? [:]
                        writer.holding = holding
                        pageSummary =
                            pageSummary
                            + (try writeRecords(
                                records.filter { $0.soup == soup }.map(\.record), writer: writer,
                                target: target, ownWrites: ownWrites, skip: skip, in: transaction))
                    }
                    if sorted || reachedEnd { state.maxTimeStamp = newest }
                    if !reachedEnd, state.totalSize > 0, committed + records.count < state.totalSize {
                        state.progress = (committed + records.count) * 100 / state.totalSize
                    }
                    try syncs.save(state, in: transaction)
                    return pageSummary
                }
                summary = summary + pageSummary
                committed += records.count
                guard let following else { break }
                report(state)
                do {
                    page = try await PageLookahead.value(of: following)
                } catch let error as SyncRemoteError where resumable && restarts < Self.maximumQueryRestarts && Self.lostCursor(error) {
                    // The server no longer has the query's cursor (expired, over its limit, or the
                    // answer to its last page was lost and retried): ask again from the newest record
                    // stored, which the marks saved with each page make a resume, not a new start.
                    await lookahead.cancelAndDrain()
                    restarts += 1
                    skip = .atBoundary(state.maxTimeStamp)
                    page = try await fetch.first(state: state, since: state.maxTimeStamp)
                }
            }
        } catch {
            // No request of this run outlives it: the sync lock and the store are let go after.
            await lookahead.cancelAndDrain()
            throw error
        }
        await lookahead.cancelAndDrain()
        return state
    }

    /// How often one run asks its query again after losing the cursor, before it gives up.
    static let maximumQueryRestarts = 3

    /// Salesforce's answer to a `nextRecordsUrl` whose cursor it no longer has.
    static func lostCursor(_ error: SyncRemoteError) -> Bool {
        if case let .server(status, errorCode, _) = error { return status == 400 && errorCode == "INVALID_QUERY_LOCATOR" }
        return false
    }

    /// The soups a target fills, with the id field of each.
    static func soupsWithIdFields(of target: SyncDownTarget, soupName: String) -> [(soup: String, idField: String)] {
        target.filledSoups(soupName: soupName).map { ($0.soupName, $0.idFieldName) }
    }

    static func soups(of target: SyncDownTarget, soupName: String) -> [String] {
        soupsWithIdFields(of: target, soupName: soupName).map(\.soup)
    }

    /// Defers the indexes of the soups this target fills, when they are empty, keeping those the
    /// writer looks records up by.
    private func beginBulkLoad(_ target: SyncDownTarget, soupName: String) throws -> SoupBulkLoad? {
        // A refresh target refreshes records the soup already holds.
        if case .refresh = target.kind { return nil }
        let soups = Self.soupsWithIdFields(of: target, soupName: soupName)
        return try store.beginBulkLoad(soups: soups.map(\.soup), keeping: Set(soups.map(\.idField)))
    }

    /// Saves one soup's records of a page (and a parent_children target's children); returns
    /// what became of them.
    private func writeRecords(
        _ records: [JSONObject], writer: DownloadedRecordWriter, target: SyncDownTarget,
        ownWrites: [String: [Int64: JSONObject]], skip: DownloadedRecordWriter.SkipUnchanged,
        in transaction: StoreTransaction
    ) throws -> SyncDownSummary {
        guard case let .parentChildren(spec) = target.kind else {
            return SyncDownSummary(try writer.save(records, skip: skip, in: transaction))
        }
        let plural = spec.children.sobjectTypePlural ?? spec.children.sobjectType
        var parents: [JSONObject] = []
        var children: [JSONObject] = []
        for var parent in records {
            let nested = parent.removeValue(forKey: plural)
            let parentId = parent[spec.parent.idFieldName]
            for child in nested?["records"]?.arrayValue ?? [] {
                guard var child = child.objectValue else { continue }
                if let parentId { child[spec.children.parentIdFieldName ?? "ParentId"] = parentId }
                children.append(child)
            }
            parents.append(parent)
        }
        let savedParents = SyncDownSummary(try writer.save(parents, in: transaction))
        var childWriter = writer
        childWriter.soupName = spec.children.soupName
        childWriter.idFieldName = spec.children.idFieldName
        childWriter.modificationDateFieldName = spec.children.modificationDateFieldName
        childWriter.ownWrites = ownWrites[spec.children.soupName] ?? [:]
        return savedParents + SyncDownSummary(try childWriter.save(children, in: transaction))
    }

    /// A subscription holds what it fetches through member rows; a config sync through `__sync_id__`.
    func holding(of state: SyncState) throws -> DownloadedRecordWriter.Holding {
        state.subscription == nil ? .claims : .member(try SyncMembers(store: store))
    }

    func isSortedByModification(_ target: SyncDownTarget) -> Bool {
        switch target.kind {
        case .soql: SoqlQuery(target.rewrittenSoql ?? "").isSortedBy(target.modificationDateFieldName)
        case .parentChildren: true
        default: false
        }
    }

    // MARK: Ghosts

    /// The fetch for `target`'s kind, over this task's store and remote.
    /// The target's fetch. A SOQL target's fields are checked against the describe a metadata
    /// sync keeps for its object, so a field the org hides from this user never stops the sync.
    func fetch(_ target: SyncDownTarget, leftOut: LeftOutFields = LeftOutFields()) -> any SyncDownFetch {
        var context = FetchContext(target: target, store: store, remote: remote, checkAccepting: checkAccepting, pagesInFlight: pagesInFlight)
        context.leftOut = leftOut
        if case .soql = target.kind, let object = SoqlQuery(target.rewrittenSoql ?? "").objectName {
            context.described = try? DescribedFields.stored(object, store: store, syncs: syncs)
        }
        return target.fetch(in: context)
    }

    /// The ids a full run of the target would return now, for ghost cleaning.
    func remoteIds(_ target: SyncDownTarget, state: SyncState, localIds: [String]) async throws -> Set<String> {
        try await fetch(target).remoteIds(localIds: localIds)
    }

    /// The parent ids and child ids a full run of a parent_children target would return now.
    func remoteTreeIds(_ target: SyncDownTarget, spec: ParentChildrenSpec) async throws -> (parents: Set<String>, children: Set<String>) {
        try await ParentChildrenFetch(
            context: FetchContext(target: target, store: store, remote: remote, checkAccepting: checkAccepting),
            spec: spec
        ).treeIds()
    }
}
