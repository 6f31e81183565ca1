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
    /// shows). Blank lines are skipped. Read as RFC 4180 says and as spreadsheets write beyond it:
    /// a quote that opens a cell may hold delimiters, line breaks and doubled quotes; a quote
    /// inside an unquoted cell (`15" laptop`) is a character. A quoted cell left open to the end
    /// of the file is named with the line it opens on.
    public static func read(_ text: String) throws(SyntaxError) -> (header: [String], rows: [Row]) {
        let delimiter = CSVDelimiter.guessed(string: text).rawValue
        var rows: [Row] = []
        var header: [String]?
        var cells: [String] = []
        var cell = ""
        var line = 1
        var rowStart = 1
        var inQuotes = false
        var quoteOpenedOn = 0
        var closingQuote = false
        var atCellStart = true
        func endRow() {
            cells.append(cell)
            cell = ""
            if header == nil {
                header = cells.map { $0.trimmingCharacters(in: .whitespaces) }
            } else if cells.contains(where: { !$0.trimmingCharacters(in: .whitespaces).isEmpty }) {
                rows.append(Row(line: rowStart, cells: cells))
            }
            cells = []
        }
        var characters = text.makeIterator()
        var pending: Character? = characters.next()
        if pending == "\u{FEFF}" { pending = characters.next() }
        while let character = pending {
            pending = characters.next()
            // The iPhone's CR CR LF is one line end.
            if character == "\r", pending == "\r\n" || pending == "\n" { continue }
            if inQuotes {
                if character == "\"" {
                    if closingQuote { cell.append("\"") }
                    closingQuote.toggle()
                    continue
                }
                if closingQuote {
                    inQuotes = false
                    closingQuote = false
                } else {
                    if character.isNewline { line += 1 }
                    cell.append(character)
                    continue
                }
            }
            if character == delimiter {
                cells.append(cell)
                cell = ""
                atCellStart = true
            } else if character.isNewline {
                endRow()
                line += 1
                rowStart = line
                atCellStart = true
            } else if character == "\"", atCellStart {
                inQuotes = true
                quoteOpenedOn = line
                atCellStart = false
            } else {
                cell.append(character)
                atCellStart = false
            }
        }
        if inQuotes, !closingQuote {
            throw SyntaxError(line: quoteOpenedOn, message: "a quote does not close (it opens on this line); a cell with quotes must be written \"like \"\"this\"\"\"")
        }
        if !cell.isEmpty || !cells.isEmpty { endRow() }
        guard let header, header.contains(where: { !$0.isEmpty }) else {
            throw SyntaxError(line: 1, message: "the file has no header row; the first line must name the columns")
        }
        return (header, rows)
    }
}
