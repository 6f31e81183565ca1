/// A field path as written in the query (`Name`, `Account.Name`), with where it starts; or a date
/// function of one (`CALENDAR_YEAR(CreatedDate)`), which may carry an alias in a SELECT list.
struct SOQLFieldPath: Sendable {
    var components: [String]
    var offset: Int
    var dateFunction: SOQLDateFunction? = nil
    var alias: String? = nil
    var text: String { components.joined(separator: ".") }
}

/// SOQL's date functions, in WHERE, GROUP BY, and the SELECT list and ORDER BY of an aggregate
/// query. A dateTime is taken in UTC (convertTimezone() is not supported); the fiscal year is the
/// calendar year, as in an org that never changed it.
enum SOQLDateFunction: String, Sendable, CaseIterable {
    case calendarMonth = "CALENDAR_MONTH", calendarQuarter = "CALENDAR_QUARTER", calendarYear = "CALENDAR_YEAR"
    case dayInMonth = "DAY_IN_MONTH", dayInWeek = "DAY_IN_WEEK", dayInYear = "DAY_IN_YEAR", dayOnly = "DAY_ONLY"
    case fiscalMonth = "FISCAL_MONTH", fiscalQuarter = "FISCAL_QUARTER", fiscalYear = "FISCAL_YEAR"
    case hourInDay = "HOUR_IN_DAY", weekInMonth = "WEEK_IN_MONTH", weekInYear = "WEEK_IN_YEAR"

    /// Whether the function needs a time of day, so takes dateTime fields only.
    var needsTime: Bool { self == .dayOnly || self == .hourInDay }
}

/// A literal on the right of a comparison.
enum SOQLLiteral: Sendable {
    case null
    case boolean(Bool)
    case integer(Int64)
    case decimal(Double)
    case string(value: String, likePattern: String)
    case date(days: Int64)
    case dateTime(seconds: Int64)
    /// TODAY, YESTERDAY, TOMORROW, LAST_N_DAYS:n, NEXT_N_DAYS:n — a range of whole days.
    case relativeDate(firstDayOffset: Int64, dayCount: Int64)
}

enum SOQLComparisonOperator: String, Sendable { case equal = "=", notEqual = "!=", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">=" }

/// A WHERE condition tree.
indirect enum SOQLCondition: Sendable {
    case and([SOQLCondition])
    case or([SOQLCondition])
    case not(SOQLCondition)
    case comparison(SOQLFieldPath, SOQLComparisonOperator, SOQLLiteral, literalOffset: Int)
    case inList(SOQLFieldPath, negated: Bool, [SOQLLiteral], literalOffset: Int)
    /// A semi-join or anti-join: `Id IN (SELECT AccountId FROM Contact …)`.
    case inSubquery(SOQLFieldPath, negated: Bool, SOQLQuery)
    /// `COUNT(Id) > 1`, allowed only in HAVING.
    case aggregateComparison(SOQLAggregate, SOQLComparisonOperator, SOQLLiteral, literalOffset: Int)
    case like(SOQLFieldPath, SOQLLiteral, literalOffset: Int)
}

/// An aggregate function call in a SELECT list or ORDER BY: `COUNT(Id)`, `SUM(AnnualRevenue) total`.
struct SOQLAggregate: Sendable {
    static let functions: Set<String> = ["COUNT", "COUNT_DISTINCT", "MIN", "MAX", "SUM", "AVG"]
    var function: String
    var field: SOQLFieldPath
    var alias: String?
    var offset: Int
}

struct SOQLOrdering: Sendable {
    var field: SOQLFieldPath
    /// Set when ordering by an aggregate (`ORDER BY COUNT(Id) DESC`); `field` is then its argument.
    var aggregate: SOQLAggregate? = nil
    var descending: Bool
    /// nil: Salesforce's default (nulls first ascending, last descending).
    var nullsFirst: Bool?
}

/// One item of a SELECT list: a field path or a child-relationship subquery.
indirect enum SOQLSelectItem: Sendable {
    case field(SOQLFieldPath)
    /// `(SELECT LastName FROM Contacts …)`: its `objectName` is the relationship name.
    case subquery(SOQLQuery)
    case aggregate(SOQLAggregate)
    /// `FIELDS(ALL)`, `FIELDS(STANDARD)` or `FIELDS(CUSTOM)`.
    case fieldSet(String, offset: Int)
}

