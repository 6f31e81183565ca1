extension String {
    /// The text on one line, for a summary or status line: Salesforce's SOQL errors come over
    /// several lines, with a caret under the column at fault.
    public var oneLine: String {
        split(whereSeparator: { $0.isNewline }).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && $0 != "^" }.joined(separator: " ")
    }
}
