import GRDB
import SOQLSyntax
import SalesforceTime

/// WHERE and HAVING: conditions, comparisons and the literals they compare with, as SQL.
extension SOQLCompiler {
    mutating func compileCondition(_ condition: SOQLCondition, object: ObjectDefinition) throws(SOQLError) -> String {
        switch condition {
        case let .and(parts):
            var compiled: [String] = []
            for part in parts { compiled.append("(" + (try compileCondition(part, object: object)) + ")") }
            return compiled.joined(separator: " AND ")
        case let .or(parts):
            var compiled: [String] = []
            for part in parts { compiled.append("(" + (try compileCondition(part, object: object)) + ")") }
            return compiled.joined(separator: " OR ")
        case let .not(inner):
            // SOQL's NOT also matches rows where the inner condition is unknown because of nulls.
            return "NOT COALESCE((\(try compileCondition(inner, object: object))), 0)"
        case let .comparison(path, comparison, literal, offset):
            let (column, field, _) = try valueExpression(path, from: object)
            try refuseLongText(field, .filtering, offset: path.offset)
            if comparison == .equal { noteFiltered(path, field, object: object, folded: Self.needsUnicodeFolding(literal)) }
            return try compileComparison(column: column, field: field, comparison: comparison, literal: literal, offset: offset)
        case let .inList(path, negated, literals, offset):
            let (rawColumn, field, _) = try valueExpression(path, from: object)
            try refuseLongText(field, .filtering, offset: path.offset)
            let folded = field.type.isText && literals.contains(where: Self.needsUnicodeFolding)
            if !negated { noteFiltered(path, field, object: object, folded: folded) }
            let column = folded ? "\(OrgStore.foldFunction)(\(rawColumn))" : rawColumn
            var placeholders: [String] = []
            var includesNull = false
            for literal in literals {
                if case .null = literal {
                    includesNull = true
                    continue
                }
                arguments.append(try value(of: literal, for: field, offset: offset))
                placeholders.append(folded ? "\(OrgStore.foldFunction)(?)" : "?")
            }
            let list = placeholders.isEmpty ? "SELECT NULL WHERE 0" : placeholders.joined(separator: ", ")
            if negated {
                return includesNull ? "\(column) IS NOT NULL AND \(column) NOT IN (\(list))" : "\(column) IS NULL OR \(column) NOT IN (\(list))"
            }
            return includesNull ? "\(column) IS NULL OR \(column) IN (\(list))" : "\(column) IN (\(list))"
        case let .aggregateComparison(aggregate, comparison, literal, offset):
            guard compilingHaving else {
                throw SOQLError(errorCode: "MALFORMED_QUERY", detail: "aggregate functions are allowed in HAVING, not in WHERE", offset: aggregate.offset)
            }
            let (expression, field) = try aggregateExpression(aggregate, object: object)
            let value: DatabaseValue
            switch (aggregate.function, literal) {
            case ("COUNT", .integer(let number)), ("COUNT_DISTINCT", .integer(let number)): value = number.databaseValue
            case (_, .integer(let number)) where field.type.isNumber: value = number.databaseValue
            case (_, .decimal(let number)) where field.type.isNumber: value = number.databaseValue
            case ("MIN", _), ("MAX", _): value = try self.value(of: literal, for: field, offset: offset)
            default: throw typeMismatch(field, offset: offset)
            }
            arguments.append(value)
            return "\(expression) \(comparison == .notEqual ? "<>" : comparison.rawValue) ?"
        case let .inSubquery(path, negated, subquery):
            if let function = path.dateFunction {
                throw SOQLError(errorCode: "MALFORMED_QUERY", detail: "\(function.rawValue)() cannot be compared with a subquery", offset: path.offset)
            }
            let (alias, field, _) = try resolve(path, from: object)
            let column = "\(alias).\(quoted(field.columnName))"
            let inner = try semiJoinSQL(subquery, comparedWith: field)
            arguments += inner.arguments
            return negated ? "\(column) IS NULL OR \(column) NOT IN (\(inner.sql))" : "\(column) IN (\(inner.sql))"
        case let .like(path, literal, offset):
            if let function = path.dateFunction {
                throw SOQLError(errorCode: "INVALID_FIELD", detail: "LIKE cannot be used with \(function.rawValue)()", offset: offset)
            }
            let (alias, field, _) = try resolve(path, from: object)
            try refuseLongText(field, .filtering, offset: path.offset)
            guard field.type.isText || field.type == .id || field.type == .reference else {
                throw SOQLError(errorCode: "INVALID_FIELD", detail: "invalid operator on \(field.type.rawValue) field: \(field.name)", offset: offset)
            }
            guard case let .string(_, pattern) = literal else {
                throw SOQLError(errorCode: "MALFORMED_QUERY", detail: "LIKE needs a quoted string", offset: offset)
            }
            arguments.append(pattern.databaseValue)
            let column = "\(alias).\(quoted(field.columnName))"
            // SQLite's LIKE ignores case for ASCII only; Salesforce's ignores it for every letter.
            if Self.needsUnicodeFolding(literal) {
                return "\(OrgStore.foldFunction)(\(column)) LIKE \(OrgStore.foldFunction)(?) ESCAPE '\\'"
            }
            return "\(column) LIKE ? ESCAPE '\\'"
        }
    }

