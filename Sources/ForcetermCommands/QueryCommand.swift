import ArgumentParser
import ContactsApp
import ForceJSON
import ForcetermServices
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
    @OptionGroup var globalOptions: GlobalStoreOptions
    @ParentCommand var root: Forceterm

    @Flag(help: "Print a JSON object with the columns, the rows and the paging instead of a table.")
    var json = false

    @Option(help: ArgumentHelp("How many rows to print per page.", valueName: "n"))
    var pageSize: Int = QueryCommand.defaultPageSize

    @Option(help: ArgumentHelp("Which page to print, counting from 1.", valueName: "k"))
    var page: Int = 1

    func validate() throws {
        try root.refuseOptions(except: [.store, .global], in: "query")
        _ = try globalOptions.explicitPath(storeOptions)
        guard pageSize > 0 else { throw ValidationError("--page-size must be at least 1, not \(pageSize).") }
        guard page > 0 else { throw ValidationError("--page counts from 1, so it must be at least 1, not \(page).") }
    }

    func run() throws {
        try CommandFailure.reporting {
            let store = try StoreKeys.open(try globalOptions.location(storeOptions).path, mustExist: true)
            let result = try SmartSqlPage.fetch(smartSql, store: store, page: page, pageSize: pageSize)
            let (columns, summary) = (result.columns, result.summary)
            if json {
                StandardStreams.write(JSONWriter.string(summary.json(columns: columns, rows: result.rows), pretty: true) + "\n")
            } else {
                StandardStreams.write(ResultTable(headers: columns, rows: result.rows).rendered())
                StandardStreams.writeError(summary.footer + "\n")
            }
        }
    }
}