/// A parsed SELECT statement.
struct SOQLQuery: Sendable {
    var items: [SOQLSelectItem]
    var isCount: Bool
    var objectName: String
    var objectOffset: Int
    var condition: SOQLCondition?
    var ordering: [SOQLOrdering]
    var limit: Int?
    var offset: Int?
    var groupBy: [SOQLFieldPath] = []
    var having: SOQLCondition?
}

/// Recursive-descent parser for the SOQL subset localorg runs.
struct SOQLParser {
    let tokens: [SOQLToken]
    var index = 0

    static let maximumOffset = 2000

    static func parse(_ text: String) throws(SOQLError) -> SOQLQuery {
        var parser = SOQLParser(tokens: try SOQLLexer.tokenize(text))
        let query = try parser.parseQuery(nested: false)
        guard parser.current.kind == .end else { throw parser.unexpected() }
        return query
    }

    init(tokens: [SOQLToken]) { self.tokens = tokens }

    var current: SOQLToken { tokens[index] }
    mutating func advance() { if index < tokens.count - 1 { index += 1 } }

    func unexpected(_ token: SOQLToken? = nil) -> SOQLError {
        let culprit = token ?? current
        return SOQLError(errorCode: "MALFORMED_QUERY", detail: "unexpected token: \(culprit.kind == .end ? "<EOF>" : "'\(culprit.text)'")", offset: culprit.offset)
    }

    mutating func expectKeyword(_ word: String) throws(SOQLError) {
        guard current.isKeyword(word) else { throw unexpected() }
        advance()
    }

    /// A SELECT statement; `nested` for a child subquery, which ends at its closing parenthesis.
    mutating func parseQuery(nested: Bool) throws(SOQLError) -> SOQLQuery {
        try expectKeyword("SELECT")
        var items: [SOQLSelectItem] = []
        var isCount = false
        if current.isKeyword("COUNT"), tokens[index + 1].kind == .leftParenthesis, tokens[index + 2].kind == .rightParenthesis {
            advance()
            advance()
            advance()
            isCount = true
        } else {
            repeat {
                if current.kind == .comma { advance() }
                if current.kind == .leftParenthesis {
                    guard !nested else { throw unexpected() }
                    advance()
                    items.append(.subquery(try parseQuery(nested: true)))
                    guard current.kind == .rightParenthesis else { throw unexpected() }
                    advance()
                } else if case let .identifier(name) = current.kind, tokens[index + 1].kind == .leftParenthesis {
                    if name.uppercased() == "FIELDS" {
                        let offset = current.offset
                        advance()
                        advance()
                        guard case let .identifier(set) = current.kind, ["ALL", "STANDARD", "CUSTOM"].contains(set.uppercased()) else { throw unexpected() }
                        advance()
                        guard current.kind == .rightParenthesis else { throw unexpected() }
                        advance()
                        items.append(.fieldSet(set.uppercased(), offset: offset))
                    } else if SOQLDateFunction(rawValue: name.uppercased()) != nil {
                        var path = try parseFieldExpression()
                        if case let .identifier(alias) = current.kind, !alias.contains("."), !current.isKeyword("FROM") {
                            path.alias = alias
                            advance()
                        }
                        items.append(.field(path))
                    } else {
                        var aggregate = try parseAggregate()
                        if case let .identifier(alias) = current.kind, !alias.contains("."), !current.isKeyword("FROM") {
                            aggregate.alias = alias
                            advance()
                        }
                        items.append(.aggregate(aggregate))
                    }
                } else {
                    items.append(.field(try parseFieldPath()))
                }
            } while current.kind == .comma
        }
        try expectKeyword("FROM")
        guard case let .identifier(objectName) = current.kind, !objectName.contains(".") else { throw unexpected() }
        let objectOffset = current.offset
        advance()
        var query = SOQLQuery(
            items: items, isCount: isCount, objectName: objectName, objectOffset: objectOffset,
            condition: nil, ordering: [], limit: nil, offset: nil)
        try parseClauses(into: &query)
        return query
    }

