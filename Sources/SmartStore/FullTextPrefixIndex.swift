import Foundation
import GRDB

extension SmartStore {
    /// Gives a soup's full-text table the prefix indexes of `SoupSchema.fullTextPrefixLengths` when
    /// it was made without them (by an older forceterm or by the Mobile SDK): the table is made again
    /// and filled from the soup's columns, in one transaction, so a crash leaves the old table whole.
    /// Does nothing for a soup without full_text indexes or one that has them. Returns whether it
    /// rebuilt the table (seconds for 100k records, once per store).
    @discardableResult
    public func ensureFullTextPrefixIndex(soup: String) throws -> Bool {
        if try read({ try $0.hasFullTextPrefixIndex(soup: soup) }) { return false }
        return try write { transaction in try transaction.ensureFullTextPrefixIndex(soup: soup) }
    }
}

extension StoreTransaction {
    @discardableResult
    public func ensureFullTextPrefixIndex(soup name: String) throws -> Bool {
        let info = try soupInfo(name)
        guard try !hasFullTextPrefixIndex(soup: name) else { return false }
        let columns = info.fullTextSpecs.compactMap(\.columnName)
        let list = columns.joined(separator: ", ")
        try db.execute(sql: "DROP TABLE IF EXISTS \(info.ftsTableName)")
        try SoupSchema.createFullTextTable(db, table: info.tableName, columns: columns)
        let indexed = columns.map { "smartstore_fts_text(\($0))" }.joined(separator: ", ")
        try db.execute(sql: "INSERT INTO \(info.ftsTableName) (rowid, \(list)) SELECT id, \(indexed) FROM \(info.tableName)")
        return true
    }

    /// Whether the soup's FTS table has prefix indexes (its CREATE statement names `prefix`); a soup
    /// without full-text columns counts as having them, as there is nothing to build.
    func hasFullTextPrefixIndex(soup name: String) throws -> Bool {
        let info = try soupInfo(name)
        guard info.hasFullTextSearch else { return true }
        let sql = try String.fetchOne(
            db, sql: "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", arguments: [info.ftsTableName])
        return sql?.range(of: "prefix", options: .caseInsensitive) != nil && sql?.contains(SoupSchema.fullTextExtrasMarker) == true
    }
}
