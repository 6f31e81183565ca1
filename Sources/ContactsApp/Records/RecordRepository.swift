import ForceJSON
import Foundation
import MobileSync
import SmartStore

/// One soup's records for the screens: pages in sort order (never all rows), search, and the local
/// create / update / delete / undelete writes, each in its own transaction.
public struct RecordRepository: Sendable {
    public let store: SmartStore
    public let kind: RecordKind
    /// The list's order (`ListSort.name`, the kind's own, unless the user chose another).
    public private(set) var sort = ListSort.name
    /// The accounts soup, which `ListSort.account` joins.
    private var accountsSoup: String?
    /// Where contacts' accounts are, so that a search finds the contacts of accounts whose name
    /// matches it as well as those whose own fields do.
    public var accountsForSearch: String?
    /// A search that matches more accounts than this is not a search for an account (a first
    /// letter): their contacts are not added, which keeps a keystroke within a frame at 100k.
    static let accountMatchesForSearch = 50

    /// The soup's indexed paths and whether it has full-text ones, read once: a soup the Mobile
    /// SDK's config registered may lack what forceterm's own indexes (the sort field, `Id`,
    /// `AccountId`, a full-text name), and is then read through its JSON instead.
    private let indexedPaths: Set<String>
    private let hasFullText: Bool

    public init(store: SmartStore, kind: RecordKind) {
        self.store = store
        self.kind = kind
        let specs = (try? store.indexSpecs(soup: kind.soupName)) ?? []
        indexedPaths = Set(specs.map(\.path))
        hasFullText = specs.contains { $0.type == .fullText }
    }

    /// Sorts by `sort` from now on; `accountsSoup` is where contacts' accounts are, for `.account`.
    public mutating func setSort(_ sort: ListSort, accountsSoup: String?) {
        self.sort = accountsSoup == nil && sort == .account ? .name : sort
        self.accountsSoup = accountsSoup
    }

    private var soup: String { kind.soupName }
    /// Case and accents ignored (`smartstore_text`), so "ñúñez" sorts with the Ns, not after Z.
    /// Smart SQL reads an unindexed path from the JSON, so this works on any soup.
    private var sortColumn: String { "{\(soup):\(kind.sortPath)} COLLATE \(TextCollation.name)" }
    private var idColumn: String { "{\(soup):_soupEntryId}" }

    /// Creates what the list pages through: the index its sort order walks, and the full-text
    /// prefix index that keeps the first keystrokes of a search fast (each once per store; seconds
    /// for 100k records). Only on indexed paths: forceterm adds no index specs to a soup.
    public func prepareListIndexes() throws {
        if indexedPaths.contains(kind.sortPath) { try store.ensureTextSortIndex(soup: soup, path: kind.sortPath) }
        if hasFullText { try store.ensureFullTextPrefixIndex(soup: soup) }
    }

    /// How many records the soup holds.
    public func count() throws -> Int {
        let rows = try store.query(.smart("SELECT count(*) FROM {\(soup)}", pageSize: 1))
        return Int(rows.first?.arrayValue?.first?.int64Value ?? 0)
    }

    /// Up to `limit` records from position `offset` in sort order (sort field, then entry id).
    public func page(offset: Int, limit: Int) throws -> [LocalRecord] {
        guard limit > 0 else { return [] }
        let sql = "SELECT {\(soup):_soup} FROM {\(soup)} ORDER BY \(sortColumn), \(idColumn) LIMIT \(limit) OFFSET \(max(offset, 0))"
        let rows = try store.query(.smart(sql, pageSize: limit))
        return try rows.compactMap { row in
            guard let document = row.arrayValue?.first?.objectValue else { return nil }
            return try LocalRecord(document: document)
        }
    }

