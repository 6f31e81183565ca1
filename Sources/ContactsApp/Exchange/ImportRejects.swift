import ForceJSON

/// The records an import skipped (`--skip-invalid`), written back as the file had them with the
/// reason, so they can be fixed and imported on their own, as Data Loader's error file allows:
/// CSV with an `Import error` column, vCard with an `X-FORCETERM-IMPORT-ERROR` property, JSON
/// with an `importError` key. Importing such a file reads past the reason.
public enum ImportRejects {
    public static let errorColumn = "Import error"
    public static let errorProperty = "X-FORCETERM-IMPORT-ERROR"
    public static let errorKey = "importError"

    /// `contacts.csv` → `contacts.rejected.csv`, beside it.
    public static func path(beside input: String, format: ExchangeFormat) -> String {
        let slash = input.lastIndex(of: "/").map { input.index(after: $0) } ?? input.startIndex
        let name = input[slash...]
        let base = name.lastIndex(of: ".").map { name[..<$0] } ?? name
        let ext =
            switch format {
            case .csv: "csv"
            case .vcard: "vcf"
            case .json: "json"
            }
        return String(input[..<slash]) + base + ".rejected." + ext
    }

    /// The rejected rows with their reasons (every problem of a row, joined), in file order.
    /// `header`: a CSV file's header row.
    public static func text(format: ExchangeFormat, rows: [ImportRow], problems: [ImportProblem], header: [String]) -> String {
        // By record where the problem says which (several JSON records can share a line), else by line.
        var byRecord: [Int: [String]] = [:]
        var byLine: [Int: [String]] = [:]
        for problem in problems {
            if let record = problem.record { byRecord[record, default: []].append(problem.message) } else { byLine[problem.line, default: []].append(problem.message) }
        }
        let rejected = rows.enumerated().compactMap { index, row -> (row: ImportRow, reason: String)? in
            let reasons = (byRecord[index] ?? []) + (byLine[row.line] ?? [])
            return reasons.isEmpty ? nil : (row, reasons.joined(separator: "; "))
        }
        switch format {
        case .csv:
            let existing = header.firstIndex { $0.caseInsensitiveCompare(errorColumn) == .orderedSame }
            var text = CSVText.row(existing == nil ? header + [errorColumn] : header)
            for (row, reason) in rejected {
                guard case let .csv(cells)? = row.original else { continue }
                var written = cells + Array(repeating: "", count: max(0, header.count - cells.count))
                if let existing {
                    written[existing] = reason
                } else {
                    // Under its column; cells beyond the header (the row's own problem) after it.
                    written.insert(reason, at: header.count)
                }
                text += CSVText.row(written)
            }
            return text
        case .vcard:
            var text = ""
            for (row, reason) in rejected {
                guard case let .vcard(lines)? = row.original, let end = lines.last else { continue }
                // An earlier round's reason goes, its folded continuation lines with it.
                var kept: [String] = []
                var inOldReason = false
                for line in lines.dropLast() {
                    if line.uppercased().hasPrefix(errorProperty + ":") {
                        inOldReason = true
                    } else if inOldReason, line.first == " " || line.first == "\t" {
                        continue
                    } else {
                        inOldReason = false
                        kept.append(line)
                    }
                }
                let line = VCardFormat.fold(errorProperty + ":" + VCardFormat.escape(reason))
                text += (kept + [line, end]).joined(separator: "\r\n") + "\r\n"
            }
            return text
        case .json:
            let objects: [JSONValue] = rejected.compactMap { row, reason in
                guard case var .json(object)? = row.original else { return nil }
                object[errorKey] = .string(reason)
                return .object(object)
            }
            return "[\n" + objects.map { JSONWriter.string($0, pretty: false) }.joined(separator: ",\n") + "\n]\n"
        }
    }
}
