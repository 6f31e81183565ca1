import GRDB
import SOQLSyntax
import SalesforceTime

/// Checks a parsed query against the schema and turns it into SQL.
struct SOQLCompiler {
    let schema: OrgSchema
    let includeDeleted: Bool
    /// With private sharing, the user whose records alone are visible (nil: all records).
    let ownerId: String?
    let policy: QueryPolicy
    /// The start of the current day (UTC), for TODAY and LAST_N_DAYS.
    let todayStartDays: Int64

    var joins: [(key: String, alias: String, sql: String, object: ObjectDefinition)] = []
    var columns: [String] = []
    var arguments: [DatabaseValue] = []
    var joinArguments: [DatabaseValue] = []
    /// Text columns the WHERE compares for equality, for the index advisor (`FilterIndexes`).
    var filteredColumns: [FilteredColumn] = []
    /// True while compiling HAVING, the only place aggregate comparisons may appear.
    var compilingHaving = false
    /// GROUP BY fields by canonical key, so HAVING can compare them too.
    var groupKeys: [String: String] = [:]

    init(schema: OrgSchema, includeDeleted: Bool, now: Int64, ownerId: String? = nil, policy: QueryPolicy = QueryPolicy()) {
        self.schema = schema
        self.includeDeleted = includeDeleted
        self.ownerId = ownerId
        self.policy = policy
        self.todayStartDays = SalesforceDate.floorDivide(now, 86_400)
    }

    static func compile(
        _ query: SOQLQuery, schema: OrgSchema, includeDeleted: Bool, now: Int64, ownerId: String? = nil,
        policy: QueryPolicy = QueryPolicy()
    ) throws(SOQLError) -> CompiledSOQL {
        var compiler = SOQLCompiler(schema: schema, includeDeleted: includeDeleted, now: now, ownerId: ownerId, policy: policy)
        guard let object = schema.object(named: query.objectName) else { throw unsupportedType(query) }
        return try compiler.compile(query, object: object)
    }

    static func unsupportedType(_ query: SOQLQuery) -> SOQLError {
        SOQLError(
            errorCode: "INVALID_TYPE",
            detail:
                "sObject type '\(query.objectName)' is not supported. If you are attempting to use a custom object, be sure to append the '__c' after the entity name. Please reference your WSDL or the describe call for the appropriate names.",
            offset: query.objectOffset)
    }

    /// Compiles `(SELECT … FROM Contacts)` of a query on `parent`.
    func compileChild(_ subquery: SOQLQuery, parent: ObjectDefinition) throws(SOQLError) -> (String, CompiledChildQuery) {
        guard let relationship = schema.childRelationships(of: parent.name).first(where: { $0.relationshipName.lowercased() == subquery.objectName.lowercased() }),
            let child = schema.object(named: relationship.childObject), let field = child.field(named: relationship.field)
        else {
            throw SOQLError(
                errorCode: "INVALID_TYPE",
                detail:
                    "Didn't understand relationship '\(subquery.objectName)' in FROM part of query call. If you are attempting to use a custom relationship, be sure to append the '__r' after the custom relationship name. Please reference your WSDL or the describe call for the appropriate names.",
                offset: subquery.objectOffset)
        }
        let aggregates = subquery.items.contains { if case .aggregate = $0 { return true } else { return false } }
        guard !subquery.isCount, subquery.offset == nil, !aggregates, subquery.groupBy.isEmpty else {
            throw SOQLError(errorCode: "MALFORMED_QUERY", detail: "aggregates, GROUP BY and OFFSET are not supported in child subqueries", offset: subquery.objectOffset)
        }
        var compiler = SOQLCompiler(schema: schema, includeDeleted: includeDeleted, now: todayStartDays * 86_400, ownerId: ownerId, policy: policy)
        return (relationship.relationshipName, CompiledChildQuery(query: try compiler.compile(subquery, object: child), foreignKeyColumn: field.columnName))
    }

