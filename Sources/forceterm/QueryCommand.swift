import ArgumentParser
import ForceJSON
import SmartStore

/// `forceterm query "<Smart SQL>"`: one page of a read-only Smart SQL query, as a table or as JSON.
struct QueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Run a Smart SQL SELECT against the local store and print the rows.",
        discussion: """
            Smart SQL is SQL with soup references: {contacts} is the contacts soup, \
            {contacts:LastName} a field of its records, {contacts:_soup} the whole record, and \
            {contacts}_fts MATCH 'term' searches its full-text fields. Only SELECT statements run; \
            the store is never changed and is never created.

            The rows go to standard output as a table (or JSON with --json); a line saying which \
            rows you got goes to standard error.

            Examples:
              forceterm query "SELECT {contacts:LastName}, {contacts:Email} FROM {contacts} ORDER BY {contacts:LastName}"
              forceterm query "SELECT count(*) FROM {accounts}"
              forceterm query --json --page-size 20 --page 3 "SELECT {contacts:_soup} FROM {contacts}"
            """)

    static let defaultPageSize = 100

    @Argument(help: ArgumentHelp("The Smart SQL SELECT statement to run.", valueName: "smart-sql"))
    var smartSql: String

    @OptionGroup var storeOptions: StoreOptions

    @Flag(help: "Print a JSON object with the columns, the rows and the paging instead of a table.")
    var json = false

    @Option(help: ArgumentHelp("How many rows to print per page.", valueName: "n"))
    var pageSize: Int = QueryCommand.defaultPageSize

    @Option(help: ArgumentHelp("Which page to print, counting from 1.", valueName: "k"))
    var page: Int = 1

    func validate() throws {
        guard pageSize > 0 else { throw ValidationError("--page-size must be at least 1, not \(pageSize).") }
        guard page > 0 else { throw ValidationError("--page counts from 1, so it must be at least 1, not \(page).") }
    }

    func run() throws {
        try CommandFailure.reporting {
            let store = try SmartStore(path: storeOptions.location.path, mustExist: true)
            let spec = QuerySpec.smart(smartSql, pageSize: pageSize)
            // The page and the total come from one snapshot, so they agree even while a sync writes.
            let (result, totalRows, soups) = try store.read { transaction in
                let result = try transaction.queryPage(spec, pageIndex: page - 1)
                let complete = page == 1 && result.rows.count < pageSize
                let totalRows = complete ? result.rows.count : try transaction.count(spec)
                let soups = try transaction.soupNames().map { try transaction.soupInfo($0) }
                return (result, totalRows, soups)
            }
            let columns = ColumnNames.readable(result.columns, soups: soups)
            let summary = PageSummary(page: page, pageSize: pageSize, rowsOnPage: result.rows.count, totalRows: totalRows)
            if json {
                StandardStreams.write(JSONWriter.string(summary.json(columns: columns, rows: result.rows), pretty: true) + "\n")
            } else {
                StandardStreams.write(ResultTable(headers: columns, rows: result.rows).rendered())
                StandardStreams.writeError(summary.footer + "\n")
            }
        }
    }
}

/// Which slice of the results a page is, for the footer and the JSON envelope.
struct PageSummary: Equatable {
    let page: Int
    let pageSize: Int
    let rowsOnPage: Int
    let totalRows: Int

    var pageCount: Int { max(1, (totalRows + pageSize - 1) / pageSize) }
    var firstRow: Int { (page - 1) * pageSize + 1 }
    var lastRow: Int { firstRow + rowsOnPage - 1 }

    /// `3 rows` when everything fits on the first page, else which rows these are and how to get more.
    var footer: String {
        if page == 1 && totalRows <= pageSize { return totalRows == 1 ? "1 row" : "\(totalRows) rows" }
        if rowsOnPage == 0 {
            let pages = pageCount == 1 ? "1 page" : "\(pageCount) pages"
            return "page \(page) is past the end: \(totalRows) rows make \(pages) of \(pageSize)"
        }
        var footer = "rows \(firstRow)–\(lastRow) of \(totalRows) (page \(page) of \(pageCount))"
        if page < pageCount { footer += "; use --page \(page + 1) for more" }
        return footer
    }

    func json(columns: [String], rows: [[JSONValue]]) -> JSONValue {
        let object: JSONObject = [
            "columns": .array(columns.map { .string($0) }),
            "rows": .array(rows.map { .array($0) }),
            "page": .int(Int64(page)),
            "pageSize": .int(Int64(pageSize)),
            "totalRows": .int(Int64(totalRows)),
        ]
        return .object(object)
    }
}

/// Column headers people can read: SQLite names a selected index column after the store's internal
/// column (`TABLE_1_2`) and an unindexed path after the expression (`json_extract(soup, '$.Title')`);
/// both become the path the user wrote (`LastName`, `Title`). Aliases and other names stay as they are.
enum ColumnNames {
    static func readable(_ columns: [String], soups: [SoupInfo]) -> [String] {
        var pathsByColumn: [String: String] = [:]
        for soup in soups {
            for spec in soup.indexSpecs {
                if let column = spec.columnName { pathsByColumn[column] = spec.path }
            }
        }
        return columns.map { column in
            if let path = pathsByColumn[column] { return path }
            if let path = jsonExtractPath(column) { return path }
            return column
        }
    }

    /// `Title` from `json_extract(soup, '$.Title')` or `json_extract(TABLE_1.soup, '$.Owner.Name')`.
    static func jsonExtractPath(_ column: String) -> String? {
        guard column.hasPrefix("json_extract("), column.hasSuffix("')"),
            let start = column.range(of: ", '$.")
        else { return nil }
        let path = column[start.upperBound..<column.index(column.endIndex, offsetBy: -2)]
        return path.isEmpty || path.contains("'") ? nil : String(path)
    }
}
