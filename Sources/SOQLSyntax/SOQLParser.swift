/// Recursive-descent parser for the SOQL subset localorg runs.
package struct SOQLParser {
    package let tokens: [SOQLToken]
    package var index = 0

    package static let maximumOffset = 2000
    /// Conditions nested deeper than this (parentheses, NOT) are refused: each level is a few
    /// frames of this parser and of the compiler after it, and a query of a thousand `(` would
    /// overflow a thread's stack (`make fuzz` found it) rather than get an answer.
    package static let maximumNesting = 100
    package var nesting = 0

    package static func parse(_ text: String) throws(SOQLError) -> SOQLQuery {
        var parser = SOQLParser(tokens: try SOQLLexer.tokenize(text))
        let query = try parser.parseQuery(nested: false)
        guard parser.current.kind == .end else { throw parser.unexpected() }
        return query
    }

    /// One WHERE condition and nothing after it, as a subscription's `--where` must be: text that
    /// closes the condition early and opens another (`1=1) OR (Name != null`) stops at the stray token.
    package static func parseCondition(_ text: String) throws(SOQLError) -> SOQLCondition {
        var parser = SOQLParser(tokens: try SOQLLexer.tokenize(text))
        let condition = try parser.parseCondition()
        guard parser.current.kind == .end else { throw parser.unexpected() }
        return condition
    }

    package init(tokens: [SOQLToken]) { self.tokens = tokens }

    package var current: SOQLToken { tokens[index] }
    package mutating func advance() { if index < tokens.count - 1 { index += 1 } }

    package func unexpected(_ token: SOQLToken? = nil) -> SOQLError {
        let culprit = token ?? current
        return SOQLError(errorCode: "MALFORMED_QUERY", detail: "unexpected token: \(culprit.kind == .end ? "<EOF>" : "'\(culprit.text)'")", offset: culprit.offset)
    }

    package mutating func expectKeyword(_ word: String) throws(SOQLError) {
        guard current.isKeyword(word) else { throw unexpected() }
        advance()
    }

    /// A SELECT statement; `nested` for a child subquery, which ends at its closing parenthesis.
    package mutating func parseQuery(nested: Bool) throws(SOQLError) -> SOQLQuery {
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
    package mutating func parseClauses(into query: inout SOQLQuery) throws(SOQLError) {
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
    package mutating func parseAggregate() throws(SOQLError) -> SOQLAggregate {
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
    package mutating func parseFieldExpression() throws(SOQLError) -> SOQLFieldPath {
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

    package mutating func parseFieldPath() throws(SOQLError) -> SOQLFieldPath {
        guard case let .identifier(text) = current.kind, !text.hasPrefix("."), !text.hasSuffix("."), !text.contains("..") else { throw unexpected() }
        let path = SOQLFieldPath(components: text.split(separator: ".").map(String.init), offset: current.offset)
        advance()
        return path
    }

    /// `a AND b AND c` or `a OR b OR c`; mixing the two needs parentheses, as in Salesforce.
    package mutating func parseCondition() throws(SOQLError) -> SOQLCondition {
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

    package mutating func nest() throws(SOQLError) {
        nesting += 1
        guard nesting <= Self.maximumNesting else {
            throw SOQLError(
                errorCode: "MALFORMED_QUERY", detail: "conditions nested more than \(Self.maximumNesting) deep; write fewer parentheses", offset: current.offset)
        }
    }

    package mutating func parseUnary() throws(SOQLError) -> SOQLCondition {
        if current.isKeyword("NOT") {
            advance()
            try nest()
            defer { nesting -= 1 }
            return .not(try parseUnary())
        }
        if current.kind == .leftParenthesis {
            advance()
            try nest()
            defer { nesting -= 1 }
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

    package mutating func parseLiteral() throws(SOQLError) -> SOQLLiteral {
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