    /// Where `record` sits in the sorted list, or `nil` when it is not in the store. Counts the
    /// rows before it in the sort index instead of scanning.
    public func position(of entryId: Int64) throws -> Int? {
        guard let record = try record(entryId: entryId) else { return nil }
        let sortValue: JSONValue = record.document[kind.sortPath].flatMap { $0.isNull ? nil : .string(record.string(kind.sortPath)) } ?? .null
        let sql = """
            SELECT count(*) FROM {\(soup)} WHERE ((\(sortColumn) IS NULL AND ? IS NOT NULL) OR \(sortColumn) < ? \
            OR (\(sortColumn) IS ? AND \(idColumn) < ?))
            """
        let rows = try store.query(.smart(sql, pageSize: 1), arguments: [sortValue, sortValue, sortValue, .int(entryId)])
        return Int(rows.first?.arrayValue?.first?.int64Value ?? 0)
    }

    /// Every record's entry id in sort order: what a search places its matches by (one walk of the
    /// sort index; tens of milliseconds for 100k records).
    public func entryIdsInOrder() throws -> [Int64] {
        switch sort {
        case .name:
            if indexedPaths.contains(kind.sortPath) { return try store.entryIdsInTextOrder(soup: soup, path: kind.sortPath) }
            return try integers("SELECT \(idColumn) FROM {\(soup)} ORDER BY \(sortColumn), \(idColumn)")
        case .firstName:
            return try idsSortedInMemory("SELECT \(idColumn), {\(soup):FirstName}, {\(soup):\(kind.sortPath)} FROM {\(soup)}")
        case .account:
            guard let accounts = accountsSoup else { return try integers("SELECT \(idColumn) FROM {\(soup)} ORDER BY \(sortColumn), \(idColumn)") }
            return try idsSortedInMemory(
                """
                SELECT \(idColumn), {\(accounts):Name}, {\(soup):\(kind.sortPath)} FROM {\(soup)} \
                LEFT JOIN {\(accounts)} ON {\(soup):AccountId} = {\(accounts):Id}
                """)
        case .lastModified:
            return try integers("SELECT \(idColumn) FROM {\(soup)} ORDER BY {\(soup):_soupLastModifiedDate} DESC, \(idColumn) DESC")
        }
    }

    /// The ids of `sql`'s rows (id, first key, second key) ordered by the keys as the list's
    /// collation orders text, rows without a first key last. Each key is folded once and the sort
    /// runs here: SQLite calling the collation for each of 100k × 17 comparisons took seconds.
    private func idsSortedInMemory(_ sql: String) throws -> [Int64] {
        struct Row {
            let id: Int64
            let first: String
            let second: String
            let hasFirst: Bool
        }
        let rows = try store.query(.smart(sql, pageSize: Int.max / 2)).compactMap { value -> Row? in
            guard let columns = value.arrayValue, let id = columns.first?.int64Value else { return nil }
            let first = columns.count > 1 ? columns[1].stringValue ?? "" : ""
            let second = columns.count > 2 ? columns[2].stringValue ?? "" : ""
            return Row(id: id, first: TextCollation.fold(first), second: TextCollation.fold(second), hasFirst: !first.isEmpty)
        }
        return rows.sorted { left, right in
            if left.hasFirst != right.hasFirst { return left.hasFirst }
            if left.first != right.first { return left.first.unicodeScalars.lexicographicallyPrecedes(right.first.unicodeScalars) }
            if left.second != right.second { return left.second.unicodeScalars.lexicographicallyPrecedes(right.second.unicodeScalars) }
            return left.id < right.id
        }.map(\.id)
    }

    /// The first column of every row of a Smart SQL query, as integers.
    private func integers(_ sql: String, arguments: [JSONValue] = []) throws -> [Int64] {
        try store.query(.smart(sql, pageSize: Int.max / 2), arguments: arguments).compactMap { $0.arrayValue?.first?.int64Value }
    }

