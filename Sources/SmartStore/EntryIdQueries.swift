import GRDB

extension SmartStore {
    /// The entry ids of `soup` whose full-text fields match `expression` (FTS5 syntax, as
    /// `FullTextQuery.prefixTerms` makes it), in ascending id order. Ids only, read straight from
    /// the full-text index: every match of a search costs milliseconds, even most of 100k records.
    public func fullTextMatchIds(soup: String, matching expression: String) throws -> [Int64] {
        try read { try $0.fullTextMatchIds(soup: soup, matching: expression) }
    }

    /// Every entry id of `soup` in the order of its text sort index on `path` (`smartstore_text`,
    /// then id; records without a value first, as ORDER BY puts them). One walk of that index
    /// (`ensureTextSortIndex`); without it, SQLite sorts the soup instead.
    public func entryIdsInTextOrder(soup: String, path: String) throws -> [Int64] {
        try read { try $0.entryIdsInTextOrder(soup: soup, path: path) }
    }
}

extension StoreTransaction {
    public func fullTextMatchIds(soup name: String, matching expression: String) throws -> [Int64] {
        let info = try soup(name)
        guard info.hasFullTextSearch else {
            throw SmartStoreError.database(message: "cannot search \(name): it has no full_text index")
        }
        let statement = try RawStatement(db, sql: "SELECT rowid FROM \(info.ftsTableName) WHERE \(info.ftsTableName) MATCH ? ORDER BY rowid")
        statement.bind(.text(expression), at: 1)
        return try statement.integersOfFirstColumn()
    }

    public func entryIdsInTextOrder(soup name: String, path: String) throws -> [Int64] {
        let info = try soup(name)
        guard let column = info.indexSpec(forPath: path)?.columnName else {
            throw SmartStoreError.database(message: "cannot sort \(name) by \(path): it has no indexed column")
        }
        return try RawStatement(db, sql: "SELECT id FROM \(info.tableName) ORDER BY \(column) COLLATE \(TextCollation.name), id")
            .integersOfFirstColumn()
    }
}