    mutating func compileComparison(
        column: String, field: FieldDefinition, comparison: SOQLComparisonOperator,
        literal: SOQLLiteral, offset: Int
    ) throws(SOQLError) -> String {
        if case .null = literal {
            switch comparison {
            case .equal: return "\(column) IS NULL"
            case .notEqual: return "\(column) IS NOT NULL"
            default: throw SOQLError(errorCode: "INVALID_QUERY_FILTER_OPERATOR", detail: "invalid operator for null: \(comparison.rawValue)", offset: offset)
            }
        }
        if case let .relativeDate(firstDayOffset, dayCount) = literal {
            let firstDay = todayStartDays + firstDayOffset
            let start: DatabaseValue
            let end: DatabaseValue
            switch field.type {
            case .datetime:
                start = (firstDay * 86_400).databaseValue
                end = ((firstDay + dayCount) * 86_400).databaseValue
            case .date:
                start = SalesforceDate.formatDate(days: firstDay).databaseValue
                end = SalesforceDate.formatDate(days: firstDay + dayCount).databaseValue
            default:
                throw typeMismatch(field, offset: offset)
            }
            switch comparison {
            case .equal:
                arguments += [start, end]
                return "\(column) >= ? AND \(column) < ?"
            case .notEqual:
                arguments += [start, end]
                return "\(column) IS NULL OR \(column) < ? OR \(column) >= ?"
            case .less:
                arguments.append(start)
                return "\(column) < ?"
            case .lessOrEqual:
                arguments.append(end)
                return "\(column) < ?"
            case .greater:
                arguments.append(end)
                return "\(column) >= ?"
            case .greaterOrEqual:
                arguments.append(start)
                return "\(column) >= ?"
            }
        }
        arguments.append(try value(of: literal, for: field, offset: offset))
        // Text columns compare with NOCASE, which folds ASCII only: a literal with other letters
        // ('ÉLODIE' = 'élodie') is compared case-folded on both sides, as Salesforce does.
        let folded = field.type.isText && Self.needsUnicodeFolding(literal)
        let left = folded ? "\(OrgStore.foldFunction)(\(column))" : column
        let right = folded ? "\(OrgStore.foldFunction)(?)" : "?"
        switch comparison {
        case .notEqual: return "\(column) IS NULL OR \(left) <> \(right)"  // SOQL's != also matches nulls
        default: return "\(left) \(comparison.rawValue) \(right)"
        }
    }

    /// Notes a text field of `object` itself (not a parent's) compared for equality.
    mutating func noteFiltered(_ path: SOQLFieldPath, _ field: FieldDefinition, object: ObjectDefinition, folded: Bool) {
        guard path.components.count == 1, path.dateFunction == nil, field.type.isText else { return }
        let column = FilteredColumn(table: object.tableName, column: field.columnName, folded: folded)
        if !filteredColumns.contains(column) { filteredColumns.append(column) }
    }

    /// Whether a string literal has letters beyond ASCII, which SQLite's NOCASE and LIKE do not fold.
    static func needsUnicodeFolding(_ literal: SOQLLiteral) -> Bool {
        guard case let .string(text, _) = literal else { return false }
        return text.unicodeScalars.contains { !$0.isASCII }
    }

    /// The stored form of a literal compared with `field`, or Salesforce's type-mismatch error.
    func value(of literal: SOQLLiteral, for field: FieldDefinition, offset: Int) throws(SOQLError) -> DatabaseValue {
        switch (field.type, literal) {
        case (.id, .string(let text, _)), (.reference, .string(let text, _)):
            guard let id = SalesforceId.canonical(text) else {
                throw SOQLError(errorCode: "INVALID_QUERY_FILTER_OPERATOR", detail: "invalid ID field: \(text)", offset: offset)
            }
            return id.databaseValue
        case (let type, .string(let text, _)) where type.isText:
            return text.databaseValue
        case (.boolean, .boolean(let flag)):
            return flag.databaseValue
        case (.int, .integer(let number)):
            return number.databaseValue
        case (.double, .integer(let number)), (.currency, .integer(let number)), (.percent, .integer(let number)):
            return Double(number).databaseValue
        case (.double, .decimal(let number)), (.currency, .decimal(let number)), (.percent, .decimal(let number)), (.int, .decimal(let number)):
            return number.databaseValue
        case (.date, .date(let days)):
            return SalesforceDate.formatDate(days: days).databaseValue
        case (.datetime, .dateTime(let seconds)):
            return seconds.databaseValue
        default:
            throw typeMismatch(field, offset: offset)
        }
    }

    func typeMismatch(_ field: FieldDefinition, offset: Int) -> SOQLError {
        let typeName: String
        switch field.type {
        case .datetime: typeName = "dateTime"
        case .int: typeName = "integer"
        case .id, .reference: typeName = "id"
        default: typeName = field.type.rawValue
        }
        let quoting =
            field.type.isText || field.type == .id || field.type == .reference
            ? "should be enclosed in quotes" : "should not be enclosed in quotes"
        return SOQLError(
            errorCode: "INVALID_QUERY_FILTER_OPERATOR",
            detail: "value of filter criterion for field '\(field.name)' must be of type \(typeName) and \(quoting)", offset: offset)
    }
}
