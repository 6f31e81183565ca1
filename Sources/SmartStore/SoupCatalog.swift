import GRDB
import Synchronization

/// What the store knows about one soup: its table and its indexed paths.
public struct SoupInfo: Sendable, Equatable {
    public let name: String
    public let tableName: String
    /// Index specs in registration order, each with its `columnName` filled in.
    public let indexSpecs: [IndexSpec]

    public var hasFullTextSearch: Bool { indexSpecs.contains { $0.type == .fullText } }
    public var ftsTableName: String { tableName + "_fts" }

    public func indexSpec(forPath path: String) -> IndexSpec? { indexSpecs.first { $0.path == path } }

    /// Columns that hold projected values, in spec order (json1 specs have none).
    var columnSpecs: [IndexSpec] { indexSpecs.filter { $0.type != .json1 } }
    var fullTextSpecs: [IndexSpec] { indexSpecs.filter { $0.type == .fullText } }

    /// The SQL expression for an indexed path: its column, or json_extract for json1.
    func expression(for spec: IndexSpec) -> String {
        if spec.type == .json1 || spec.columnName == nil { return JSONPathSQL.extract(spec.path) }
        return spec.columnName ?? JSONPathSQL.extract(spec.path)
    }
}

enum JSONPathSQL {
    /// `json_extract(soup, '$.a.b')`, quoting segments that are not plain identifiers.
    static func extract(_ path: String, table: String? = nil) -> String {
        let column = table.map { "\($0).soup" } ?? "soup"
        return "json_extract(\(column), '\(jsonPath(path))')"
    }

    static func jsonPath(_ path: String) -> String {
        var result = "$"
        for segment in path.split(separator: ".", omittingEmptySubsequences: false) {
            let plain = !segment.isEmpty && segment.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
            if plain {
                result += ".\(segment)"
            } else {
                let escaped = segment.replacingOccurrences(of: "\"", with: "\\\"")
                result += ".\"\(escaped)\""
            }
        }
        return result.replacingOccurrences(of: "'", with: "''")
    }
}

/// Soup metadata read from `soup_attrs` and `soup_index_map`, cached until the schema changes.
///
/// Another process may register, alter or drop a soup at any time; any such change bumps SQLite's
/// `schema_version`, which every transaction checks before trusting the cache.
final class SoupCatalog: Sendable {
    private struct Snapshot {
        var schemaVersion: Int
        var soups: [String: SoupInfo]
    }

    private let cache = Mutex<Snapshot?>(nil)

    func soups(_ db: Database) throws -> [String: SoupInfo] {
        let version = try Int.fetchOne(db, sql: "PRAGMA schema_version") ?? 0
        if let snapshot = cache.withLock({ $0 }), snapshot.schemaVersion == version {
            return snapshot.soups
        }
        let soups = try Self.load(db)
        cache.withLock { $0 = Snapshot(schemaVersion: version, soups: soups) }
        return soups
    }

    func soup(_ name: String, _ db: Database) throws -> SoupInfo {
        guard let info = try soups(db)[name] else { throw SmartStoreError.unknownSoup(name) }
        return info
    }

    private static func load(_ db: Database) throws -> [String: SoupInfo] {
        var tables: [String: String] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT id, soupName FROM soup_attrs") {
            let id: Int64 = row["id"]
            let name: String = row["soupName"]
            tables[name] = "TABLE_\(id)"
        }
        var specs: [String: [IndexSpec]] = [:]
        // rowid order is registration order, which fixes each column's position.
        for row in try Row.fetchAll(db, sql: "SELECT soupName, path, columnName, columnType FROM soup_index_map ORDER BY rowid") {
            let soup: String = row["soupName"]
            let typeName: String = row["columnType"]
            guard let type = IndexType(rawValue: typeName) else { continue }
            specs[soup, default: []].append(IndexSpec(path: row["path"], type: type, columnName: row["columnName"]))
        }
        var soups: [String: SoupInfo] = [:]
        for (name, table) in tables {
            soups[name] = SoupInfo(name: name, tableName: table, indexSpecs: specs[name] ?? [])
        }
        return soups
    }
}
