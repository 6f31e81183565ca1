import ForceJSON
import GRDB
import SOQLSyntax
import SalesforceTime

/// Runs SOQL: parses, compiles, takes a snapshot of the matching ids in query order, and serves
/// them page by page through query locators (`nextRecordsUrl`).
public actor QueryEngine {
    struct Cursor {
        var compiled: CompiledSOQL
        var ids: [String]
        var batchSize: Int
        var userId: String
        var lastUsed: Int64
    }

    let store: OrgStore
    private var cursors: [String: Cursor] = [:]
    private var nextLocatorNumber: Int64 = 1
    /// Locators unused this long are forgotten, as Salesforce's expire.
    static let cursorLifetime: Int64 = 15 * 60
    static let maximumCursors = 2000
    public static let defaultBatchSize = 2000
    public static let minimumBatchSize = 200

    public init(store: OrgStore) { self.store = store }

    /// One page of a query's results, as the REST API returns it.
    public struct Page: Sendable {
        public var totalSize: Int
        public var done: Bool
        public var nextLocator: String?
        public var records: [JSONValue]
    }

    /// Runs a query and returns its first page. Errors come back as Salesforce's 400 bodies.
    /// `visibleTo`: with private sharing, the user whose records alone the query sees.
    /// `policy`: the asking user's field-level security and the org's query rules.
    func query(
        _ text: String, includeDeleted: Bool, batchSize: Int, userId: String, visibleTo ownerId: String? = nil,
        policy: QueryPolicy, apiVersion: String
    ) async throws -> Page {
        let compiled: CompiledSOQL
        do {
            let parsed = try SOQLParser.parse(text)
            compiled = try SOQLCompiler.compile(
                parsed, schema: store.schema, includeDeleted: includeDeleted, now: OrgStore.now(), ownerId: ownerId,
                policy: policy)
        } catch {
            throw APIError(status: 400, errorCode: error.errorCode, message: error.message(for: text))
        }
        try await store.indexFilteredColumns(compiled.filteredColumns)
        if let aggregate = compiled.aggregate {
            let rows = try await store.rows(sql: compiled.idsSQL, arguments: compiled.idsArguments)
            let records = rows.map { Self.renderAggregate($0, aggregate) }
            return Page(totalSize: records.count, done: true, nextLocator: nil, records: records)
        }
        let ids = try await store.rows(sql: compiled.idsSQL, arguments: compiled.idsArguments).compactMap { $0.first.flatMap(String.fromDatabaseValue) }
        if compiled.isCount {
            return Page(totalSize: ids.count, done: true, nextLocator: nil, records: [])
        }
        let size = min(max(batchSize, Self.minimumBatchSize), Self.defaultBatchSize)
        var locator: String?
        if ids.count > size {
            forgetStaleCursors()
            let number = nextLocatorNumber
            nextLocatorNumber += 1
            let locatorId = SalesforceId.make(keyPrefix: "01g", number: number)
            cursors[locatorId] = Cursor(compiled: compiled, ids: ids, batchSize: size, userId: userId, lastUsed: OrgStore.now())
            locator = "\(locatorId)-\(size)"
        }
        let records = try await render(compiled, ids: Array(ids.prefix(size)), apiVersion: apiVersion)
        return Page(totalSize: ids.count, done: locator == nil, nextLocator: locator, records: records)
    }

    /// Runs a query as an administrator sees the org (no field-level security, no query rules):
    /// for localorg's own commands and tests.
    public func query(
        _ text: String, includeDeleted: Bool, batchSize: Int, userId: String, visibleTo ownerId: String? = nil,
        apiVersion: String
    ) async throws -> Page {
        try await query(
            text, includeDeleted: includeDeleted, batchSize: batchSize, userId: userId, visibleTo: ownerId,
            policy: QueryPolicy(), apiVersion: apiVersion)
    }

    /// The page a `nextRecordsUrl` locator (`01g…-2000`) points at.
    public func more(locator: String, userId: String, apiVersion: String) async throws -> Page {
        let invalid = APIError(status: 400, errorCode: "INVALID_QUERY_LOCATOR", message: "invalid query locator")
        let parts = locator.split(separator: "-")
        guard parts.count == 2, let start = Int(parts[1]), start >= 0 else { throw invalid }
        let locatorId = String(parts[0])
        guard var cursor = cursors[locatorId], cursor.userId == userId, start <= cursor.ids.count else { throw invalid }
        cursor.lastUsed = OrgStore.now()
        cursors[locatorId] = cursor
        let end = min(start + cursor.batchSize, cursor.ids.count)
        let done = end >= cursor.ids.count
        if done { cursors[locatorId] = nil }
        let records = try await render(cursor.compiled, ids: Array(cursor.ids[start..<end]), apiVersion: apiVersion)
        return Page(totalSize: cursor.ids.count, done: done, nextLocator: done ? nil : "\(locatorId)-\(end)", records: records)
    }

    private func forgetStaleCursors() {
        let now = OrgStore.now()
        cursors = cursors.filter { now - $0.value.lastUsed < Self.cursorLifetime }
        while cursors.count >= Self.maximumCursors, let oldest = cursors.min(by: { $0.value.lastUsed < $1.value.lastUsed }) {
            cursors[oldest.key] = nil
        }
    }

    /// Fetches the selected columns for `ids` and renders them in the ids' order.
    func render(_ compiled: CompiledSOQL, ids: [String], apiVersion: String) async throws -> [JSONValue] {
        guard !ids.isEmpty else { return [] }
        var rowsById: [String: [DatabaseValue]] = [:]
        // SQLite allows 32766 parameters; pages are at most 2000 ids.
        let sql = compiled.rowsSQLPrefix + Array(repeating: "?", count: ids.count).joined(separator: ", ") + ")"
        for row in try await store.rows(sql: sql, arguments: compiled.fromArguments + ids.map(\.databaseValue)) {
            if let id = row.first.flatMap(String.fromDatabaseValue) { rowsById[id] = row }
        }
        // Child subqueries: one query per relationship for the whole page, grouped by parent.
        var childrenByRelationship: [String: [String: [JSONValue]]] = [:]
        for entry in compiled.root.entries {
            guard case let .children(name, child) = entry else { continue }
            var grouped: [String: [JSONValue]] = [:]
            let rows = try await store.rows(
                sql: child.sql(parentCount: ids.count),
                arguments: child.query.fromArguments + child.query.whereArguments + ids.map(\.databaseValue))
            for row in rows {
                guard let parentId = String.fromDatabaseValue(row[0]), let childId = String.fromDatabaseValue(row[1]) else { continue }
                if let limit = child.query.limit, grouped[parentId, default: []].count >= limit { continue }
                grouped[parentId, default: []].append(
                    Self.renderNode(
                        child.query.root, row: Array(row.dropFirst(2)), rootId: childId,
                        apiVersion: apiVersion))
            }
            childrenByRelationship[name] = grouped
        }
        return ids.compactMap { id in
            guard let row = rowsById[id] else { return nil }
            // Column 0 is the root Id; selected columns start at 1.
            return Self.renderNode(
                compiled.root, row: Array(row.dropFirst()), rootId: id, apiVersion: apiVersion,
                children: childrenByRelationship.mapValues { $0[id] ?? [] })
        }
    }

    /// One AggregateResult record: group fields by field name, aggregates by alias or `exprN`.
    static func renderAggregate(_ row: [DatabaseValue], _ aggregate: CompiledAggregate) -> JSONValue {
        var object: JSONObject = ["attributes": ["type": "AggregateResult"]]
        for (column, output) in aggregate.outputs.enumerated() {
            let value = row[column]
            switch output {
            case let .groupField(name, field):
                object[name] = RecordRenderer.json(value, for: field)
            case let .aggregate(name, function, field):
                object[name] = aggregateJSON(value, function: function, field: field)
            }
        }
        return .object(object)
    }

    /// The JSON of one aggregate column. Kept out of `renderAggregate` and switching on the
    /// storage directly: the Swift 6.3 optimizer crashed (an ownership verifier failure) on the
    /// inlined `fromDatabaseValue` calls in a release build.
    @inline(never)
    static func aggregateJSON(_ value: DatabaseValue, function: String, field: FieldDefinition) -> JSONValue {
        let storage = value.storage
        switch function {
        case "COUNT", "COUNT_DISTINCT":
            if case let .int64(count) = storage { return .int(count) }
            return .int(0)
        case "AVG", "SUM":
            switch storage {
            case let .int64(number): return function == "SUM" && field.type == .int ? .int(number) : .double(Double(number))
            case let .double(number):
                if function == "SUM", field.type == .int, let whole = Int64(exactly: number) { return .int(whole) }
                return .double(number)
            default: return .null
            }
        default:
            return RecordRenderer.json(value, for: field)
        }
    }

    /// Renders one record; `children` holds, per child relationship, this record's child records.
    static func renderNode(
        _ node: SOQLOutputNode, row: [DatabaseValue], rootId: String?, apiVersion: String,
        children: [String: [JSONValue]] = [:]
    ) -> JSONValue {
        let id = rootId ?? node.idColumn.flatMap { String.fromDatabaseValue(row[$0]) }
        guard let id else { return .null }
        var object: JSONObject = ["attributes": RecordRenderer.attributes(type: node.object.name, id: id, apiVersion: apiVersion)]
        for entry in node.entries {
            switch entry {
            case let .field(field, column):
                object[field.name] = RecordRenderer.json(row[column], for: field)
            case let .parent(relationshipName, child):
                object[relationshipName] = renderNode(child, row: row, rootId: nil, apiVersion: apiVersion)
            case let .children(relationshipName, _):
                let records = children[relationshipName] ?? []
                object[relationshipName] =
                    records.isEmpty
                    ? .null
                    : ["totalSize": .int(Int64(records.count)), "done": true, "records": .array(records)]
            }
        }
        return .object(object)
    }
}