    /// The entry ids of the records matching a typed search (prefix words over every full_text
    /// field, accent- and case-insensitive through the FTS tokenizer), in id order; `nil` when the
    /// text has nothing to search for (only spaces or punctuation).
    public func entryIds(matching search: String) throws -> [Int64]? {
        guard let terms = FullTextQuery.prefixTerms(search) else { return nil }
        guard hasFullText else { return try entryIdsContaining(search) }
        let own = try store.fullTextMatchIds(soup: soup, matching: terms)
        guard let byAccount = try entryIdsOfAccounts(matching: terms), !byAccount.isEmpty else { return own }
        return Array(Set(own).union(byAccount)).sorted()
    }

    /// The contacts of the accounts whose full-text fields match `terms`, in id order; nil when
    /// there is no accounts soup to look in, or too many accounts match.
    private func entryIdsOfAccounts(matching terms: String) throws -> [Int64]? {
        guard let accounts = accountsForSearch, accounts != soup, indexedPaths.contains("AccountId"),
            try store.hasSoup(accounts), try store.indexSpecs(soup: accounts).contains(where: { $0.type == .fullText })
        else { return nil }
        let matched = try store.fullTextMatchIds(soup: accounts, matching: terms)
        guard !matched.isEmpty, matched.count <= Self.accountMatchesForSearch else { return nil }
        let placeholders = Array(repeating: "?", count: matched.count).joined(separator: ", ")
        return try integers(
            """
            SELECT \(idColumn) FROM {\(soup)} JOIN {\(accounts)} ON {\(soup):AccountId} = {\(accounts):Id} \
            WHERE {\(accounts):_soupEntryId} IN (\(placeholders)) ORDER BY \(idColumn)
            """, arguments: matched.map { .int($0) })
    }

    /// A search on a soup without full-text indexes: every word somewhere in the row's name or
    /// subtitle fields, case and accents ignored as the list's order ignores them. It reads those
    /// fields of every row: fine for the SDK samples' soups (their queries stop at 10,000).
    private func entryIdsContaining(_ search: String) throws -> [Int64]? {
        let words = TextCollation.fold(search).split(whereSeparator: { $0.isWhitespace })
        guard !words.isEmpty else { return nil }
        let columns = kind.searchedFields.map { "{\(soup):\($0)}" }.joined(separator: ", ")
        let rows = try store.query(.smart("SELECT \(idColumn), \(columns) FROM {\(soup)} ORDER BY \(idColumn)", pageSize: Int.max / 2))
        return rows.compactMap { row in
            guard let values = row.arrayValue, let id = values.first?.int64Value else { return nil }
            let text = values.dropFirst().compactMap(\.stringValue).map(TextCollation.fold).joined(separator: " ")
            return words.allSatisfy { text.contains($0) } ? id : nil
        }
    }

    /// The entry ids of the records `filter` keeps, in id order.
    public func entryIds(in filter: RecordFilter) throws -> [Int64] {
        let local = "{\(soup):\(LocalField.local)} IN ('true', '1', 1)"
        let condition =
            switch filter {
            case .all: "1"
            case .pending: local
            // A record with a sync error or a conflict is always one with local changes: the indexed
            // flag narrows 100k records to those first (reading every JSON took 0.6 s at start).
            case .errors: "\(local) AND {\(soup):\(LocalField.lastError)} IS NOT NULL"
            case .conflicts: "\(local) AND {\(soup):\(LocalField.conflict)} IS NOT NULL"
            }
        return try integers("SELECT \(idColumn) FROM {\(soup)} WHERE \(condition) ORDER BY \(idColumn)")
    }

    /// How many records each filter keeps, for the list's header.
    public func counts(of filters: [RecordFilter]) throws -> [RecordFilter: Int] {
        try Dictionary(uniqueKeysWithValues: filters.map { ($0, $0 == .all ? try count() : try entryIds(in: $0).count) })
    }

    /// The records with these entry ids, in the order given; ids no longer in the store are left out.
    public func records(entryIds: [Int64]) throws -> [LocalRecord] {
        let documents = try store.retrieve(entryIds, from: soup).map(LocalRecord.init)
        let byId = Dictionary(documents.map { ($0.entryId, $0) }, uniquingKeysWith: { first, _ in first })
        return entryIds.compactMap { byId[$0] }
    }

