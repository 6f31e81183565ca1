import ForceJSON
import SmartStore
import Synchronization

/// How one kind of sync down target asks the org for its records: the first page, the page after
/// a continuation, and the ids a full run would return now (for ghost cleaning). Each kind has its
/// own, as the SDK gives each target its own start, continue and remote-ids; `SyncDownTask` saves
/// what they fetch the same way for all of them.
protocol SyncDownFetch: Sendable {
    var context: FetchContext { get }
    /// The first page of records changed since `since` (all of them when nil).
    func first(state: SyncState, since: Int64?) async throws -> SyncDownPage
    /// The page a continuation of this kind's own asks for.
    func next(_ continuation: SyncDownPage.Continuation, since: Int64?) async throws -> SyncDownPage
    /// The ids a full run of the target would return now; `localIds` are those the soup holds.
    func remoteIds(localIds: [String]) async throws -> Set<String>
}

extension SyncDownFetch {
    /// A query's next page is the same for every kind; other continuations are a kind's own.
    func nextPage(_ continuation: SyncDownPage.Continuation, since: Int64?) async throws -> SyncDownPage {
        switch continuation {
        case .none: .empty
        case let .nextRecordsUrl(url, soup): context.soqlPage(try await context.remote.queryMore(url), soup: soup)
        default: try await next(continuation, since: since)
        }
    }

    func next(_ continuation: SyncDownPage.Continuation, since: Int64?) async throws -> SyncDownPage { .empty }
}

/// A page of records, each with the soup it goes to, and how to ask for the next.
struct SyncDownPage: Sendable {
    var records: [(soup: String, record: JSONObject)]
    var totalSize: Int
    var next: Continuation

    enum Continuation: Sendable {
        case none
        case nextRecordsUrl(String, soup: String)
        case refreshFrom(afterId: String)
        case briefcase(pending: [(type: String, ids: [String])])
    }

    static let empty = SyncDownPage(records: [], totalSize: 0, next: .none)

    /// Records that all go to one soup, in one page with nothing after it.
    static func whole(_ records: [JSONObject], soup: String) -> SyncDownPage {
        SyncDownPage(records: records.map { (soup, $0) }, totalSize: records.count, next: .none)
    }
}

/// What every fetch works with: the target, the store (a refresh reads its ids), the org, and the
/// check that stops a long walk when the sync is stopped.
struct FetchContext: Sendable {
    let target: SyncDownTarget
    let store: SmartStore
    let remote: any SyncRemote
    let checkAccepting: @Sendable () async throws -> Void
    /// Query pages the sync asks for at once (`PageLookahead`), which sets the page size it asks for.
    var pagesInFlight = 1
    /// The object's describe as this user gets it, when a metadata sync keeps it.
    var described: DescribedFields?
    /// Collects the fields a query left out because the org hides them from the user.
    var leftOut = LeftOutFields()

    func soqlPage(_ page: RemoteQueryPage, soup: String) -> SyncDownPage {
        SyncDownPage(
            records: page.records.map { (soup, $0) }, totalSize: page.totalSize,
            next: page.nextRecordsUrl.map { .nextRecordsUrl($0, soup: soup) } ?? .none)
    }

    /// Every `field` of a query's records, following its pages.
    func ids(from first: RemoteQueryPage, field: String) async throws -> Set<String> {
        var ids = Set<String>()
        var page = first
        while true {
            for record in page.records { if let id = record[field]?.stringValue { ids.insert(id) } }
            guard let next = page.nextRecordsUrl else { return ids }
            try await checkAccepting()
            page = try await remote.queryMore(next)
        }
    }

    /// Which of `localIds` the org still has, asked 500 at a time.
    func existingIds(of sobjectType: String, among localIds: [String]) async throws -> Set<String> {
        var ids = Set<String>()
        for slice in localIds.chunked(into: 500) {
            let page = try await remote.query(
                "select \(target.idFieldName) from \(sobjectType) where \(target.idFieldName) IN (\(Self.quotedList(Array(slice))))", batchSize: nil)
            ids.formUnion(try await self.ids(from: page, field: target.idFieldName))
        }
        return ids
    }

    /// `fields` with the id and modification date first, each once.
    func withSyncFields(_ fields: [String]) -> [String] {
        var all = [target.idFieldName, target.modificationDateFieldName]
        for field in fields where !all.contains(where: { $0.caseInsensitiveEquals(field) }) { all.append(field) }
        return all
    }

    /// `'a','b'` with quotes and backslashes escaped as SOQL wants.
    static func quotedList(_ ids: [String]) -> String {
        ids.map(SoqlString.literal).joined(separator: ",")
    }
}

extension SyncDownTarget {
    /// The fetch for this target's kind.
    func fetch(in context: FetchContext) -> any SyncDownFetch {
        switch kind {
        case let .soql(_, batchSize): SoqlFetch(context: context, batchSize: batchSize)
        case let .sosl(query): SoslFetch(context: context, query: query)
        case let .mru(type, fieldlist): MruFetch(context: context, sobjectType: type, fieldlist: fieldlist)
        case let .refresh(type, fieldlist, soup, perSoql):
            RefreshFetch(context: context, sobjectType: type, fieldlist: fieldlist, soup: soup, idsPerSoql: perSoql)
        case let .parentChildren(spec): ParentChildrenFetch(context: context, spec: spec)
        case let .briefcase(infos, perRetrieve): BriefcaseFetch(context: context, infos: infos, idsPerRetrieve: perRetrieve)
        case let .metadata(type): MetadataFetch(context: context, sobjectType: type)
        case let .layout(request): LayoutFetch(context: context, request: request)
        }
    }
}

extension String {
    func replacingAll(_ target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}

/// The fields a sync down left out of its query, because the org hides them from the user.
final class LeftOutFields: Sendable {
    private let found = Mutex<Set<String>>([])

    func add(_ names: [String]) { found.withLock { $0.formUnion(names) } }
    var names: [String] { found.withLock { $0.sorted() } }
}
