import ForceJSON

/// A soql target: its query (with the high-water mark as a condition), page by page; its ghosts
/// from the id-only form of the same query.
struct SoqlFetch: SyncDownFetch {
    let context: FetchContext
    let batchSize: Int

    func first(state: SyncState, since: Int64?) async throws -> SyncDownPage {
        let target = context.target
        var query = SoqlQuery(target.rewrittenSoql ?? "")
        let needed = [target.idFieldName, target.modificationDateFieldName]
        if let described = context.described {
            let hidden = query.selectFields.filter { SoqlQuery.isFieldPath($0) && !needed.contains($0) && !described.isReadable($0) }
            query = query.droppingSelected(hidden)
            context.leftOut.add(hidden)
        }
        if let since { query = query.modified(since: SalesforceTimestamp.format(since), field: target.modificationDateFieldName) }
        let (remote, pageSize, leftOut) = (context.remote, pageSize, context.leftOut)
        let page = try await Self.askLeavingOutHidden(&query, needed: needed, leftOut: { leftOut.add([$0]) }) { (query) async throws(SyncRemoteError) -> RemoteQueryPage in
            try await remote.query(query.text, batchSize: pageSize)
        }
        return context.soqlPage(page, soup: state.soupName)
    }

    /// How many hidden fields a query may find one by one before the sync gives up.
    static let hiddenFieldRetries = 10

    /// Asks `query`. A field the describe still listed (it changed since) is refused as a column
    /// the entity lacks, as a real org answers for a field hidden by field-level security: it is
    /// left out of `query` and the query asked again, one field at a time; never one of `needed`.
    static func askLeavingOutHidden(
        _ query: inout SoqlQuery, needed: [String], leftOut: (String) -> Void = { _ in },
        _ ask: (SoqlQuery) async throws(SyncRemoteError) -> RemoteQueryPage
    ) async throws(SyncRemoteError) -> RemoteQueryPage {
        var tries = 0
        while true {
            do {
                return try await ask(query)
            } catch {
                tries += 1
                guard tries <= hiddenFieldRetries, let column = missingColumn(in: error), query.selects(column),
                    !needed.contains(where: { $0.caseInsensitiveEquals(column) })
                else { throw error }
                query = query.droppingSelected([column])
                leftOut(column)
            }
        }
    }

    /// The field of `INVALID_FIELD: … No such column 'Department' on entity 'Contact'`.
    static func missingColumn(in error: SyncRemoteError) -> String? {
        guard case let .server(400, "INVALID_FIELD", message) = error, let start = message.range(of: "No such column '") else { return nil }
        let rest = message[start.upperBound...]
        guard let end = rest.firstIndex(of: "'") else { return nil }
        return String(rest[..<end])
    }

    /// The page size to ask for: the target's own, or, with several pages in flight, the default
    /// shared among them, so a dropped link costs no more than one default page (at least 200,
    /// Salesforce's smallest). nil leaves the server's default (2,000).
    var pageSize: Int? {
        guard batchSize == SyncDownTarget.defaultQueryBatchSize else { return batchSize }
        guard context.pagesInFlight > 1 else { return nil }
        return max(200, batchSize / context.pagesInFlight / 100 * 100)
    }

    func remoteIds(localIds: [String]) async throws -> Set<String> {
        let target = context.target
        return try await context.ids(from: try await context.remote.query(target.remoteIdsSoql ?? "", batchSize: nil), field: target.idFieldName)
    }
}

/// A sosl target: one search, whole; ghosts from the same search.
struct SoslFetch: SyncDownFetch {
    let context: FetchContext
    let query: String

    func first(state: SyncState, since: Int64?) async throws -> SyncDownPage {
        .whole(try await context.remote.search(query), soup: state.soupName)
    }

    func remoteIds(localIds: [String]) async throws -> Set<String> {
        Set(try await context.remote.search(query).compactMap { $0[context.target.idFieldName]?.stringValue })
    }
}

/// An mru target: the user's recent items of a type, their fields by one query; ghosts are the
/// soup's records the org no longer has.
struct MruFetch: SyncDownFetch {
    let context: FetchContext
    let sobjectType: String
    let fieldlist: [String]