    /// Replaces FIELDS(ALL|STANDARD|CUSTOM) with the fields it stands for (skipping ones already selected).
    func expandFieldSets(_ query: SOQLQuery, object: ObjectDefinition) throws(SOQLError) -> SOQLQuery {
        var query = query
        var expanded: [SOQLSelectItem] = []
        let named = Set(
            query.items.compactMap { item -> String? in
                if case let .field(path) = item, path.components.count == 1 { return path.components[0].lowercased() }
                return nil
            })
        for item in query.items {
            guard case let .fieldSet(set, offset) = item else {
                expanded.append(item)
                continue
            }
            if set != "STANDARD", (query.limit ?? Int.max) > 200 {
                throw SOQLError(errorCode: "MALFORMED_QUERY", detail: "The SOQL FIELDS function must have a LIMIT of at most 200", offset: offset)
            }
            for field in policy.access.readableFields(of: object)
            where (set == "ALL" || (set == "CUSTOM") == field.custom) && !named.contains(field.name.lowercased()) {
                expanded.append(.field(SOQLFieldPath(components: [field.name], offset: offset)))
            }
        }
        query.items = expanded
        return query
    }

    mutating func compile(_ query: SOQLQuery, object: ObjectDefinition) throws(SOQLError) -> CompiledSOQL {
        let query = try expandFieldSets(query, object: object)
        let hasAggregates = query.items.contains { if case .aggregate = $0 { return true } else { return false } }
        if hasAggregates || !query.groupBy.isEmpty { return try compileAggregate(query, object: object) }
        var root = SOQLOutputNode(object: object, idColumn: nil)
        var seen = Set<String>()
        for item in query.items {
            guard case let .field(path) = item else {
                if case let .subquery(subquery) = item {
                    let (name, child) = try compileChild(subquery, parent: object)
                    guard seen.insert(name.lowercased()).inserted else {
                        throw SOQLError(errorCode: "MALFORMED_QUERY", detail: "duplicate field selected: \(name)", offset: subquery.objectOffset)
                    }
                    root.entries.append(.children(relationshipName: name, query: child))
                }
                continue
            }
            if let function = path.dateFunction { throw Self.dateFunctionNeedsGrouping(function, offset: path.offset) }
            let (alias, field, chain) = try resolve(path, from: object)
            let key = (chain.map(\.relationshipName) + [field.name]).joined(separator: ".").lowercased()
            guard seen.insert(key).inserted else {
                throw SOQLError(errorCode: "MALFORMED_QUERY", detail: "duplicate field selected: \(path.text)", offset: path.offset)
            }
            columns.append("\(alias).\(quoted(field.columnName))")
            let column = columns.count - 1
            if chain.isEmpty && field.type == .id { root.idColumn = column }
            insert(field: field, column: column, chain: chain[...], into: &root)
        }
        let whereParts = try wherePieces(query, object: object)
        var orderParts: [String] = []
        for ordering in query.ordering {
            guard ordering.aggregate == nil else {
                throw SOQLError(errorCode: "MALFORMED_QUERY", detail: "ORDER BY an aggregate needs GROUP BY or aggregate fields", offset: ordering.field.offset)
            }
            if let function = ordering.field.dateFunction { throw Self.dateFunctionNeedsGrouping(function, offset: ordering.field.offset) }
            let (alias, field, _) = try resolve(ordering.field, from: object)
            try refuseLongText(field, .sorting, offset: ordering.field.offset)
            var part = "\(alias).\(quoted(field.columnName)) \(ordering.descending ? "DESC" : "ASC")"
            if let nullsFirst = ordering.nullsFirst { part += nullsFirst ? " NULLS FIRST" : " NULLS LAST" }
            orderParts.append(part)
        }
        orderParts.append("t.\"Id\" ASC")  // a stable order, so pages never overlap or skip
        let from = "FROM \(quoted(object.tableName)) t" + joins.map { " " + $0.sql }.joined()
        let whereSQL = whereParts.isEmpty ? "" : " WHERE " + whereParts.map { "(\($0))" }.joined(separator: " AND ")
        let whereArguments = arguments
        var idsSQL = "SELECT t.\"Id\" \(from)\(whereSQL) ORDER BY \(orderParts.joined(separator: ", "))"
        var idsArguments = joinArguments + arguments
        if query.limit != nil || query.offset != nil {
            idsSQL += " LIMIT ? OFFSET ?"
            idsArguments.append(Int64(query.limit ?? -1).databaseValue)
            idsArguments.append(Int64(query.offset ?? 0).databaseValue)
        }
        let selected = columns.isEmpty ? "t.\"Id\"" : columns.joined(separator: ", ")
        return CompiledSOQL(
            object: object, isCount: query.isCount, idsSQL: idsSQL, idsArguments: idsArguments,
            rowsSQLPrefix: "SELECT t.\"Id\", \(selected) \(from) WHERE t.\"Id\" IN (", root: root,
            selectedColumnsSQL: selected, fromSQL: from, fromArguments: joinArguments, whereSQL: whereSQL, whereArguments: whereArguments,
            orderSQL: orderParts.joined(separator: ", "), limit: query.limit, filteredColumns: filteredColumns)
    }

