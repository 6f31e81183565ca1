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

    /// Every record received and committed, whatever became of it.
    public var received: Int { stored + unchanged + keptLocalChanges }

    public init() {}

    init(_ result: DownloadedRecordWriter.Result) {
        stored = result.saved
        unchanged = result.skippedUnchanged
        keptLocalChanges = result.skippedDirty
    }

    public static func + (left: SyncDownSummary, right: SyncDownSummary) -> SyncDownSummary {
        var sum = left
        sum.stored += right.stored
        sum.unchanged += right.unchanged
        sum.keptLocalChanges += right.keptLocalChanges
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

    /// A page of records for one soup and how to ask for the next.
    struct Page: Sendable {
        var records: [(soup: String, record: JSONObject)]
        var totalSize: Int
        var next: Continuation
    }

    enum Continuation: Sendable {
        case none
        case nextRecordsUrl(String, soup: String)
        case refreshFrom(afterId: String)
        case briefcase(pending: [(type: String, ids: [String])])
    }

    /// Runs the sync; `summary` receives the tallies of each page as it commits, also when the
    /// run then fails.
    func run(_ initial: SyncState, summary: inout SyncDownSummary) async throws -> SyncState {
        var state = initial
        guard case let .down(target) = state.target else { throw MobileSyncError.wrongSyncType(id: state.id, expected: .syncDown, actual: .syncUp) }
        let capped = target.isCapped
        // Our own creates whose answers were lost: adopted first, so their server copies in the
        // pages below update them instead of being stored as second records.
        for (soup, idField) in Self.soupsWithIdFields(of: target, soupName: state.soupName) {
            try await InFlightCreates(store: store, remote: remote, soup: soup, idFieldName: idField, owningSyncDownId: nil)
                .recover { record, _ in record[LocalField.createInFlight]?["fields"]?.objectValue }
        }
        let boundary = state.maxTimeStamp > 0 && !capped ? state.maxTimeStamp : nil
        // A capped sync records its mark only when a run completes, and a changed definition
        // resets it: with one, the records held come from this query and may be skipped.
        let skip: DownloadedRecordWriter.SkipUnchanged = if let boundary { .atBoundary(boundary) }
            else if capped, state.maxTimeStamp > 0 { .always } else { .never }
        let page = try await first(target, state: state, since: boundary)
        state.totalSize = page.totalSize
        try syncs.save(state)
        report(state)
        let bulkLoad = page.totalSize >= bulkLoadMinimum ? try beginBulkLoad(target, soupName: state.soupName) : nil
        do {
            state = try await savePages(from: page, of: target, boundary: boundary, skip: skip, state: state, summary: &summary)
        } catch {
            // Not rethrown over the sync's own error: a failed rebuild leaves its status row, and
            // the next open of the store rebuilds once this process has let go of the lock.
            try? bulkLoad?.finish()
            throw error
        }
        try bulkLoad?.finish()
        return state
    }

    /// Saves `first` and every page after it, each with the sync's progress and tallies in one
    /// transaction; the progress counts the records of the pages committed (each one stored,
    /// unchanged or kept; parents only, for parent_children).
    private func savePages(from first: Page, of target: SyncDownTarget, boundary: Int64?, skip: DownloadedRecordWriter.SkipUnchanged,
                           state initial: SyncState, summary: inout SyncDownSummary) async throws -> SyncState {
        var state = initial
        var page = first
        let sorted = isSortedByModification(target)
        var committed = 0
        var newest = state.maxTimeStamp
        // Values of ours whose answers were lost: merging must not mistake them for another user's.
        let ownWrites = try store.read { transaction in
            try Dictionary(uniqueKeysWithValues: Self.soups(of: target, soupName: state.soupName).map { soup in
                (soup, try WriteJournal(soup: soup).lost(in: transaction).writes.mapValues(\.fields))
            })
        }
        while true {
            try await checkAccepting()
            let records = page.records
            let batchNewest = DownloadedRecordWriter.latestModification(of: records.map(\.record), field: target.modificationDateFieldName)
            newest = max(newest, batchNewest)
            let reachedEnd: Bool = if case .none = page.next { true } else { false }
            // The next page is asked for while this one is written, so the server's paging and
            // the JSON parsing overlap the store's work. Only a read: a failure surfaces after
            // this page has committed, and a failed write cancels it.
            let continuation = page.next
            async let following = next(continuation, target: target, since: boundary)
            let pageSummary = try store.write { transaction in
                var pageSummary = SyncDownSummary()
                for soup in Set(records.map(\.soup)).sorted() {
                    var writer = DownloadedRecordWriter(
                        soupName: soup, idFieldName: target.idFieldName, modificationDateFieldName: target.modificationDateFieldName,
                        syncId: state.id)
                    writer.ownWrites = ownWrites[soup] ?? [:]
                    pageSummary = pageSummary + (try writeRecords(records.filter { $0.soup == soup }.map(\.record), writer: writer,
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
            if reachedEnd { break }
            report(state)
            page = try await following
        }
        return state
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
    private func writeRecords(_ records: [JSONObject], writer: DownloadedRecordWriter, target: SyncDownTarget,
                              ownWrites: [String: [Int64: JSONObject]], skip: DownloadedRecordWriter.SkipUnchanged,
                              in transaction: StoreTransaction) throws -> SyncDownSummary {
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

    func isSortedByModification(_ target: SyncDownTarget) -> Bool {
        switch target.kind {
        case .soql: SoqlQuery(target.rewrittenSoql ?? "").isSortedBy(target.modificationDateFieldName)
        case .parentChildren: true
        default: false
        }
    }

    // MARK: Fetching

    private func first(_ target: SyncDownTarget, state: SyncState, since: Int64?) async throws -> Page {
        let stamp = since.map(SalesforceTimestamp.format)
        switch target.kind {
        case let .soql(_, batchSize):
            var query = SoqlQuery(target.rewrittenSoql ?? "")
            if let stamp { query = query.modified(since: stamp, field: target.modificationDateFieldName) }
            let page = try await remote.query(query.text, batchSize: batchSize == SyncDownTarget.defaultQueryBatchSize ? nil : batchSize)
            return soqlPage(page, soup: state.soupName)
        case let .sosl(query):
            let records = try await remote.search(query)
            return Page(records: records.map { (state.soupName, $0) }, totalSize: records.count, next: .none)
        case let .mru(type, fieldlist):
            let ids = try await remote.recentItemIds(sobjectType: type)
            guard !ids.isEmpty else { return Page(records: [], totalSize: 0, next: .none) }
            let fields = Self.withSyncFields(fieldlist, target)
            let page = try await remote.query("select \(fields.joined(separator: ", ")) from \(type) where \(target.idFieldName) IN (\(Self.quotedList(ids)))", batchSize: nil)
            return Page(records: page.records.map { (state.soupName, $0) }, totalSize: page.records.count, next: .none)
        case let .refresh(_, _, soup, _):
            let total = try store.count(.all(soup))
            var page = try await refreshSlice(target, afterId: nil, since: stamp, soup: soup)
            page.totalSize = total
            return page
        case let .parentChildren(spec):
            let page = try await remote.query(spec.query(after: stamp), batchSize: nil)
            return soqlPage(page, soup: spec.parent.soupName)
        case let .briefcase(infos, _):
            var pending: [(type: String, ids: [String])] = []
            var relay: String?
            repeat {
                let primed = try await remote.primingRecords(relayToken: relay, changedAfter: since)
                for info in infos { pending.append((info.sobjectType, primed.idsByType[info.sobjectType] ?? [])) }
                relay = primed.relayToken
            } while relay != nil
            let total = pending.reduce(0) { $0 + $1.ids.count }
            var page = try await next(.briefcase(pending: pending), target: target, since: since)
            page.totalSize = total
            return page
        case let .metadata(type):
            var describe = try await remote.resource("sobjects/\(type)/describe", query: [])
            describe[target.idFieldName] = .string(type)
            if let picklists = try await picklistsByRecordType(type, describe: describe) {
                describe[SObjectDescribeKeys.picklistsByRecordType] = .object(picklists)
            }
            return Page(records: [(state.soupName, describe)], totalSize: 1, next: .none)
        case let .layout(request):
            var layout = try await remote.resource("ui-api/layout/\(request.sobjectType)", query: request.queryItems)
            layout[target.idFieldName] = .string(request.recordId)
            return Page(records: [(state.soupName, layout)], totalSize: 1, next: .none)
        }
    }

    /// The picklist values each of the object's own record types offers (the describe lists every
    /// value of every record type): one UI API request per record type the user may pick, none
    /// for objects without record types. An org whose UI API does not serve the object (a 4xx)
    /// leaves the form with the describe's values.
    private func picklistsByRecordType(_ type: String, describe: JSONObject) async throws -> JSONObject? {
        let recordTypeIds = (describe["recordTypeInfos"]?.arrayValue ?? []).compactMap { info -> String? in
            guard info["available"]?.boolValue == true, info["master"]?.boolValue != true else { return nil }
            return info["recordTypeId"]?.stringValue
        }
        guard !recordTypeIds.isEmpty else { return nil }
        var result: JSONObject = [:]
        for id in recordTypeIds {
            let answer: JSONObject
            do {
                answer = try await remote.resource("ui-api/object-info/\(type)/picklist-values/\(id)", query: [])
            } catch {
                if Self.isRefusal(error) { return nil }
                throw error
            }
            var fields: JSONObject = [:]
            for (field, values) in answer["picklistFieldValues"]?.objectValue ?? [:] {
                fields[field] = .array((values["values"]?.arrayValue ?? []).compactMap { $0["value"] })
            }
            result[id] = .object(fields)
        }
        return result
    }

    private static func isRefusal(_ error: SyncRemoteError) -> Bool {
        if case let .server(status, _, _) = error { return (400..<500).contains(status) }
        return false
    }

    private func next(_ continuation: Continuation, target: SyncDownTarget, since: Int64?) async throws -> Page {
        switch continuation {
        case .none:
            return Page(records: [], totalSize: 0, next: .none)
        case let .nextRecordsUrl(url, soup):
            return soqlPage(try await remote.queryMore(url), soup: soup)
        case let .refreshFrom(afterId):
            guard case let .refresh(_, _, soup, _) = target.kind else { return Page(records: [], totalSize: 0, next: .none) }
            return try await refreshSlice(target, afterId: afterId, since: since.map(SalesforceTimestamp.format), soup: soup)
        case var .briefcase(pending):
            guard case let .briefcase(infos, perRetrieve) = target.kind else { return Page(records: [], totalSize: 0, next: .none) }
            while let head = pending.first, head.ids.isEmpty { pending.removeFirst() }
            guard let head = pending.first, let info = infos.first(where: { $0.sobjectType == head.type }) else {
                return Page(records: [], totalSize: 0, next: .none)
            }
            let slice = Array(head.ids.prefix(perRetrieve))
            pending[0].ids.removeFirst(slice.count)
            let records = try await remote.retrieve(sobjectType: info.sobjectType, ids: slice, fields: Self.withSyncFields(info.fieldlist, target))
            let more = pending.contains { !$0.ids.isEmpty }
            return Page(records: records.compactMap { $0 }.map { (info.soupName, $0) }, totalSize: 0, next: more ? .briefcase(pending: pending) : .none)
        }
    }

    private func soqlPage(_ page: RemoteQueryPage, soup: String) -> Page {
        Page(records: page.records.map { (soup, $0) }, totalSize: page.totalSize,
             next: page.nextRecordsUrl.map { .nextRecordsUrl($0, soup: soup) } ?? .none)
    }

    private func refreshSlice(_ target: SyncDownTarget, afterId: String?, since: String?, soup: String) async throws -> Page {
        guard case let .refresh(type, fieldlist, _, perSoql) = target.kind else { return Page(records: [], totalSize: 0, next: .none) }
        var sql = "SELECT {\(soup):\(target.idFieldName)} FROM {\(soup)} WHERE {\(soup):\(target.idFieldName)} IS NOT NULL"
        var arguments: [JSONValue] = []
        if let afterId {
            sql += " AND {\(soup):\(target.idFieldName)} > ?"
            arguments.append(.string(afterId))
        }
        sql += " ORDER BY {\(soup):\(target.idFieldName)} ASC"
        let ids = try store.query(.smart(sql, pageSize: perSoql), arguments: arguments).compactMap { $0.arrayValue?.first?.stringValue }
            .filter { !LocalField.isLocalId($0) }
        guard !ids.isEmpty else { return Page(records: [], totalSize: 0, next: .none) }
        var query = "select \(Self.withSyncFields(fieldlist, target).joined(separator: ", ")) from \(type) where \(target.idFieldName) IN (\(Self.quotedList(ids)))"
        if let since { query += " and \(target.modificationDateFieldName) >= \(since)" }
        let page = try await remote.query(query, batchSize: nil)
        return Page(records: page.records.map { (soup, $0) }, totalSize: 0,
                    next: ids.count == perSoql ? .refreshFrom(afterId: ids[ids.count - 1]) : .none)
    }

    static func withSyncFields(_ fields: [String], _ target: SyncDownTarget) -> [String] {
        var all = [target.idFieldName, target.modificationDateFieldName]
        for field in fields where !all.contains(where: { $0.caseInsensitiveEquals(field) }) { all.append(field) }
        return all
    }

    /// `'a','b'` with quotes and backslashes escaped as SOQL wants.
    static func quotedList(_ ids: [String]) -> String {
        ids.map { "'" + $0.replacingAll("\\", with: "\\\\").replacingAll("'", with: "\\'") + "'" }.joined(separator: ",")
    }

    // MARK: Ghosts

    /// The parent ids and child ids a full run of a parent_children target would return now.
    func remoteTreeIds(_ spec: ParentChildrenSpec) async throws -> (parents: Set<String>, children: Set<String>) {
        let plural = spec.children.sobjectTypePlural ?? spec.children.sobjectType
        var query = "select \(spec.parent.idFieldName), (select \(spec.children.idFieldName) from \(plural)) from \(spec.parent.sobjectType)"
        if let filter = spec.parentSoqlFilter, !filter.isEmpty { query += " where \(filter)" }
        var parents = Set<String>()
        var children = Set<String>()
        var page = try await remote.query(query, batchSize: nil)
        while true {
            for parent in page.records {
                if let id = parent[spec.parent.idFieldName]?.stringValue { parents.insert(id) }
                // A parent without children has null here; a long child list comes in pages of its own.
                guard let nested = parent[plural]?.objectValue else { continue }
                var childPage = RemoteQueryPage(totalSize: 0, records: (nested["records"]?.arrayValue ?? []).compactMap(\.objectValue),
                                                nextRecordsUrl: nested["done"]?.boolValue == false ? nested["nextRecordsUrl"]?.stringValue : nil)
                while true {
                    for child in childPage.records { if let id = child[spec.children.idFieldName]?.stringValue { children.insert(id) } }
                    guard let next = childPage.nextRecordsUrl else { break }
                    try await checkAccepting()
                    childPage = try await remote.queryMore(next)
                }
            }
            guard let next = page.nextRecordsUrl else { break }
            try await checkAccepting()
            page = try await remote.queryMore(next)
        }
        return (parents, children)
    }

    /// The ids a full run of the target would return now, for ghost cleaning.
    func remoteIds(_ target: SyncDownTarget, state: SyncState, localIds: [String]) async throws -> Set<String> {
        var ids = Set<String>()
        func collect(_ page: RemoteQueryPage, field: String) async throws {
            var page = page
            while true {
                for record in page.records { if let id = record[field]?.stringValue { ids.insert(id) } }
                guard let next = page.nextRecordsUrl else { return }
                try await checkAccepting()
                page = try await remote.queryMore(next)
            }
        }
        switch target.kind {
        case .soql:
            try await collect(try await remote.query(target.remoteIdsSoql ?? "", batchSize: nil), field: target.idFieldName)
        case let .sosl(query):
            for record in try await remote.search(query) { if let id = record[target.idFieldName]?.stringValue { ids.insert(id) } }
        case let .mru(type, _), let .refresh(type, _, _, _):
            for slice in localIds.chunked(into: 500) {
                let page = try await remote.query("select \(target.idFieldName) from \(type) where \(target.idFieldName) IN (\(Self.quotedList(Array(slice))))", batchSize: nil)
                try await collect(page, field: target.idFieldName)
            }
        case let .parentChildren(spec):
            ids = try await remoteTreeIds(spec).parents
        case .metadata, .layout:
            // One description, replaced by each run: nothing to clean (as in the SDK).
            break
        case .briefcase:
            var relay: String?
            repeat {
                let primed = try await remote.primingRecords(relayToken: relay, changedAfter: nil)
                for list in primed.idsByType.values { ids.formUnion(list) }
                relay = primed.relayToken
            } while relay != nil
        }
        return ids
    }
}

extension String {
    func replacingAll(_ target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