    func first(state: SyncState, since: Int64?) async throws -> SyncDownPage {
        let ids: [String]
        do {
            ids = try await context.remote.recentItemIds(sobjectType: sobjectType)
        } catch {
            throw error.naming(sobjectType, resource: "sobjects/\(sobjectType)")
        }
        guard !ids.isEmpty else { return .empty }
        let fields = context.withSyncFields(fieldlist).joined(separator: ", ")
        let page = try await context.remote.query(
            "select \(fields) from \(sobjectType) where \(context.target.idFieldName) IN (\(FetchContext.quotedList(ids)))", batchSize: nil)
        return .whole(page.records, soup: state.soupName)
    }

    func remoteIds(localIds: [String]) async throws -> Set<String> {
        try await context.existingIds(of: sobjectType, among: localIds)
    }
}

/// A refresh target: the records the soup already holds, fetched again a slice of ids at a time
/// (only those changed since the mark, when there is one).
struct RefreshFetch: SyncDownFetch {
    let context: FetchContext
    let sobjectType: String
    let fieldlist: [String]
    let soup: String
    let idsPerSoql: Int

    func first(state: SyncState, since: Int64?) async throws -> SyncDownPage {
        let total = try context.store.count(.all(soup))
        var page = try await slice(afterId: nil, since: since)
        page.totalSize = total
        return page
    }

    func next(_ continuation: SyncDownPage.Continuation, since: Int64?) async throws -> SyncDownPage {
        guard case let .refreshFrom(afterId) = continuation else { return .empty }
        return try await slice(afterId: afterId, since: since)
    }

    func remoteIds(localIds: [String]) async throws -> Set<String> {
        try await context.existingIds(of: sobjectType, among: localIds)
    }

    private func slice(afterId: String?, since: Int64?) async throws -> SyncDownPage {
        let idField = context.target.idFieldName
        var sql = "SELECT {\(soup):\(idField)} FROM {\(soup)} WHERE {\(soup):\(idField)} IS NOT NULL"
        var arguments: [JSONValue] = []
        if let afterId {
            sql += " AND {\(soup):\(idField)} > ?"
            arguments.append(.string(afterId))
        }
        sql += " ORDER BY {\(soup):\(idField)} ASC"
        // At most `idsPerQueryURL` ids a query: quoted and encoded each takes ~27 bytes of the
        // URL, and a real org refuses a request line and headers over 16,384 bytes.
        let slice = min(idsPerSoql, Self.idsPerQueryURL)
        let held = try context.store.query(.smart(sql, pageSize: slice), arguments: arguments).compactMap { $0.arrayValue?.first?.stringValue }
        // Only record ids: a soup may also hold what a metadata or layout sync stores under an
        // object's name ("Account"), which no query takes as an id (INVALID_QUERY_FILTER_OPERATOR).
        let ids = held.filter { !LocalField.isLocalId($0) && Self.isRecordId($0) }
        let next: SyncDownPage.Continuation = held.count == slice ? .refreshFrom(afterId: held[held.count - 1]) : .none
        guard !ids.isEmpty else {
            if case .none = next { return .empty }
            return SyncDownPage(records: [], totalSize: 0, next: next)
        }
        var query = "select \(context.withSyncFields(fieldlist).joined(separator: ", ")) from \(sobjectType) where \(idField) IN (\(FetchContext.quotedList(ids)))"
        if let since { query += " and \(context.target.modificationDateFieldName) >= \(SalesforceTimestamp.format(since))" }
        let page = try await context.remote.query(query, batchSize: nil)
        return SyncDownPage(records: page.records.map { (soup, $0) }, totalSize: 0, next: next)
    }

    static let idsPerQueryURL = 250

    /// A Salesforce id's shape: 15 or 18 letters and digits.
    static func isRecordId(_ text: String) -> Bool {
        (text.utf8.count == 15 || text.utf8.count == 18) && text.utf8.allSatisfy { (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0) }
    }
}