/// Stored values → Salesforce's JSON.
enum RecordRenderer {
    static func attributes(type: String, id: String, apiVersion: String) -> JSONValue {
        ["type": .string(type), "url": .string("/services/data/v\(apiVersion)/sobjects/\(type)/\(id)")]
    }

    static func json(_ value: DatabaseValue, for field: FieldDefinition) -> JSONValue {
        if value.isNull { return .null }
        switch field.type {
        case .boolean: return .bool((Int64.fromDatabaseValue(value) ?? 0) != 0)
        case .int: return Int64.fromDatabaseValue(value).map(JSONValue.int) ?? .null
        case .double, .currency, .percent: return Double.fromDatabaseValue(value).map(JSONValue.double) ?? .null
        case .datetime: return Int64.fromDatabaseValue(value).map { .string(SalesforceDate.formatDateTime($0)) } ?? .null
        default: return String.fromDatabaseValue(value).map(JSONValue.string) ?? .null
        }
    }

    /// A whole record (every field, or the listed ones) as a record GET returns it.
    static func record(_ stored: StoredRecord, object: ObjectDefinition, fields: [FieldDefinition]? = nil, apiVersion: String) -> JSONValue {
        var json: JSONObject = ["attributes": attributes(type: object.name, id: stored.id, apiVersion: apiVersion)]
        for field in fields ?? object.fields { json[field.name] = self.json(stored.values[field.name] ?? .null, for: field) }
        return .object(json)
    }
}
