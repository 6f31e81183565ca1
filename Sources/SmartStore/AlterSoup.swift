import ForceJSON
import GRDB

/// The steps of alterSoup, with the SDK's names; `long_operations_status.status` holds the last one done.
public enum AlterSoupStep: String, CaseIterable, Sendable {
    case renameOldSoupTable = "RENAME_OLD_SOUP_TABLE"
    case dropOldIndexes = "DROP_OLD_INDEXES"
    case registerSoupUsingTableName = "REGISTER_SOUP_USING_TABLE_NAME"
    case copyTable = "COPY_TABLE"
    case reIndexSoup = "RE_INDEX_SOUP"
    case dropOldTable = "DROP_OLD_TABLE"

    var next: AlterSoupStep? {
        let all = Self.allCases
        guard let index = all.firstIndex(of: self), index + 1 < all.count else { return nil }
        return all[index + 1]
    }
}

/// Thrown by the test hook that stops an alterSoup after a given step, as a killed process would.
struct AlterSoupInterrupted: Error {}

/// alterSoup as a resumable long operation. Each step commits together with its status row, so a
/// process killed at any point leaves either the previous or the next step recorded, and the next
/// open of the store carries on from there.
struct AlterSoupOperation {
    static let type = "alterSoup"

    let soupName: String
    let tableName: String
    let oldSpecs: [IndexSpec]
    let newSpecs: [IndexSpec]
    let reIndexData: Bool

    private var oldTableName: String { tableName + "_old" }

    var details: JSONObject {
        [
            "soupName": .string(soupName),
            "soupTableName": .string(tableName),
            "oldIndexSpecs": .array(oldSpecs.map(\.json)),
            "newIndexSpecs": .array(newSpecs.map(\.json)),
            "reIndexData": .bool(reIndexData),
        ]
    }

    init(soupName: String, tableName: String, oldSpecs: [IndexSpec], newSpecs: [IndexSpec], reIndexData: Bool) {
        self.soupName = soupName
        self.tableName = tableName
        self.oldSpecs = oldSpecs
        self.newSpecs = SoupSchema.assignColumns(newSpecs, table: tableName)
        self.reIndexData = reIndexData
    }

    init(details text: String) throws {
        let details = try JSONParser.parseObject(text)
        guard let soup = details["soupName"]?.stringValue, let table = details["soupTableName"]?.stringValue,
            let old = details["oldIndexSpecs"]?.arrayValue, let new = details["newIndexSpecs"]?.arrayValue
        else { throw SmartStoreError.invalidDocument("unreadable alterSoup details: \(text)") }
        soupName = soup
        tableName = table
        oldSpecs = try old.map { try IndexSpec(json: $0) }
        newSpecs = try new.map { try IndexSpec(json: $0) }
        reIndexData = details["reIndexData"]?.boolValue ?? false
    }

    /// Runs the remaining steps after `lastDone` (nil: from the start).
    func run(in store: SmartStore, operationId: Int64?, after lastDone: AlterSoupStep?, stopAfter: AlterSoupStep? = nil) throws {
        var operationId = operationId
        var step = lastDone.map(\.next) ?? .renameOldSoupTable
        while let current = step {
            let outcome: (id: Int64?, done: AlterSoupStep?) = try store.pool.write { db in
                // Another process may have advanced the same operation; trust the row, not memory.
                if let id = operationId {
                    guard
                        let status = try String.fetchOne(
                            db, sql: "SELECT status FROM long_operations_status WHERE id = ?", arguments: [id])
                    else { return (id, nil) }
                    let recorded = AlterSoupStep(rawValue: status)
                    if recorded?.next != current { return (id, recorded) }
                }
                try perform(current, db)
                if current == .renameOldSoupTable {
                    let id = try SoupSchema.insertLongOperation(db, type: Self.type, details: details, status: current.rawValue)
                    return (id, current)
                } else if current == .dropOldTable {
                    try db.execute(sql: "DELETE FROM long_operations_status WHERE id = ?", arguments: [operationId])
                } else {
                    try db.execute(
                        sql: "UPDATE long_operations_status SET status = ?, lastModified = ? WHERE id = ?",
                        arguments: [current.rawValue, SmartStore.currentTimeMillis(), operationId])
                }
                return (operationId, current)
            }
            operationId = outcome.id
            guard let done = outcome.done else { return }
            if done == stopAfter { throw AlterSoupInterrupted() }
            step = done.next
        }
    }

    private func perform(_ step: AlterSoupStep, _ db: Database) throws {
        let oldHasFullText = oldSpecs.contains { $0.type == .fullText }
        switch step {
        case .renameOldSoupTable:
            try db.execute(sql: "ALTER TABLE \(tableName) RENAME TO \(oldTableName)")
            if oldHasFullText {
                try db.execute(sql: "ALTER TABLE \(tableName)_fts RENAME TO \(oldTableName)_fts")
            }
        case .dropOldIndexes:
            try SoupSchema.dropIndexes(db, table: oldTableName)
            try db.execute(sql: "DELETE FROM soup_index_map WHERE soupName = ?", arguments: [soupName])
        case .registerSoupUsingTableName:
            try SoupSchema.createSoupTable(db, soup: soupName, table: tableName, specs: newSpecs)
        case .copyTable:
            try copyRows(db)
        case .reIndexSoup:
            guard reIndexData else { return }
            let added = newSpecs.filter { new in !oldSpecs.contains { $0.sameDefinition(as: new) } }
            try SoupReindexer.reIndex(db, table: tableName, specs: newSpecs, paths: added.map(\.path))
        case .dropOldTable:
            try db.execute(sql: "DROP TABLE IF EXISTS \(oldTableName)_fts")
            try db.execute(sql: "DROP TABLE IF EXISTS \(oldTableName)")
        }
    }

