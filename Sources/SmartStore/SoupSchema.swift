import ForceJSON
import Foundation
import GRDB

/// The DDL of the store: metadata tables and one table (plus an FTS5 table) per soup, laid out as
/// the Mobile SDK lays them out so that Smart SQL written for the SDK runs unchanged.
enum SoupSchema {
    static let fullTextTokenizer = "unicode61 remove_diacritics 2"

    static func createMetaTables(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE IF NOT EXISTS soup_attrs (id INTEGER PRIMARY KEY AUTOINCREMENT, soupName TEXT);
                CREATE INDEX IF NOT EXISTS soup_attrs_0 ON soup_attrs (soupName);
                CREATE TABLE IF NOT EXISTS soup_index_map (soupName TEXT, path TEXT, columnName TEXT, columnType TEXT);
                CREATE INDEX IF NOT EXISTS soup_index_map_0 ON soup_index_map (soupName);
                CREATE TABLE IF NOT EXISTS long_operations_status (
                    id INTEGER PRIMARY KEY AUTOINCREMENT, type TEXT, details TEXT, status TEXT,
                    created INTEGER, lastModified INTEGER);
                """)
    }

    /// Records a long operation (alterSoup, a bulk load) in `long_operations_status`; returns its id.
    static func insertLongOperation(_ db: Database, type: String, details: JSONObject, status: String) throws -> Int64 {
        let now = SmartStore.currentTimeMillis()
        try db.execute(
            sql: "INSERT INTO long_operations_status (type, details, status, created, lastModified) VALUES (?, ?, ?, ?, ?)",
            arguments: [type, JSONWriter.string(.object(details)), status, now, now])
        return db.lastInsertedRowID
    }

    static func hasMetaTables(_ db: Database) throws -> Bool {
        try db.tableExists("soup_attrs") && db.tableExists("soup_index_map")
    }

    static func validateSoupName(_ name: String) throws {
        let valid =
            !name.isEmpty && name.count <= 200
            && name.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" }
        guard valid else { throw SmartStoreError.invalidSoupName(name) }
    }

    static func validate(_ specs: [IndexSpec], soup: String) throws {
        guard !specs.isEmpty else { throw SmartStoreError.noIndexSpecs(soup: soup) }
        var seen = Set<String>()
        for spec in specs where !seen.insert(spec.path).inserted {
            throw SmartStoreError.duplicateIndexPath(soup: soup, path: spec.path)
        }
    }

    /// Gives each spec its column name: `TABLE_N_<i>` by position, or the json_extract expression.
    static func assignColumns(_ specs: [IndexSpec], table: String) -> [IndexSpec] {
        specs.enumerated().map { position, spec in
            var spec = spec
            spec.columnName = spec.type == .json1 ? JSONPathSQL.extract(spec.path) : "\(table)_\(position)"
            return spec
        }
    }

    /// Creates the soup's table, its indexes, its FTS table and its `soup_index_map` rows.
    static func createSoupTable(_ db: Database, soup: String, table: String, specs: [IndexSpec]) throws {
        let columns = specs.compactMap { spec in spec.type.columnSQLType.map { "\(spec.columnName ?? "") \($0)" } }
        let columnList =
            (["id INTEGER PRIMARY KEY AUTOINCREMENT", "soup TEXT", "created INTEGER", "lastModified INTEGER"]
            + columns).joined(separator: ", ")
        try db.execute(sql: "CREATE TABLE \(table) (\(columnList))")
        try createIndexes(db, table: table, specs: specs)
        let fullText = specs.filter { $0.type == .fullText }.compactMap(\.columnName)
        if !fullText.isEmpty { try createFullTextTable(db, table: table, columns: fullText) }
        for spec in specs {
            try db.execute(
                sql: "INSERT INTO soup_index_map (soupName, path, columnName, columnType) VALUES (?, ?, ?, ?)",
                arguments: [soup, spec.path, spec.columnName, spec.type.rawValue])
        }
    }

    /// The longest prefix FTS5 keeps an index for, and every shorter one. A one- or two-letter
    /// search (`"s"*`) then reads one list of entries instead of merging the lists of every word
    /// that starts that way, which is what made the first keystrokes of search-as-you-type slow on
    /// large soups. Longer prefixes match few words and gain little, while each length makes every
    /// write index more terms.
    static let longestIndexedPrefix = 2
    static let fullTextPrefixLengths = (1...longestIndexedPrefix).map(String.init).joined(separator: " ")

    /// The soup's FTS5 table over `columns`: the SDK's tokenizer, plus the prefix indexes.
    /// Written into the FTS table's CREATE statement (SQLite keeps it in sqlite_master), so a table
    /// filled without `FullTextExtras`, by the SDK or an older forceterm, can be told apart.
    static let fullTextExtrasMarker = "/* forceterm: folded letters and CJK characters indexed too */"

    static func createFullTextTable(_ db: Database, table: String, columns: [String]) throws {
        try db.execute(
            sql: """
                CREATE VIRTUAL TABLE \(table)_fts USING fts5(\(columns.joined(separator: ", ")), \
                tokenize = '\(fullTextTokenizer)', prefix = '\(fullTextPrefixLengths)' \(fullTextExtrasMarker))
                """)
    }

    static func createIndexes(_ db: Database, table: String, specs: [IndexSpec]) throws {
        try db.execute(sql: "CREATE INDEX IF NOT EXISTS \(table)_created_idx ON \(table) (created)")
        try db.execute(sql: "CREATE INDEX IF NOT EXISTS \(table)_lastModified_idx ON \(table) (lastModified)")
        for (position, spec) in specs.enumerated() {
            let target = spec.type == .json1 ? JSONPathSQL.extract(spec.path) : (spec.columnName ?? "")
            try db.execute(sql: "CREATE INDEX IF NOT EXISTS \(table)_\(position)_idx ON \(table) (\(target))")
        }
    }

    static func dropIndexes(_ db: Database, table: String) throws {
        let names = try String.fetchAll(
            db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL",
            arguments: [table])
        for name in names { try db.execute(sql: "DROP INDEX IF EXISTS \(name)") }
    }
}
