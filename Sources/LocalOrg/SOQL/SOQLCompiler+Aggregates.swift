import GRDB
import SOQLSyntax
import SalesforceTime

/// Aggregate queries: COUNT, SUM and the rest, GROUP BY and HAVING.
extension SOQLCompiler {
    /// The SQL of an aggregate function call, after checking the field suits it.
    mutating func aggregateExpression(_ aggregate: SOQLAggregate, object: ObjectDefinition) throws(SOQLError) -> (String, FieldDefinition) {
        let (alias, field, _) = try resolve(aggregate.field, from: object)
        if policy.refusesLongText, field.isLongText {
            throw SOQLError(errorCode: "MALFORMED_QUERY", detail: "field \(field.name) does not support aggregate operator \(aggregate.function)", offset: aggregate.offset)
        }
        let column = "\(alias).\(quoted(field.columnName))"
        let numeric = field.type.isNumber
        switch aggregate.function {
        case "COUNT": return ("COUNT(\(column))", field)
        case "COUNT_DISTINCT": return ("COUNT(DISTINCT \(column))", field)
        case "SUM", "AVG":
            guard numeric else {
                throw SOQLError(errorCode: "INVALID_FIELD", detail: "field \(field.name) does not support aggregate operator \(aggregate.function)", offset: aggregate.offset)
            }
            return ("\(aggregate.function)(\(column))", field)
        default:
            guard field.type != .boolean, field.type != .textarea else {
                throw SOQLError(errorCode: "INVALID_FIELD", detail: "field \(field.name) does not support aggregate operator \(aggregate.function)", offset: aggregate.offset)
            }
            return ("\(aggregate.function)(\(column))", field)
        }
    }

    /// GROUP BY and aggregate functions: one AggregateResult row per group (or one in all).
    mutating func compileAggregate(_ query: SOQLQuery, object: ObjectDefinition) throws(SOQLError) -> CompiledSOQL {
        guard !query.isCount else {
            throw SOQLError(errorCode: "MALFORMED_QUERY", detail: "COUNT() cannot be combined with GROUP BY", offset: query.objectOffset)
        }
        var groupExpressions: [String] = []
        for path in query.groupBy {
            let (expression, field, chain) = try valueExpression(path, from: object)
            try refuseLongText(field, .grouping, offset: path.offset)
            groupKeys[Self.canonicalKey(chain, field)] = expression
            groupExpressions.append(expression)
        }
        var selected: [String] = []
        var outputs: [CompiledAggregate.Output] = []
        var unnamed = 0
        for item in query.items {
            switch item {
            case let .field(path):
                let (_, field, chain) = try valueExpression(path, from: object)
                guard let expression = groupKeys[Self.canonicalKey(chain, field)] else {
                    throw SOQLError(errorCode: "MALFORMED_QUERY", detail: "Field must be grouped or aggregated: \(path.text)", offset: path.offset)
                }
                selected.append(expression)
                if path.dateFunction != nil {
                    // A date function's column is named like an aggregate's: its alias, else exprN.
                    outputs.append(.groupField(name: path.alias ?? "expr\(unnamed)", field))
                    if path.alias == nil { unnamed += 1 }
                } else {
                    outputs.append(.groupField(name: field.name, field))
                }
            case let .aggregate(aggregate):
                let (expression, field) = try aggregateExpression(aggregate, object: object)
                selected.append(expression)
                outputs.append(.aggregate(name: aggregate.alias ?? "expr\(unnamed)", function: aggregate.function, field))
                if aggregate.alias == nil { unnamed += 1 }
            case let .subquery(subquery):
                throw SOQLError(errorCode: "MALFORMED_QUERY", detail: "child subqueries cannot be combined with aggregate functions", offset: subquery.objectOffset)
            case let .fieldSet(_, offset):
                throw SOQLError(errorCode: "MALFORMED_QUERY", detail: "FIELDS() cannot be combined with aggregate functions", offset: offset)
            }
        }
        let whereParts = try wherePieces(query, object: object)
        var havingSQL = ""
        if let having = query.having {
            compilingHaving = true
            havingSQL = " HAVING " + (try compileCondition(having, object: object))
            compilingHaving = false
        }
        var orderParts: [String] = []
        for ordering in query.ordering {
            var expression: String
            if let aggregate = ordering.aggregate {
                expression = try aggregateExpression(aggregate, object: object).0
            } else {
                let (_, field, chain) = try valueExpression(ordering.field, from: object)
                guard let grouped = groupKeys[Self.canonicalKey(chain, field)] else {
                    throw SOQLError(errorCode: "MALFORMED_QUERY", detail: "Ordered field must be grouped or aggregated: \(ordering.field.text)", offset: ordering.field.offset)
                }
                expression = grouped
            }
            expression += ordering.descending ? " DESC" : " ASC"
            if let nullsFirst = ordering.nullsFirst { expression += nullsFirst ? " NULLS FIRST" : " NULLS LAST" }
            orderParts.append(expression)
        }
        let from = "FROM \(quoted(object.tableName)) t" + joins.map { " " + $0.sql }.joined()
        let whereSQL = whereParts.isEmpty ? "" : " WHERE " + whereParts.map { "(\($0))" }.joined(separator: " AND ")
        var sql = "SELECT \(selected.joined(separator: ", ")) \(from)\(whereSQL)"
        if !groupExpressions.isEmpty { sql += " GROUP BY " + groupExpressions.joined(separator: ", ") + havingSQL }
        if !orderParts.isEmpty { sql += " ORDER BY " + orderParts.joined(separator: ", ") }
        var sqlArguments = joinArguments + arguments
        sql += " LIMIT ? OFFSET ?"
        sqlArguments.append(Int64(query.limit ?? QueryEngine.defaultBatchSize).databaseValue)
        sqlArguments.append(Int64(query.offset ?? 0).databaseValue)
        return CompiledSOQL(
            object: object, isCount: false, idsSQL: sql, idsArguments: sqlArguments, rowsSQLPrefix: "",
            root: SOQLOutputNode(object: object, idColumn: nil), selectedColumnsSQL: "", fromSQL: from,
            fromArguments: joinArguments, whereSQL: whereSQL, whereArguments: arguments, orderSQL: orderParts.joined(separator: ", "),
            limit: query.limit, aggregate: CompiledAggregate(outputs: outputs))
    }
}
