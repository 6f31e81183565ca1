import ForceJSON
import SmartStore

/// One soup's records for the screens: pages in sort order (never all rows), search, and the local
/// create / update / delete / undelete writes, each in its own transaction.
public struct RecordRepository: Sendable {
    public let store: SmartStore
    public let kind: RecordKind

    public init(store: SmartStore, kind: RecordKind) {
        self.store = store
        self.kind = kind
    }

    private var soup: String { kind.soupName }
    /// Case and accents ignored (`smartstore_text`), so "ñúñez" sorts with the Ns, not after Z.
    private var sortColumn: String { "{\(soup):\(kind.sortPath)} COLLATE \(TextCollation.name)" }
    private var idColumn: String { "{\(soup):_soupEntryId}" }

    /// The WHERE condition for a search typed by the user (prefix words over every full_text field,
    /// accent- and case-insensitive through the FTS tokenizer), or none.
    private func searchCondition(_ search: String) -> (sql: String, arguments: [JSONValue])? {
        guard let terms = FullTextQuery.prefixTerms(search) else { return nil }
        return ("\(idColumn) IN (SELECT rowid FROM {\(soup)}_fts WHERE {\(soup)}_fts MATCH ?)", [.string(terms)])
    }

    /// Creates what the list pages through: the index its sort order walks, and the full-text
    /// prefix index that keeps the first keystrokes of a search fast (each once per store; seconds
    /// for 100k records).
    public func prepareListIndexes() throws {
        try store.ensureTextSortIndex(soup: soup, path: kind.sortPath)
        try store.ensureFullTextPrefixIndex(soup: soup)
    }

    /// How many records match `search` (all records for an empty search). A search is counted in
    /// the full-text index alone (one row per record), ten times faster than joining the soup.
    public func count(matching search: String = "") throws -> Int {
        var sql = "SELECT count(*) FROM {\(soup)}"
        var arguments: [JSONValue] = []
        if let terms = FullTextQuery.prefixTerms(search) {
            sql = "SELECT count(*) FROM {\(soup)}_fts WHERE {\(soup)}_fts MATCH ?"
            arguments = [.string(terms)]
        }
        let rows = try store.query(.smart(sql, pageSize: 1), arguments: arguments)
        return Int(rows.first?.arrayValue?.first?.int64Value ?? 0)
    }

    /// Above this many matches, a page of a search walks the sort index and stops at the page's end
    /// instead of sorting every match.
    static let sortedScanThreshold = 2_000

    /// Up to `limit` records from position `offset` in sort order (sort field, then entry id).
    /// `matchCount`, when the caller knows it, picks the faster plan for a search.
    public func page(matching search: String = "", offset: Int, limit: Int, matchCount: Int? = nil) throws -> [LocalRecord] {
        guard limit > 0 else { return [] }
        if let matchCount, matchCount > Self.sortedScanThreshold, offset + limit <= Self.denseWindowReach,
           let page = try densePage(matching: search, offset: offset, limit: limit, matchCount: matchCount) {
            return page
        }
        var sql = "SELECT {\(soup):_soup} FROM {\(soup)}"
        var arguments: [JSONValue] = []
        if let condition = searchCondition(search) {
            // `+` keeps SQLite from driving the query by the matches (and sorting them all): with
            // many matches, scanning the sort index meets a page's worth within a few rows.
            let manyMatches = (matchCount ?? 0) > Self.sortedScanThreshold
            sql += " WHERE " + (manyMatches ? "+" : "") + condition.sql
            arguments = condition.arguments
        }
        sql += " ORDER BY \(sortColumn), \(idColumn) LIMIT \(limit) OFFSET \(max(offset, 0))"
        let rows = try store.query(.smart(sql, pageSize: limit), arguments: arguments)
        return try Self.records(rows)
    }

    /// A search of one- or two-letter words ("e", "s") matching at least this share of the soup looks
    /// for its first pages among the first rows in sort order, each checked against the full-text
    /// index, instead of gathering every match first (tens of milliseconds on 100k records). Longer
    /// words are not checked row by row: without a prefix index each check merges every word that
    /// starts that way, hundreds of times slower.
    static let denseShare = 0.25
    /// How far into the results that shortcut goes; deeper pages take the usual plan.
    static let denseWindowReach = 1_000

    /// The page read from a window of the first rows in sort order, sized from the share of rows
    /// that match; `nil` when the window held too few matches (they cluster elsewhere in the order)
    /// and the usual plan must run.
    private func densePage(matching search: String, offset: Int, limit: Int, matchCount: Int) throws -> [LocalRecord]? {
        guard FullTextQuery.usesPrefixIndexOnly(search), let terms = FullTextQuery.prefixTerms(search) else { return nil }
        let total = try count()
        guard total > 0, Double(matchCount) >= Double(total) * Self.denseShare else { return nil }
        let window = min(total, Int(Double(offset + limit) * Double(total) / Double(matchCount)) * 3 + 100)
        let sql = """
            SELECT soup FROM (SELECT \(idColumn) AS eid, {\(soup):_soup}, \(sortColumn) AS sortValue FROM {\(soup)}
            ORDER BY \(sortColumn), \(idColumn) LIMIT \(window))
            WHERE EXISTS (SELECT 1 FROM {\(soup)}_fts WHERE {\(soup)}_fts MATCH ? AND rowid = eid)
            ORDER BY sortValue COLLATE \(TextCollation.name), eid LIMIT \(limit) OFFSET \(max(offset, 0))
            """
        let rows = try store.query(.smart(sql, pageSize: limit), arguments: [.string(terms)])
        guard rows.count == limit || window == total else { return nil }
        return try Self.records(rows)
    }