    /// WHERE, ORDER BY, LIMIT and OFFSET, shared by SOQL and SOSL's RETURNING specs.
    mutating func parseClauses(into query: inout SOQLQuery) throws(SOQLError) {
        if current.isKeyword("WHERE") {
            advance()
            query.condition = try parseCondition()
        }
        if current.isKeyword("GROUP") {
            advance()
            try expectKeyword("BY")
            repeat {
                if current.kind == .comma { advance() }
                query.groupBy.append(try parseFieldExpression())
            } while current.kind == .comma
            if current.isKeyword("HAVING") {
                advance()
                query.having = try parseCondition()
            }
        }
        if current.isKeyword("ORDER") {
            advance()
            try expectKeyword("BY")
            repeat {
                if current.kind == .comma { advance() }
                var ordering: SOQLOrdering
                if case let .identifier(name) = current.kind, tokens[index + 1].kind == .leftParenthesis,
                    SOQLDateFunction(rawValue: name.uppercased()) != nil
                {
                    ordering = SOQLOrdering(field: try parseFieldExpression(), descending: false, nullsFirst: nil)
                } else if case .identifier = current.kind, tokens[index + 1].kind == .leftParenthesis {
                    let aggregate = try parseAggregate()
                    ordering = SOQLOrdering(field: aggregate.field, aggregate: aggregate, descending: false, nullsFirst: nil)
                } else {
                    ordering = SOQLOrdering(field: try parseFieldPath(), descending: false, nullsFirst: nil)
                }
                if current.isKeyword("ASC") {
                    advance()
                } else if current.isKeyword("DESC") {
                    ordering.descending = true
                    advance()
                }
                if current.isKeyword("NULLS") {
                    advance()
                    if current.isKeyword("FIRST") { ordering.nullsFirst = true } else if current.isKeyword("LAST") { ordering.nullsFirst = false } else { throw unexpected() }
                    advance()
                }
                query.ordering.append(ordering)
            } while current.kind == .comma
        }
        if current.isKeyword("LIMIT") {
            advance()
            guard case let .integer(limit) = current.kind, limit >= 0 else { throw unexpected() }
            query.limit = Int(clamping: limit)
            advance()
        }
        if current.isKeyword("OFFSET") {
            advance()
            guard case let .integer(offset) = current.kind, offset >= 0 else { throw unexpected() }
            guard offset <= Self.maximumOffset else {
                throw SOQLError(errorCode: "NUMBER_OUTSIDE_VALID_RANGE", detail: "Maximum SOQL offset allowed is \(Self.maximumOffset)", offset: current.offset)
            }
            query.offset = Int(offset)
            advance()
        }
    }

    /// `FUNCTION(field.path)`, the function one of `SOQLAggregate.functions`.
    mutating func parseAggregate() throws(SOQLError) -> SOQLAggregate {
        guard case let .identifier(name) = current.kind, SOQLAggregate.functions.contains(name.uppercased()) else { throw unexpected() }
        let offset = current.offset
        advance()
        guard current.kind == .leftParenthesis else { throw unexpected() }
        advance()
        let field = try parseFieldPath()
        guard current.kind == .rightParenthesis else { throw unexpected() }
        advance()
        return SOQLAggregate(function: name.uppercased(), field: field, alias: nil, offset: offset)
    }

    /// A field path, or a date function of one: `CALENDAR_YEAR(CreatedDate)`.
    mutating func parseFieldExpression() throws(SOQLError) -> SOQLFieldPath {
        guard case let .identifier(name) = current.kind, let function = SOQLDateFunction(rawValue: name.uppercased()),
            tokens[index + 1].kind == .leftParenthesis
        else {
            return try parseFieldPath()
        }
        let offset = current.offset
        advance()
        advance()
        var path = try parseFieldPath()
        guard current.kind == .rightParenthesis else { throw unexpected() }
        advance()
        path.dateFunction = function
        path.offset = offset
        return path
    }

    mutating func parseFieldPath() throws(SOQLError) -> SOQLFieldPath {
        guard case let .identifier(text) = current.kind, !text.hasPrefix("."), !text.hasSuffix("."), !text.contains("..") else { throw unexpected() }
        let path = SOQLFieldPath(components: text.split(separator: ".").map(String.init), offset: current.offset)
        advance()
        return path
    }