    /// Copies documents and every index column whose SQL type did not change (or that was json1, an
    /// expression that can be evaluated now); other new columns stay NULL until reindexed.
    private func copyRows(_ db: Database) throws {
        var targets = ["id", "soup", "created", "lastModified"]
        var sources = targets
        for new in newSpecs {
            guard let newType = new.type.columnSQLType, let column = new.columnName,
                let old = oldSpecs.first(where: { $0.path == new.path })
            else { continue }
            if old.type == .json1 {
                targets.append(column)
                sources.append(JSONPathSQL.extract(new.path))
            } else if old.type.columnSQLType == newType, let oldColumn = old.columnName {
                targets.append(column)
                sources.append(oldColumn)
            }
        }
        try db.execute(
            sql: """
                INSERT INTO \(tableName) (\(targets.joined(separator: ", "))) \
                SELECT \(sources.joined(separator: ", ")) FROM \(oldTableName)
                """)
        try SoupReindexer.rebuildFullText(db, table: tableName, specs: newSpecs)
    }
}

/// Re-projects indexed paths from the stored documents.
enum SoupReindexer {
    static func reIndex(_ db: Database, table: String, specs: [IndexSpec], paths: [String]) throws {
        let targets = specs.filter { paths.contains($0.path) && $0.type != .json1 && $0.columnName != nil }
        guard !targets.isEmpty else { return }
        let assignments = targets.compactMap(\.columnName).map { "\($0) = ?" }.joined(separator: ", ")
        let update = try db.makeStatement(sql: "UPDATE \(table) SET \(assignments) WHERE id = ?")
        let rows = try Row.fetchCursor(db, sql: "SELECT id, soup FROM \(table)")
        var pending: [(Int64, [DatabaseValue])] = []
        while let row = try rows.next() {
            let id: Int64 = row["id"]
            let document = try StoreTransaction.parseDocument(row["soup"])
            let values = targets.map { ColumnValue(projecting: PathProjection.project($0.path, in: document), as: $0.type).databaseValue }
            pending.append((id, values))
        }
        for (id, values) in pending {
            try update.execute(arguments: StatementArguments(values + [id.databaseValue]))
        }
        if targets.contains(where: { $0.type == .fullText }) {
            try rebuildFullText(db, table: table, specs: specs)
        }
    }

    static func rebuildFullText(_ db: Database, table: String, specs: [IndexSpec]) throws {
        let columns = specs.filter { $0.type == .fullText }.compactMap(\.columnName)
        guard !columns.isEmpty else { return }
        let list = columns.joined(separator: ", ")
        try db.execute(sql: "DELETE FROM \(table)_fts")
        let indexed = columns.map { "smartstore_fts_text(\($0))" }.joined(separator: ", ")
        try db.execute(sql: "INSERT INTO \(table)_fts (rowid, \(list)) SELECT id, \(indexed) FROM \(table)")
    }
}

extension SmartStore {
    /// Changes a soup's index specs, keeping its entries; with `reIndexData`, new indexes are filled
    /// from the documents. Resumable: see `AlterSoupOperation`.
    public func alterSoup(_ name: String, indexSpecs: [IndexSpec], reIndexData: Bool) throws {
        try alterSoup(name, indexSpecs: indexSpecs, reIndexData: reIndexData, stopAfter: nil)
    }

    func alterSoup(_ name: String, indexSpecs: [IndexSpec], reIndexData: Bool, stopAfter: AlterSoupStep?) throws {
        try SoupSchema.validate(indexSpecs, soup: name)
        let info = try soupInfo(name)
        let operation = AlterSoupOperation(
            soupName: name, tableName: info.tableName, oldSpecs: info.indexSpecs, newSpecs: indexSpecs,
            reIndexData: reIndexData)
        try operation.run(in: self, operationId: nil, after: nil, stopAfter: stopAfter)
    }

    /// Re-projects the listed indexed paths of every entry (json1 paths need nothing).
    public func reIndexSoup(_ name: String, paths: [String]) throws {
        try write { transaction in
            let info = try transaction.soup(name)
            try SoupReindexer.reIndex(transaction.db, table: info.tableName, specs: info.indexSpecs, paths: paths)
        }
    }

    /// Finishes every long operation a previous process left unfinished.
    func resumeLongOperations() throws {
        try finishAbandonedBulkLoads()
        let pending = try pool.read { db in
            try Row.fetchAll(
                db, sql: "SELECT id, details, status FROM long_operations_status WHERE type = ? ORDER BY id",
                arguments: [AlterSoupOperation.type])
        }
        for row in pending {
            let operation = try AlterSoupOperation(details: row["details"])
            let status: String = row["status"]
            try operation.run(in: self, operationId: row["id"], after: AlterSoupStep(rawValue: status))
        }
    }
}
