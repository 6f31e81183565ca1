import ForceJSON

/// A parent_children target: the parents with their children nested, page by page; its ghosts
/// are the parents (and, for the children's soup, the children) a full run would return now.
struct ParentChildrenFetch: SyncDownFetch {
    let context: FetchContext
    let spec: ParentChildrenSpec

    func first(state: SyncState, since: Int64?) async throws -> SyncDownPage {
        let page = try await context.remote.query(spec.query(after: since.map(SalesforceTimestamp.format)), batchSize: nil)
        return context.soqlPage(page, soup: spec.parent.soupName)
    }

    func remoteIds(localIds: [String]) async throws -> Set<String> {
        try await treeIds().parents
    }

    /// The parent ids and child ids a full run would return now.
    func treeIds() async throws -> (parents: Set<String>, children: Set<String>) {
        let remote = context.remote
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
                let childPage = RemoteQueryPage(
                    totalSize: 0, records: (nested["records"]?.arrayValue ?? []).compactMap(\.objectValue),
                    nextRecordsUrl: nested["done"]?.boolValue == false ? nested["nextRecordsUrl"]?.stringValue : nil)
                children.formUnion(try await context.ids(from: childPage, field: spec.children.idFieldName))
            }
            guard let next = page.nextRecordsUrl else { break }
            try await context.checkAccepting()
            page = try await remote.queryMore(next)
        }
        return (parents, children)
    }
}

/// A briefcase target: the priming records' ids of each object, then their fields a slice of ids
/// at a time; its ghosts are the ids the briefcase primes now.
struct BriefcaseFetch: SyncDownFetch {
    let context: FetchContext
    let infos: [BriefcaseInfo]
    let idsPerRetrieve: Int

    func first(state: SyncState, since: Int64?) async throws -> SyncDownPage {
        var pending: [(type: String, ids: [String])] = []
        var relay: String?
        repeat {
            let primed = try await context.remote.primingRecords(relayToken: relay, changedAfter: since)
            for info in infos { pending.append((info.sobjectType, primed.idsByType[info.sobjectType] ?? [])) }
            relay = primed.relayToken
        } while relay != nil
        let total = pending.reduce(0) { $0 + $1.ids.count }
        var page = try await next(.briefcase(pending: pending), since: since)
        page.totalSize = total
        return page
    }

    func next(_ continuation: SyncDownPage.Continuation, since: Int64?) async throws -> SyncDownPage {
        guard case var .briefcase(pending) = continuation else { return .empty }
        while let head = pending.first, head.ids.isEmpty { pending.removeFirst() }
        guard let head = pending.first, let info = infos.first(where: { $0.sobjectType == head.type }) else { return .empty }
        let slice = Array(head.ids.prefix(idsPerRetrieve))
        pending[0].ids.removeFirst(slice.count)
        let records = try await context.remote.retrieve(sobjectType: info.sobjectType, ids: slice, fields: context.withSyncFields(info.fieldlist))
        let more = pending.contains { !$0.ids.isEmpty }
        return SyncDownPage(
            records: records.compactMap { $0 }.map { (info.soupName, $0) }, totalSize: 0,
            next: more ? .briefcase(pending: pending) : .none)
    }

    func remoteIds(localIds: [String]) async throws -> Set<String> {
        var ids = Set<String>()
        var relay: String?
        repeat {
            let primed = try await context.remote.primingRecords(relayToken: relay, changedAfter: nil)
            for list in primed.idsByType.values { ids.formUnion(list) }
            relay = primed.relayToken
        } while relay != nil
        return ids
    }
}
