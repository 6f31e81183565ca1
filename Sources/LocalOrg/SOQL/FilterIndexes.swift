import Foundation
import GRDB

/// A text column a query's WHERE compares for equality (`=`, `IN`) on one object: what the index
/// advisor looks at. `folded`: the literal has letters beyond ASCII, so the compare is on
/// `localorg_fold(column)`, which only an index on that expression serves.
struct FilteredColumn: Sendable, Hashable {
    var table: String
    var column: String
    var folded: Bool

    /// The index's name: one per column and form, so a second query finds it decided.
    var indexName: String { "\(table)_\(column)\(folded ? "_folded" : "")_filter" }
}

/// localorg's answer to the question a real org answers with custom indexes and its query
/// optimizer: a large org filtered on an unindexed field (a subscription's `MailingCity =
/// 'Zürich'` among a million contacts) should not scan every row on every page, count and ghost
/// check. Performance only: what a query returns never depends on it.
extension OrgStore {
    /// Tables smaller than this are scanned: an index would cost more to keep than it saves.
    public static let filterIndexMinimumRows: Int64 = 50_000

    /// Indexes each of `columns` not indexed yet, once its table has `filterIndexThreshold` rows
    /// (by its largest rowid, read without a scan). Says so on stderr, once per index.
    func indexFilteredColumns(_ columns: [FilteredColumn]) async throws {
        let wanted = decidedFilterIndexes.withLock { decided in columns.filter { !decided.contains($0.indexName) } }
        guard !wanted.isEmpty else { return }
        for (table, group) in Dictionary(grouping: wanted, by: \.table) {
            let size = try await pool.read { db in try Int64.fetchOne(db, sql: "SELECT MAX(rowid) FROM \(quoted(table))") ?? 0 }
            // A small table is asked again later: it may grow.
            guard size >= filterIndexThreshold else { continue }
            let made = try await pool.write { db -> [String] in
                // The leading column of each index there is (nil for an expression).
                let leading = Set(
                    try String.fetchAll(
                        db, sql: "SELECT ii.name FROM pragma_index_list(?) AS il, pragma_index_info(il.name) AS ii WHERE ii.seqno = 0 AND ii.name IS NOT NULL",
                        arguments: [table]
                    ).map { $0.lowercased() })
                var made: [String] = []
                for column in group where column.folded || !leading.contains(column.column.lowercased()) {
                    let expression = column.folded ? "\(Self.foldFunction)(\(quoted(column.column)))" : quoted(column.column)
                    let exists = try Int.fetchOne(db, sql: "SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?", arguments: [column.indexName]) != nil
                    if !exists {
                        try db.execute(sql: "CREATE INDEX \(quoted(column.indexName)) ON \(quoted(table))(\(expression))")
                        made.append(column.folded ? "\(Self.foldFunction)(\(column.column))" : column.column)
                    }
                }
                return made
            }
            decidedFilterIndexes.withLock { decided in group.forEach { decided.insert($0.indexName) } }
            for column in made {
                FileHandle.standardError.write(Data("localorg: indexed \(table).\(column), which a query filters on (\(size) rows)\n".utf8))
            }
        }
    }
}
