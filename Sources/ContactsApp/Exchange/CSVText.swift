import CSVTable

/// CSV for imports and exports: `CSVTable`, with its errors as `ImportProblem`s.
public enum CSVText {
    public typealias Row = CSVTable.Row

    /// One row, with its line end.
    public static func row(_ cells: [String]) -> String { CSVTable.row(cells) }

    /// The header and the rows of `text`; throws `ImportProblem` naming the line that cannot be read.
    public static func read(_ text: String) throws -> (header: [String], rows: [Row]) {
        do {
            return try CSVTable.read(text)
        } catch {
            let message =
                error.line == 1 && error.message.hasPrefix("the file has no header row")
                ? "the file has no header row; the first line must name the columns (LastName,FirstName,Email,…)" : error.message
            throw ImportProblem(line: error.line, message: message)
        }
    }
}

/// Why an imported file, or one of its records, cannot be used: the line and what to do.
public struct ImportProblem: Error, Equatable, Sendable, CustomStringConvertible {
    public let line: Int
    public let message: String
    /// Which record of the file (0-based, in file order), when the problem is one record's:
    /// several JSON records can share a line.
    public let record: Int?
    public init(line: Int, message: String, record: Int? = nil) {
        self.line = line
        self.message = message
        self.record = record
    }
    public var description: String { line > 0 ? "line \(line): \(message)" : message }
}