    /// The records of rows whose first column is a whole document.
    private static func records(_ rows: [JSONValue]) throws -> [LocalRecord] {
        try rows.compactMap { row in
            guard let document = row.arrayValue?.first?.objectValue else { return nil }
            return try LocalRecord(document: document)
        }
    }

    /// Where `record` sits in the sorted list for `search`, or `nil` when the search excludes it.
    /// Counts the rows before it instead of scanning, so keeping the selection stays cheap.
    public func position(of entryId: Int64, matching search: String = "") throws -> Int? {
        guard let record = try record(entryId: entryId) else { return nil }
        var conditions: [String] = []
        var arguments: [JSONValue] = []
        if let condition = searchCondition(search) {
            if try !matches(entryId: entryId, condition: condition) { return nil }
            conditions.append(condition.sql)
            arguments += condition.arguments
        }
        let sortValue: JSONValue = record.document[kind.sortPath].flatMap { $0.isNull ? nil : .string(record.string(kind.sortPath)) } ?? .null
        conditions.append(
            "((\(sortColumn) IS NULL AND ? IS NOT NULL) OR \(sortColumn) < ? OR (\(sortColumn) IS ? AND \(idColumn) < ?))")
        arguments += [sortValue, sortValue, sortValue, .int(entryId)]
        let sql = "SELECT count(*) FROM {\(soup)} WHERE " + conditions.joined(separator: " AND ")
        let rows = try store.query(.smart(sql, pageSize: 1), arguments: arguments)
        return Int(rows.first?.arrayValue?.first?.int64Value ?? 0)
    }

    private func matches(entryId: Int64, condition: (sql: String, arguments: [JSONValue])) throws -> Bool {
        let sql = "SELECT count(*) FROM {\(soup)} WHERE \(idColumn) = ? AND " + condition.sql
        let rows = try store.query(.smart(sql, pageSize: 1), arguments: [.int(entryId)] + condition.arguments)
        return (rows.first?.arrayValue?.first?.int64Value ?? 0) > 0
    }

    public func record(entryId: Int64) throws -> LocalRecord? {
        try store.retrieve([entryId], from: soup).first.map(LocalRecord.init)
    }

    /// The record whose `Id` (server or local id) is `id`.
    public func record(id: String) throws -> LocalRecord? {
        let spec = QuerySpec.exact(soup, path: "Id", matchKey: .string(id), pageSize: 1)
        return try store.query(spec).first?.objectValue.map(LocalRecord.init)
    }

    /// Records whose `field` equals `value`, sorted; at most `limit` (an account's contacts).
    public func records(where field: String, equals value: String, limit: Int) throws -> [LocalRecord] {
        let spec = QuerySpec.exact(soup, path: field, matchKey: .string(value), orderPath: kind.sortPath, pageSize: limit)
        return try store.query(spec).compactMap { try $0.objectValue.map(LocalRecord.init) }
    }

    public func count(where field: String, equals value: String) throws -> Int {
        try store.count(QuerySpec.exact(soup, path: field, matchKey: .string(value)))
    }

    /// Records with local changes not yet synced (`__local__` true).
    public func localChangeCount() throws -> Int {
        try store.count(QuerySpec.exact(soup, path: LocalFlag.local, matchKey: true))
    }

    // MARK: Local changes

    /// Saves a new record with a `local_` id and the created flags.
    public func create(fields: JSONObject) throws -> LocalRecord {
        let document = LocalChanges.created(fields: fields, sObjectType: kind.sObjectType, localId: LocalChanges.newLocalId())
        return try LocalRecord(document: store.create(document, in: soup))
    }

    /// Saves edited fields with the updated flags; returns the record unchanged when nothing changed.
    public func update(entryId: Int64, fields: JSONObject) throws -> LocalRecord {
        try store.write { transaction in
            guard let current = try transaction.retrieve([entryId], from: soup).first else {
                throw RecordMissing(kind: kind)
            }
            guard let changed = LocalChanges.updated(current, fields: fields) else { return try LocalRecord(document: current) }
            guard let saved = try transaction.update(changed, id: entryId, in: soup) else { throw RecordMissing(kind: kind) }
            return try LocalRecord(document: saved)
        }
    }

    /// Marks the record deleted; it stays in the soup until sync up.
    public func delete(entryId: Int64) throws -> LocalRecord {
        try rewrite(entryId: entryId, LocalChanges.deleted)
    }

    /// Clears the deleted mark.
    public func undelete(entryId: Int64) throws -> LocalRecord {
        try rewrite(entryId: entryId, LocalChanges.undeleted)
    }

    private func rewrite(entryId: Int64, _ change: (JSONObject) -> JSONObject) throws -> LocalRecord {
        try store.write { transaction in
            guard let current = try transaction.retrieve([entryId], from: soup).first,
                let saved = try transaction.update(change(current), id: entryId, in: soup)
            else { throw RecordMissing(kind: kind) }
            return try LocalRecord(document: saved)
        }
    }
}

/// A record that was removed (by a sync in another process, say) while a screen showed it.
public struct RecordMissing: Error, CustomStringConvertible {
    public let kind: RecordKind
    public var description: String { "this \(kind.singular) is no longer in the store; the list has been refreshed" }
}
