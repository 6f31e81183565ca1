import ForceJSON
import SmartStore

/// One page of a Smart SQL query with its total and readable column names, read in one snapshot so
/// the page and the total agree even while a sync writes. `forceterm query` and the Inspector tab
/// both page through it.
public struct SmartSqlPage: Sendable, Equatable {
    public let columns: [String]
    public let rows: [[JSONValue]]
    public let summary: PageSummary

    /// Page `page` (counting from 1) of `smartSql` at `pageSize` rows.
    public static func fetch(_ smartSql: String, store: SmartStore, page: Int, pageSize: Int) throws -> SmartSqlPage {
        let spec = QuerySpec.smart(smartSql, pageSize: pageSize)
        let (result, totalRows, soups) = try store.read { transaction in
            let result = try transaction.queryPage(spec, pageIndex: page - 1)
            let complete = page == 1 && result.rows.count < pageSize
            let totalRows = complete ? result.rows.count : try transaction.count(spec)
            let soups = try transaction.soupNames().map { try transaction.soupInfo($0) }
            return (result, totalRows, soups)
        }
        return SmartSqlPage(
            columns: ColumnNames.readable(result.columns, soups: soups), rows: result.rows,
            summary: PageSummary(page: page, pageSize: pageSize, rowsOnPage: result.rows.count, totalRows: totalRows))
    }
}

/// Which slice of the results a page is.
public struct PageSummary: Sendable, Equatable {
    public let page: Int
    public let pageSize: Int
    public let rowsOnPage: Int
    public let totalRows: Int

    public init(page: Int, pageSize: Int, rowsOnPage: Int, totalRows: Int) {
        self.page = page
        self.pageSize = pageSize
        self.rowsOnPage = rowsOnPage
        self.totalRows = totalRows
    }

    public var pageCount: Int { max(1, (totalRows + pageSize - 1) / pageSize) }
    public var firstRow: Int { (page - 1) * pageSize + 1 }
    public var lastRow: Int { firstRow + rowsOnPage - 1 }
}

/// Column headers people can read: SQLite names a selected index column after the store's internal
/// column (`TABLE_1_2`) and an unindexed path after the expression (`json_extract(soup, '$.Title')`);
/// both become the path the user wrote (`LastName`, `Title`). Aliases and other names stay as they are.
public enum ColumnNames {
    public static func readable(_ columns: [String], soups: [SoupInfo]) -> [String] {
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
    public static func jsonExtractPath(_ column: String) -> String? {
        guard column.hasPrefix("json_extract("), column.hasSuffix("')"),
            let start = column.range(of: ", '$.")
        else { return nil }
        let path = column[start.upperBound..<column.index(column.endIndex, offsetBy: -2)]
        return path.isEmpty || path.contains("'") ? nil : String(path)
    }
}

/// A result cell as text: NULL as `NULL`, documents as compact JSON, control characters escaped
/// (`\n`, `\u001b`) so data can neither break a layout nor send escape sequences to the terminal.
public enum CellText {
    public static func of(_ value: JSONValue) -> String {
        switch value {
        case .null: return "NULL"
        case let .string(text): return escapingControls(text)
        case .bool, .int, .double, .array, .object: return escapingControls(JSONWriter.string(value))
        }
    }

    /// C0 and C1 control characters and DEL as visible escapes; everything else unchanged.
    public static func escapingControls(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case "\t": escaped += "\\t"
            case _ where isControl(scalar):
                let hex = String(scalar.value, radix: 16)
                escaped += "\\u" + String(repeating: "0", count: max(4 - hex.count, 0)) + hex
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F..<0xA0).contains(scalar.value)
    }
}
