import Foundation
import SmartStore

/// Records a SOQL sync down stores outside its paged run: those its set gained with no change of
/// their own (fetched by id), and a changed subscription's difference (fetched by condition).
extension SyncDownTask {
    /// Stores the records of `ids` that a SOQL target's set holds on the server but this store
    /// does not (shared with the user since the last sync: a sharing change leaves their dates
    /// as they were, so the incremental query never brings them). Returns how many were stored.
    func fetchArrivals(_ ids: [String], of target: SyncDownTarget, state: SyncState) async throws -> Int {
        guard !ids.isEmpty else { return 0 }
        let idField = target.idFieldName
        return try await storeRecords(
            of: target, state: state, queries: ids.chunked(into: Self.arrivalsPerQuery).map { chunk in { $0.restricted(toIds: Array(chunk), idField: idField) } })
    }

    /// Ids per query of `fetchArrivals`: 300 ids keep its URL near 8 KB, half a real org's limit.
    static let arrivalsPerQuery = 300

    /// Stores the records of a SOQL target's set for which `condition` holds too, in one paged
    /// query: a changed subscription's new records, with no id in the request.
    func fetchWhere(_ condition: String, of target: SyncDownTarget, state: SyncState) async throws -> Int {
        try await storeRecords(of: target, state: state, queries: [{ $0.narrowed(by: condition) }])
    }

    /// Every `target.idFieldName` a SOQL query of ids returns, following its pages.
    func ids(of soql: String, target: SyncDownTarget) async throws -> Set<String> {
        let context = FetchContext(target: target, store: store, remote: remote, checkAccepting: checkAccepting)
        return try await context.ids(from: try await remote.query(soql, batchSize: nil), field: target.idFieldName)
    }

    /// Runs each of `queries` (the target's rewritten query, restricted), leaving out fields the
    /// stored describe hides, and stores every page with the sync's holding.
    private func storeRecords(of target: SyncDownTarget, state: SyncState, queries: [@Sendable (SoqlQuery) -> SoqlQuery]) async throws -> Int {
        guard case .soql = target.kind, !queries.isEmpty else { return 0 }
        var query = SoqlQuery(target.rewrittenSoql ?? "")
        let needed = [target.idFieldName, target.modificationDateFieldName]
        if let object = query.objectName, let described = try DescribedFields.stored(object, store: store, syncs: syncs) {
            query = query.droppingSelected(query.selectFields.filter { SoqlQuery.isFieldPath($0) && !needed.contains($0) && !described.isReadable($0) })
        }
        var stored = 0
        var writer = DownloadedRecordWriter(
            soupName: state.soupName, idFieldName: target.idFieldName,
            modificationDateFieldName: target.modificationDateFieldName, syncId: state.id)
        writer.holding = try holding(of: state)
        for restrict in queries {
            try await checkAccepting()
            var page = try await SoqlFetch.askLeavingOutHidden(&query, needed: needed) { (query) async throws(SyncRemoteError) -> RemoteQueryPage in
                try await remote.query(restrict(query).text, batchSize: nil)
            }
            while true {
                let records = page.records
                stored += try store.write { try writer.save(records, skip: .never, in: $0).saved }
                guard let next = page.nextRecordsUrl else { break }
                page = try await remote.queryMore(next)
            }
        }
        return stored
    }
}