    /// `WHERE` parts common to every query on `object`: the recycle bin and sharing, then the condition.
    mutating func wherePieces(_ query: SOQLQuery, object: ObjectDefinition) throws(SOQLError) -> [String] {
        var whereParts = includeDeleted ? [] : ["t.\"IsDeleted\" = 0"]
        if let ownerId, object.hasOwner {
            let sharing = OrgStore.ownerCondition(object, alias: "t", ownerId: ownerId, schema: schema)
            whereParts.append(String(sharing.sql.dropFirst(" AND ".count)))
            arguments += sharing.arguments
        }
        if let condition = query.condition {
            whereParts.append(try compileCondition(condition, object: object))
        }
        return whereParts
    }

    /// The canonical name of a resolved path (`account.name`), to match SELECT fields with GROUP BY.
    static func canonicalKey(_ chain: [(relationshipName: String, object: ObjectDefinition, alias: String)], _ field: FieldDefinition) -> String {
        (chain.map(\.relationshipName) + [field.name]).joined(separator: ".").lowercased()
    }

    /// The inner SELECT of a semi-join: one id or reference field of another (or the same) object,
    /// with that object's recycle-bin and sharing rules, never yielding NULL (so NOT IN works).
    func semiJoinSQL(_ subquery: SOQLQuery, comparedWith outer: FieldDefinition) throws(SOQLError) -> (sql: String, arguments: [DatabaseValue]) {
        guard outer.type == .id || outer.type == .reference else {
            throw SOQLError(errorCode: "MALFORMED_QUERY", detail: "semi-join subqueries compare only Id and reference fields, not \(outer.name)", offset: subquery.objectOffset)
        }
        guard let object = schema.object(named: subquery.objectName) else { throw Self.unsupportedType(subquery) }
        guard subquery.items.count == 1, case let .field(path) = subquery.items[0], path.components.count == 1, !subquery.isCount,
            subquery.groupBy.isEmpty, subquery.offset == nil
        else {
            throw SOQLError(errorCode: "MALFORMED_QUERY", detail: "a semi-join subquery selects exactly one Id or reference field of its object", offset: subquery.objectOffset)
        }
        guard let field = object.field(named: path.components[0]), field.type == .id || field.type == .reference else {
            throw SOQLError(errorCode: "INVALID_FIELD", detail: "a semi-join subquery must select an Id or reference field, not \(path.text)", offset: path.offset)
        }
        var compiler = SOQLCompiler(schema: schema, includeDeleted: false, now: todayStartDays * 86_400, ownerId: ownerId, policy: policy)
        let compiled = try compiler.compile(subquery, object: object)
        let notNull = "t.\(quoted(field.columnName)) IS NOT NULL"
        let whereSQL = compiled.whereSQL.isEmpty ? " WHERE \(notNull)" : "\(compiled.whereSQL) AND \(notNull)"
        var sql = "SELECT t.\(quoted(field.columnName)) \(compiled.fromSQL)\(whereSQL)"
        var arguments = compiled.fromArguments + compiled.whereArguments
        if let limit = subquery.limit {
            sql += " LIMIT ?"
            arguments.append(Int64(limit).databaseValue)
        }
        return (sql, arguments)
    }