    /// The records with these entry ids (default: all, in the list's order), a page at a time so
    /// a large soup is never held whole.
    public func forEachRecord(entryIds: [Int64]? = nil, _ body: (LocalRecord) throws -> Void) throws {
        let ids = try entryIds ?? entryIdsInOrder()
        var start = 0
        while start < ids.count {
            let slice = Array(ids[start..<min(start + 500, ids.count)])
            for record in try records(entryIds: slice) { try body(record) }
            start += slice.count
        }
    }

    public func record(entryId: Int64) throws -> LocalRecord? {
        try store.retrieve([entryId], from: soup).first.map(LocalRecord.init)
    }

    /// The record whose `Id` (server or local id) is `id`.
    public func record(id: String) throws -> LocalRecord? {
        try records(where: "Id", equals: id, limit: 1).first
    }

    /// Whether the soup holds a record with this Id; a store that cannot be read holds none.
    public func holds(id: String) -> Bool {
        (try? record(id: id)) != nil
    }

    /// Records whose `field` equals `value` with ASCII case ignored (an account named in a file), at most `limit`.
    public func records(where field: String, equalsIgnoringCase value: String, limit: Int) throws -> [LocalRecord] {
        let sql = "SELECT {\(soup):_soup} FROM {\(soup)} WHERE lower({\(soup):\(field)}) = lower(?) ORDER BY \(idColumn) LIMIT \(limit)"
        let rows = try store.query(.smart(sql, pageSize: limit), arguments: [.string(value)]).compactMap { $0.arrayValue?.first }
        return try rows.compactMap { try $0.objectValue.map(LocalRecord.init) }
    }

    /// Records whose `field` equals `value`, sorted; at most `limit` (an account's contacts).
    public func records(where field: String, equals value: String, limit: Int) throws -> [LocalRecord] {
        let rows: [JSONValue]
        if indexedPaths.contains(field) && indexedPaths.contains(kind.sortPath) {
            rows = try store.query(QuerySpec.exact(soup, path: field, matchKey: .string(value), orderPath: kind.sortPath, pageSize: limit))
        } else {
            let sql = "SELECT {\(soup):_soup} FROM {\(soup)} WHERE {\(soup):\(field)} = ? ORDER BY \(sortColumn), \(idColumn) LIMIT \(limit)"
            rows = try store.query(.smart(sql, pageSize: limit), arguments: [.string(value)]).compactMap { $0.arrayValue?.first }
        }
        return try rows.compactMap { try $0.objectValue.map(LocalRecord.init) }
    }

    public func count(where field: String, equals value: String) throws -> Int {
        if indexedPaths.contains(field) { return try store.count(QuerySpec.exact(soup, path: field, matchKey: .string(value))) }
        return try integers("SELECT count(*) FROM {\(soup)} WHERE {\(soup):\(field)} = ?", arguments: [.string(value)]).first.map(Int.init) ?? 0
    }

    /// Records with local changes not yet synced (`__local__` true).
    public func localChangeCount() throws -> Int {
        if indexedPaths.contains(LocalField.local) { return try store.count(QuerySpec.exact(soup, path: LocalField.local, matchKey: true)) }
        return try integers("SELECT count(*) FROM {\(soup)} WHERE {\(soup):\(LocalField.local)} = 1").first.map(Int.init) ?? 0
    }

    // MARK: Local changes

    /// Saves a new record with a `local_` id and the created flags.
    public func create(fields: JSONObject) throws -> LocalRecord {
        try store.write { try create(fields: fields, in: $0) }
    }

