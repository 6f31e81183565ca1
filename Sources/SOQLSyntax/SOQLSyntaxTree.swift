/// A field path as written in the query (`Name`, `Account.Name`), with where it starts; or a date
/// function of one (`CALENDAR_YEAR(CreatedDate)`), which may carry an alias in a SELECT list.
package struct SOQLFieldPath: Sendable {
    package var components: [String]
    package var offset: Int
    package var dateFunction: SOQLDateFunction? = nil
    package var alias: String? = nil
    package var text: String { components.joined(separator: ".") }

    package init(components: [String], offset: Int, dateFunction: SOQLDateFunction? = nil, alias: String? = nil) {
        self.components = components
        self.offset = offset
        self.dateFunction = dateFunction
        self.alias = alias
    }
}

/// SOQL's date functions, in WHERE, GROUP BY, and the SELECT list and ORDER BY of an aggregate
/// query. A dateTime is taken in UTC (convertTimezone() is not supported); the fiscal year is the
/// calendar year, as in an org that never changed it.
package enum SOQLDateFunction: String, Sendable, CaseIterable {
    case calendarMonth = "CALENDAR_MONTH", calendarQuarter = "CALENDAR_QUARTER", calendarYear = "CALENDAR_YEAR"
    case dayInMonth = "DAY_IN_MONTH", dayInWeek = "DAY_IN_WEEK", dayInYear = "DAY_IN_YEAR", dayOnly = "DAY_ONLY"
    case fiscalMonth = "FISCAL_MONTH", fiscalQuarter = "FISCAL_QUARTER", fiscalYear = "FISCAL_YEAR"
    case hourInDay = "HOUR_IN_DAY", weekInMonth = "WEEK_IN_MONTH", weekInYear = "WEEK_IN_YEAR"

    /// Whether the function needs a time of day, so takes dateTime fields only.
    package var needsTime: Bool { self == .dayOnly || self == .hourInDay }
}

/// A literal on the right of a comparison.
package enum SOQLLiteral: Sendable {
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

package enum SOQLComparisonOperator: String, Sendable { case equal = "=", notEqual = "!=", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">=" }

/// A WHERE condition tree.
package indirect enum SOQLCondition: Sendable {
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
package struct SOQLAggregate: Sendable {
    package static let functions: Set<String> = ["COUNT", "COUNT_DISTINCT", "MIN", "MAX", "SUM", "AVG"]
    package var function: String
    package var field: SOQLFieldPath
    package var alias: String?
    package var offset: Int

    package init(function: String, field: SOQLFieldPath, alias: String?, offset: Int) {
        self.function = function
        self.field = field
        self.alias = alias
        self.offset = offset
    }
}

package struct SOQLOrdering: Sendable {
    package var field: SOQLFieldPath
    /// Set when ordering by an aggregate (`ORDER BY COUNT(Id) DESC`); `field` is then its argument.
    package var aggregate: SOQLAggregate? = nil
    package var descending: Bool
    /// nil: Salesforce's default (nulls first ascending, last descending).
    package var nullsFirst: Bool?

    package init(field: SOQLFieldPath, aggregate: SOQLAggregate? = nil, descending: Bool, nullsFirst: Bool?) {
        self.field = field
        self.aggregate = aggregate
        self.descending = descending
        self.nullsFirst = nullsFirst
    }
}

/// One item of a SELECT list: a field path or a child-relationship subquery.
package indirect enum SOQLSelectItem: Sendable {
    case field(SOQLFieldPath)
    /// `(SELECT LastName FROM Contacts …)`: its `objectName` is the relationship name.
    case subquery(SOQLQuery)
    case aggregate(SOQLAggregate)
    /// `FIELDS(ALL)`, `FIELDS(STANDARD)` or `FIELDS(CUSTOM)`.
    case fieldSet(String, offset: Int)
}

/// A parsed SELECT statement.
package struct SOQLQuery: Sendable {
    package var items: [SOQLSelectItem]
    package var isCount: Bool
    package var objectName: String
    package var objectOffset: Int
    package var condition: SOQLCondition?
    package var ordering: [SOQLOrdering]
    package var limit: Int?
    package var offset: Int?
    package var groupBy: [SOQLFieldPath] = []
    package var having: SOQLCondition?

    package init(
        items: [SOQLSelectItem], isCount: Bool, objectName: String, objectOffset: Int, condition: SOQLCondition?, ordering: [SOQLOrdering],
        limit: Int?, offset: Int?, groupBy: [SOQLFieldPath] = [], having: SOQLCondition? = nil
    ) {
        self.items = items
        self.isCount = isCount
        self.objectName = objectName
        self.objectOffset = objectOffset
        self.condition = condition
        self.ordering = ordering
        self.limit = limit
        self.offset = offset
        self.groupBy = groupBy
        self.having = having
    }
}