    /// Places a selected field in the output tree, adding parent nodes (and their Id columns) as needed.
    mutating func insert(
        field: FieldDefinition, column: Int, chain: ArraySlice<(relationshipName: String, object: ObjectDefinition, alias: String)>,
        into node: inout SOQLOutputNode
    ) {
        guard let link = chain.first else {
            node.entries.append(.field(field, column: column))
            return
        }
        if let position = node.entries.firstIndex(where: { entry in
            if case let .parent(name, _) = entry { return name == link.relationshipName }
            return false
        }), case .parent(let name, var child) = node.entries[position] {
            insert(field: field, column: column, chain: chain.dropFirst(), into: &child)
            node.entries[position] = .parent(relationshipName: name, node: child)
        } else {
            columns.append("\(link.alias).\"Id\"")
            var child = SOQLOutputNode(object: link.object, idColumn: columns.count - 1)
            insert(field: field, column: column, chain: chain.dropFirst(), into: &child)
            node.entries.append(.parent(relationshipName: link.relationshipName, node: child))
        }
    }

    /// The SQL value of a field path, through its date function when it has one; the field is then
    /// what the function returns (an integer, or DAY_ONLY's date).
    mutating func valueExpression(_ path: SOQLFieldPath, from object: ObjectDefinition) throws(SOQLError)
        -> (sql: String, field: FieldDefinition, chain: [(relationshipName: String, object: ObjectDefinition, alias: String)])
    {
        let (alias, field, chain) = try resolve(path, from: object)
        let column = "\(alias).\(quoted(field.columnName))"
        guard let function = path.dateFunction else { return (column, field, chain) }
        guard field.type == .datetime || (field.type == .date && !function.needsTime) else {
            let accepted = function.needsTime ? "a dateTime field" : "a date or dateTime field"
            throw SOQLError(errorCode: "INVALID_FIELD", detail: "\(function.rawValue)() needs \(accepted), and \(field.name) is \(field.type.rawValue)", offset: path.offset)
        }
        // dateTimes are stored as seconds since 1970 (UTC), dates as YYYY-MM-DD text.
        let modifier = field.type == .datetime ? ", 'unixepoch'" : ""
        func part(_ format: String) -> String { "CAST(strftime('\(format)', \(column)\(modifier)) AS INTEGER)" }
        let sql: String
        switch function {
        case .calendarYear, .fiscalYear: sql = part("%Y")
        case .calendarMonth, .fiscalMonth: sql = part("%m")
        case .calendarQuarter, .fiscalQuarter: sql = "((\(part("%m")) - 1) / 3 + 1)"
        case .dayInMonth: sql = part("%d")
        case .dayInWeek: sql = "(\(part("%w")) + 1)"  // 1 is Sunday
        case .dayInYear: sql = part("%j")
        case .weekInMonth: sql = "((\(part("%d")) - 1) / 7 + 1)"  // days 1-7 are week 1
        case .weekInYear: sql = "((\(part("%j")) - 1) / 7 + 1)"  // January 1-7 is week 1
        case .hourInDay: sql = part("%H")
        case .dayOnly: sql = "date(\(column)\(modifier))"
        }
        // Named with its field, so CALENDAR_YEAR(CreatedDate) and CALENDAR_YEAR(CloseDate) group apart.
        let name = "\(function.rawValue)(\(field.name))"
        let result = FieldDefinition(name: name, label: name, type: function == .dayOnly ? .date : .int)
        return (sql, result, chain)
    }

    static func dateFunctionNeedsGrouping(_ function: SOQLDateFunction, offset: Int) -> SOQLError {
        SOQLError(errorCode: "MALFORMED_QUERY", detail: "\(function.rawValue)() in SELECT or ORDER BY needs GROUP BY \(function.rawValue)(…)", offset: offset)
    }

