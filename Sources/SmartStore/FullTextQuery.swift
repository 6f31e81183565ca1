/// Builds FTS5 match expressions from text a person typed, so quotes, operators and punctuation in
/// a search box are searched for rather than parsed.
public enum FullTextQuery {
    /// Every word must start a word of the entry: `jo gar` → `"jo"* "gar"*`. `nil` when there is
    /// nothing to search for (only spaces or punctuation).
    public static func prefixTerms(_ typed: String) -> String? {
        let words = typed.split { $0.isWhitespace }.compactMap { word -> String? in
            // A double quote would end the FTS5 string; FTS5 escapes it by doubling.
            let escaped = String(word).replacingAll("\"", with: "\"\"")
            let searchable = word.contains { $0.isLetter || $0.isNumber }
            return searchable ? "\"\(escaped)\"*" : nil
        }
        return words.isEmpty ? nil : words.joined(separator: " ")
    }
}
