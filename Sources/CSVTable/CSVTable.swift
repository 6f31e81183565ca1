import Foundation
import SwiftCSV

/// CSV as forceterm and localorg write it (RFC 4180: a header row, CRLF line ends, a cell quoted
/// when it holds the delimiter, a quote, a line break or edge spaces) and read it from other
/// programs through SwiftCSV, with the line each row starts on so a bad row can be named.
public enum CSVTable {
    /// One row, with its line end.
    public static func row(_ cells: [String]) -> String {
        cells.map(cell).joined(separator: ",") + "\r\n"
    }

    static func cell(_ text: String) -> String {
        let needsQuotes = text.contains { $0 == "," || $0 == "\"" || $0.isNewline } || text.first?.isWhitespace == true || text.last?.isWhitespace == true
        return needsQuotes ? "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : text
    }

    /// A row read from a file: its cells and the line (1-based) it starts on.
    public struct Row: Sendable, Equatable {
        public let line: Int
        public let cells: [String]
    }

    /// Why a file is not CSV that can be read, with the line where it goes wrong.
    public struct SyntaxError: Error, Equatable, Sendable, CustomStringConvertible {
        public let line: Int
        public let message: String
        public var description: String { "line \(line): \(message)" }
    }

    /// The header and the rows of `text` (comma, semicolon or tab separated, as its first line
    /// shows). Blank lines are skipped. A quote left open to the end of the file (which SwiftCSV
    /// would read as one long cell) and a row SwiftCSV cannot read are named with their line.
    public static func read(_ text: String) throws(SyntaxError) -> (header: [String], rows: [Row]) {
        var quoted = false
        var quoteLine = 1
        var scanLine = 1
        for scalar in text.unicodeScalars {
            if scalar == "\"" {
                quoted.toggle()
                if quoted { quoteLine = scanLine }
            } else if scalar == "\n" {
                scanLine += 1
            }
        }
        if quoted {
            throw SyntaxError(line: quoteLine, message: "a quote does not close (it opens on this line); a cell with quotes must be written \"like \"\"this\"\"\"")
        }
        let delimiter = CSVDelimiter.guessed(string: text)
        var rows: [Row] = []
        var line = 1
        var header: [String]?
        do {
            try EnumeratedCSV(string: text, delimiter: delimiter, loadColumns: false, rowLimit: 0).enumerateAsArray(startAt: 0, rowLimit: nil) { cells in
                let start = line
                line += 1 + cells.reduce(0) { $0 + $1.reduce(0) { $0 + ($1.isNewline ? 1 : 0) } }
                if header == nil {
                    header = cells.map { $0.trimmingCharacters(in: .whitespaces) }
                } else if cells.contains(where: { !$0.trimmingCharacters(in: .whitespaces).isEmpty }) {
                    rows.append(Row(line: start, cells: cells))
                }
            }
        } catch {
            throw SyntaxError(line: line, message: "this row's quotes do not close or stray quotes sit inside a cell (\(error)); a cell with quotes must be written \"like \"\"this\"\"\"")
        }
        guard let header, header.contains(where: { !$0.isEmpty }) else {
            throw SyntaxError(line: 1, message: "the file has no header row; the first line must name the columns")
        }
        return (header, rows)
    }
}