    /// Saves a new record inside a caller's transaction (an import's, all or nothing); `localId`
    /// when the caller already refers to it (an imported contact of an imported account).
    public func create(fields: JSONObject, localId: String = LocalChanges.newLocalId(), in transaction: StoreTransaction) throws -> LocalRecord {
        let document = LocalEdit.created(fields: fields, sObjectType: kind.sObjectType, localId: localId)
        guard let saved = try transaction.create([document], in: soup).first else { throw RecordMissing(kind: kind) }
        return try LocalRecord(document: saved)
    }

    /// Saves a record of the org under its server id with no local change, as a sync down would
    /// (an import of another store's export): nothing is sent, the next sync down refreshes it.
    public func storeCopy(fields: JSONObject, id: String, in transaction: StoreTransaction) throws -> LocalRecord {
        var document: JSONObject = ["attributes": ["type": .string(kind.sObjectType)], "Id": .string(id)]
        for (key, value) in fields { document[key] = value }
        for flag in [LocalField.local, LocalField.locallyCreated, LocalField.locallyUpdated, LocalField.locallyDeleted] { document[flag] = false }
        guard let saved = try transaction.create([document], in: soup).first else { throw RecordMissing(kind: kind) }
        return try LocalRecord(document: saved)
    }

    /// Saves edited fields with the updated flags; returns the record unchanged when nothing changed.
    public func update(entryId: Int64, fields: JSONObject) throws -> LocalRecord {
        try store.write { try update(entryId: entryId, fields: fields, in: $0) }
    }

    /// `update(entryId:fields:)` inside a caller's transaction.
    public func update(entryId: Int64, fields: JSONObject, in transaction: StoreTransaction) throws -> LocalRecord {
        guard let current = try transaction.retrieve([entryId], from: soup).first else {
            throw RecordMissing(kind: kind)
        }
        guard let changed = LocalEdit.updated(current, fields: fields) else { return try LocalRecord(document: current) }
        guard let saved = try transaction.update(changed, id: entryId, in: soup) else { throw RecordMissing(kind: kind) }
        return try LocalRecord(document: saved)
    }

    /// Marks the record deleted; it stays in the soup until sync up.
    public func delete(entryId: Int64) throws -> LocalRecord {
        try store.write { try delete(entryId: entryId, in: $0) }
    }

    /// `delete(entryId:)` inside a caller's transaction (several records, all or nothing).
    public func delete(entryId: Int64, in transaction: StoreTransaction) throws -> LocalRecord {
        try rewrite(entryId: entryId, in: transaction, { LocalEdit.deleted($0) })
    }

    /// Clears the deleted mark.
    public func undelete(entryId: Int64) throws -> LocalRecord {
        try store.write { try rewrite(entryId: entryId, in: $0, LocalEdit.undeleted) }
    }

    private func rewrite(entryId: Int64, in transaction: StoreTransaction, _ change: (JSONObject) -> JSONObject) throws -> LocalRecord {
        guard let current = try transaction.retrieve([entryId], from: soup).first,
            let saved = try transaction.update(change(current), id: entryId, in: soup)
        else { throw RecordMissing(kind: kind) }
        return try LocalRecord(document: saved)
    }
}

/// A record that was removed (by a sync in another process, say) while a screen showed it.
public struct RecordMissing: Error, CustomStringConvertible {
    public let kind: RecordKind
    public var description: String { "this \(kind.singular) is no longer in the store; the list has been refreshed" }
}

/// Which records a list shows: all, or only those a user has to look at before or after a sync.
public enum RecordFilter: String, Sendable, Hashable, CaseIterable {
    case all, pending, errors, conflicts

    /// The next filter, wrapping around (the `f` key).
    public var next: RecordFilter {
        let all = Self.allCases
        return all[((all.firstIndex(of: self) ?? 0) + 1) % all.count]
    }

    /// How the list's header names the records kept: "contacts with local changes".
    public func title(_ plural: String) -> String {
        switch self {
        case .all: plural
        case .pending: "\(plural) with local changes"
        case .errors: "\(plural) with sync errors"
        case .conflicts: "\(plural) in conflict"
        }
    }
}