    /// Resolves `Account.Owner.Name` to the join alias and field, adding LEFT JOINs for each hop.
    mutating func resolve(_ path: SOQLFieldPath, from object: ObjectDefinition) throws(SOQLError)
        -> (alias: String, field: FieldDefinition, chain: [(relationshipName: String, object: ObjectDefinition, alias: String)])
    {
        var components = path.components
        // A path may start with the object's own name: `Contact.LastName`.
        if components.count > 1, components[0].lowercased() == object.name.lowercased(), object.relationship(named: components[0]) == nil {
            components.removeFirst()
        }
        var current = object
        var alias = "t"
        var key = ""
        var chain: [(relationshipName: String, object: ObjectDefinition, alias: String)] = []
        for relationshipName in components.dropLast() {
            guard let reference = current.relationship(named: relationshipName), policy.access.canRead(reference, in: current),
                let targetName = reference.referenceTo,
                let target = schema.object(named: targetName), let canonicalName = reference.relationshipName
            else {
                throw SOQLError(
                    errorCode: "INVALID_FIELD",
                    detail:
                        "Didn't understand relationship '\(relationshipName)' in field path. If you are attempting to use a custom relationship, be sure to append the '__r' after the custom relationship name. Please reference your WSDL or the describe call for the appropriate names.",
                    offset: path.offset)
            }
            key += "." + canonicalName.lowercased()
            if let existing = joins.first(where: { $0.key == key }) {
                alias = existing.alias
            } else {
                let joinAlias = "j\(joins.count + 1)"
                // A parent the user may not see reads as no parent at all.
                let sharing = OrgStore.ownerCondition(target, alias: joinAlias, ownerId: ownerId, schema: schema)
                joins.append((key, joinAlias, "LEFT JOIN \(quoted(target.tableName)) \(joinAlias) ON \(joinAlias).\"Id\" = \(alias).\(quoted(reference.columnName))\(sharing.sql)", target))
                joinArguments += sharing.arguments
                alias = joinAlias
            }
            chain.append((canonicalName, target, alias))
            current = target
        }
        guard let last = components.last, let field = current.field(named: last), policy.access.canRead(field, in: current) else {
            throw SOQLError(
                errorCode: "INVALID_FIELD",
                detail:
                    "No such column '\(components.last ?? path.text)' on entity '\(current.name)'. If you are attempting to use a custom field, be sure to append the '__c' after the custom field name. Please reference your WSDL or the describe call for the appropriate names.",
                offset: path.offset)
        }
        return (alias, field, chain)
    }

}

extension SOQLCompiler {
    enum LongTextUse: String { case filtering = "filtered", sorting = "sorted", grouping = "grouped" }

    /// A long text area where a real org refuses one: "field 'Description' can not be filtered in
    /// a query call" (INVALID_FIELD, as recorded answers carry it); sorted and grouped are
    /// MALFORMED_QUERY, as a reproduction against a live org reported (no recording found).
    func refuseLongText(_ field: FieldDefinition, _ use: LongTextUse, offset: Int) throws(SOQLError) {
        guard policy.refusesLongText, field.isLongText else { return }
        throw SOQLError(
            errorCode: use == .filtering ? "INVALID_FIELD" : "MALFORMED_QUERY",
            detail: "field '\(field.name)' can not be \(use.rawValue) in a query call", offset: offset)
    }
}

extension SOQLError {
    /// The message as Salesforce words it: the query line, a caret under the culprit, the
    /// position, then the detail.
    func message(for query: String) -> String {
        let bytes = Array(query.utf8)
        let clamped = min(max(offset, 0), bytes.count)
        var lineStart = 0
        var row = 1
        for index in 0..<clamped where bytes[index] == 10 {
            row += 1
            lineStart = index + 1
        }
        var lineEnd = lineStart
        while lineEnd < bytes.count, bytes[lineEnd] != 10 { lineEnd += 1 }
        let line = String(decoding: bytes[lineStart..<lineEnd], as: UTF8.self)
        let column = String(decoding: bytes[lineStart..<clamped], as: UTF8.self).count + 1
        return "\n\(line)\n\(String(repeating: " ", count: column - 1))^\nERROR at Row:\(row):Column:\(column)\n\(detail)"
    }
}