    /// `a AND b AND c` or `a OR b OR c`; mixing the two needs parentheses, as in Salesforce.
    mutating func parseCondition() throws(SOQLError) -> SOQLCondition {
        let first = try parseUnary()
        var operands = [first]
        var conjunction: String?
        while current.isKeyword("AND") || current.isKeyword("OR") {
            let word = current.isKeyword("AND") ? "AND" : "OR"
            if let conjunction, conjunction != word {
                throw SOQLError(errorCode: "MALFORMED_QUERY", detail: "unexpected token: '\(current.text)'", offset: current.offset)
            }
            conjunction = word
            advance()
            operands.append(try parseUnary())
        }
        guard let conjunction else { return first }
        return conjunction == "AND" ? .and(operands) : .or(operands)
    }

    mutating func parseUnary() throws(SOQLError) -> SOQLCondition {
        if current.isKeyword("NOT") {
            advance()
            return .not(try parseUnary())
        }
        if current.kind == .leftParenthesis {
            advance()
            let inner = try parseCondition()
            guard current.kind == .rightParenthesis else { throw unexpected() }
            advance()
            return inner
        }
        if case let .identifier(name) = current.kind, SOQLAggregate.functions.contains(name.uppercased()), tokens[index + 1].kind == .leftParenthesis {
            let aggregate = try parseAggregate()
            guard case let .comparison(symbol) = current.kind, let comparison = SOQLComparisonOperator(rawValue: symbol) else { throw unexpected() }
            advance()
            let offset = current.offset
            return .aggregateComparison(aggregate, comparison, try parseLiteral(), literalOffset: offset)
        }
        let field = try parseFieldExpression()
        if current.isKeyword("LIKE") {
            advance()
            let offset = current.offset
            return .like(field, try parseLiteral(), literalOffset: offset)
        }
        var negated = false
        if current.isKeyword("NOT"), tokens[index + 1].isKeyword("IN") {
            negated = true
            advance()
        }
        if current.isKeyword("IN") {
            advance()
            guard current.kind == .leftParenthesis else { throw unexpected() }
            advance()
            if current.isKeyword("SELECT") {
                let subquery = try parseQuery(nested: true)
                guard current.kind == .rightParenthesis else { throw unexpected() }
                advance()
                return .inSubquery(field, negated: negated, subquery)
            }
            let offset = current.offset
            var values: [SOQLLiteral] = []
            repeat {
                if current.kind == .comma { advance() }
                values.append(try parseLiteral())
            } while current.kind == .comma
            guard current.kind == .rightParenthesis else { throw unexpected() }
            advance()
            return .inList(field, negated: negated, values, literalOffset: offset)
        }
        guard case let .comparison(symbol) = current.kind, let comparison = SOQLComparisonOperator(rawValue: symbol) else { throw unexpected() }
        advance()
        let offset = current.offset
        return .comparison(field, comparison, try parseLiteral(), literalOffset: offset)
    }

    mutating func parseLiteral() throws(SOQLError) -> SOQLLiteral {
        let token = current
        advance()
        switch token.kind {
        case let .string(value, likePattern): return .string(value: value, likePattern: likePattern)
        case let .integer(number): return .integer(number)
        case let .decimal(number): return .decimal(number)
        case let .date(days): return .date(days: days)
        case let .dateTime(seconds): return .dateTime(seconds: seconds)
        case let .identifier(word):
            switch word.uppercased() {
            case "NULL": return .null
            case "TRUE": return .boolean(true)
            case "FALSE": return .boolean(false)
            case "TODAY": return .relativeDate(firstDayOffset: 0, dayCount: 1)
            case "YESTERDAY": return .relativeDate(firstDayOffset: -1, dayCount: 1)
            case "TOMORROW": return .relativeDate(firstDayOffset: 1, dayCount: 1)
            case "LAST_N_DAYS", "NEXT_N_DAYS":
                guard current.kind == .colon else { throw unexpected() }
                advance()
                guard case let .integer(days) = current.kind, days >= 0, days <= 100_000 else { throw unexpected() }
                advance()
                // LAST_N_DAYS:n covers today and the n days before it; NEXT_N_DAYS:n the n days after today.
                return word.uppercased() == "LAST_N_DAYS"
                    ? .relativeDate(firstDayOffset: -days, dayCount: days + 1)
                    : .relativeDate(firstDayOffset: 1, dayCount: days)
            default: throw unexpected(token)
            }
        default:
            throw unexpected(token)
        }
    }
}
