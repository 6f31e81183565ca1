import ContactsApp
import ForceJSON
import SmartStore

/// The footer and the JSON envelope of `forceterm query`'s page.
extension PageSummary {
    /// `3 rows` when everything fits on the first page, else which rows these are and how to get more.
    public var footer: String {
        if page == 1 && totalRows <= pageSize { return totalRows == 1 ? "1 row" : "\(totalRows) rows" }
        if rowsOnPage == 0 {
            let pages = pageCount == 1 ? "1 page" : "\(pageCount) pages"
            return "page \(page) is past the end: \(totalRows) rows make \(pages) of \(pageSize)"
        }
        var footer = "rows \(firstRow)–\(lastRow) of \(totalRows) (page \(page) of \(pageCount))"
        if page < pageCount { footer += "; use --page \(page + 1) for more" }
        return footer
    }

    public func json(columns: [String], rows: [[JSONValue]]) -> JSONValue {
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
