import ContactsApp
import ForceJSON
import TerminalUI

/// Query results as an aligned plain-text table: a header row, a dashed separator, one line per row.
///
/// Columns are padded by terminal display width, so CJK names and emoji line up; documents show as
/// compact JSON; cells wider than `maximumCellWidth` end in "…"; NULL shows as `NULL`; numeric
/// columns are right-aligned. Control characters in data are shown escaped (`\n`, `\u001b`) so a
/// record can neither break the layout nor send escape sequences to the terminal.
public struct ResultTable {
    public static let maximumCellWidth = 60
    public static let columnGap = "  "

    public let headers: [String]
    public let rows: [[JSONValue]]

    public init(headers: [String], rows: [[JSONValue]]) {
        self.headers = headers
        self.rows = rows
    }

    /// The table, one line per row, each ending in a newline and without trailing spaces.
    public func rendered() -> String {
        let headerCells = headers.map { Self.fit(Self.escapingControls($0)) }
        let bodyCells = rows.map { row in headers.indices.map { Self.fit(Self.cellText(row.indices.contains($0) ? row[$0] : .null)) } }
        let widths = headers.indices.map { column in
            bodyCells.reduce(headerCells[column].displayWidth) { max($0, $1[column].displayWidth) }
        }
        let alignments = headers.indices.map { column in
            isNumericColumn(column) ? TextAlignment.right : TextAlignment.left
        }
        func line(_ cells: [String]) -> String {
            let padded = cells.indices.map { cells[$0].padded(toWidth: widths[$0], alignment: alignments[$0]) }
            return Self.trimmingTrailingSpaces(padded.joined(separator: Self.columnGap)) + "\n"
        }
        var output = line(headerCells)
        output += line(widths.map { String(repeating: "-", count: $0) })
        for cells in bodyCells { output += line(cells) }
        return output
    }

    /// A column is numeric when it has at least one number and nothing else but NULLs.
    private func isNumericColumn(_ column: Int) -> Bool {
        var sawNumber = false
        for row in rows where row.indices.contains(column) {
            switch row[column] {
            case .int, .double: sawNumber = true
            case .null: continue
            default: return false
            }
        }
        return sawNumber
    }

    public static func cellText(_ value: JSONValue) -> String { CellText.of(value) }

    private static func fit(_ text: String) -> String {
        text.truncated(toWidth: maximumCellWidth)
    }

    public static func escapingControls(_ text: String) -> String { CellText.escapingControls(text) }

    private static func trimmingTrailingSpaces(_ line: String) -> String {
        var line = Substring(line)
        while line.last == " " { line = line.dropLast() }
        return String(line)
    }
}
