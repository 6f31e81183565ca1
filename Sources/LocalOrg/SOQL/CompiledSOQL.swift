import GRDB
import SalesforceTime

/// How one selected object renders: its fields and nested parent objects, in SELECT order.
struct SOQLOutputNode: Sendable {
    enum Entry: Sendable {
        case field(FieldDefinition, column: Int)
        case parent(relationshipName: String, node: SOQLOutputNode)
        /// A child subquery's records, fetched separately for each page of parents.
        indirect case children(relationshipName: String, query: CompiledChildQuery)
    }
    var object: ObjectDefinition
    /// The result column holding this object's Id (nil for the root when Id is not selected).
    var idColumn: Int?
    var entries: [Entry] = []
}

/// A query compiled to parameterised SQL. No text from the query ever reaches the SQL: field
/// and object names are checked against the schema and written from it; values are `?` arguments.
struct CompiledSOQL: Sendable {
    var object: ObjectDefinition
    var isCount: Bool
    /// Ids of all matching records, in the query's order, with LIMIT and OFFSET applied.
    var idsSQL: String
    var idsArguments: [DatabaseValue]
    /// The selected columns of the records whose ids are appended as `?` placeholders inside `IN (…)`.
    var rowsSQLPrefix: String
    var root: SOQLOutputNode
    /// The pieces of the statement, for child subqueries that add their own parent filter.
    var selectedColumnsSQL: String
    var fromSQL: String
    /// Arguments of placeholders in `fromSQL` (sharing conditions on joins); they come first.
    var fromArguments: [DatabaseValue]
    var whereSQL: String
    var whereArguments: [DatabaseValue]
    var orderSQL: String
    var limit: Int?
    /// Set for GROUP BY / aggregate-function queries, which return AggregateResult rows from `idsSQL`.
    var aggregate: CompiledAggregate? = nil
    /// Text columns its WHERE compares for equality, which a large table gets an index on.
    var filteredColumns: [FilteredColumn] = []
}

/// What each column of an aggregate query's rows becomes in its AggregateResult record.
struct CompiledAggregate: Sendable {
    enum Output: Sendable {
        case groupField(name: String, FieldDefinition)
        case aggregate(name: String, function: String, FieldDefinition)
    }
    var outputs: [Output]
}

/// A compiled `(SELECT … FROM Contacts …)`: the child query plus the reference column that
/// points at the parent.
struct CompiledChildQuery: Sendable {
    var query: CompiledSOQL
    var foreignKeyColumn: String

    /// Rows of the children of `parentIds`: parent id, child id, then the selected columns.
    func sql(parentCount: Int) -> String {
        let placeholders = Array(repeating: "?", count: parentCount).joined(separator: ", ")
        let filter = "t.\(quoted(foreignKeyColumn)) IN (\(placeholders))"
        let whereSQL = query.whereSQL.isEmpty ? " WHERE \(filter)" : "\(query.whereSQL) AND \(filter)"
        return "SELECT t.\(quoted(foreignKeyColumn)), t.\"Id\", \(query.selectedColumnsSQL) \(query.fromSQL)\(whereSQL) ORDER BY \(query.orderSQL)"
    }
}

/// What the asking user may name in a query: their field-level security (a hidden field is no
/// column at all), and whether long text areas are refused where a real org refuses them.
struct QueryPolicy: Sendable {
    var access: FieldAccess = .administrator
    var refusesLongText = false

    init(access: FieldAccess = .administrator, refusesLongText: Bool = false) {
        self.access = access
        self.refusesLongText = refusesLongText
    }
}
