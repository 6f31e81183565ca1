/// Builds FTS5 match expressions from text a person typed, so quotes, operators and punctuation in
/// a search box are searched for rather than parsed.
public enum FullTextQuery {
    /// Every word must start a word of the entry: `jo gar` → `"jo"* AND "gar"*`. CJK text, written
    /// without spaces, is found anywhere in a run: its characters as a phrase of the single
    /// characters `FullTextExtras` indexes (`テクノ` → `("テ ク ノ" OR "テクノ"*)`). `nil` when there is nothing to
    /// search for (only spaces or punctuation).
    public static func prefixTerms(_ typed: String) -> String? {
        let words = typed.split { $0.isWhitespace }.flatMap { word -> [String] in
            var terms: [String] = []
            var plain = ""
            func endPlain() {
                // A double quote would end the FTS5 string; FTS5 escapes it by doubling.
                if plain.contains(where: { $0.isLetter || $0.isNumber }) { terms.append("\"\(plain.replacingAll("\"", with: "\"\""))\"*") }
                plain = ""
            }
            for run in segments(word) {
                switch run {
                case let .plain(text): plain += text
                case let .cjk(characters):
                    endPlain()
                    // Or the run as a word's start, as an index made without the extras (by the
                    // SDK, or before they existed) still finds it.
                    terms.append("(\"" + characters.map(String.init).joined(separator: " ") + "\" OR \"" + String(characters) + "\"*)")
                }
            }
            endPlain()
            return terms
        }
        // AND spelled out: FTS5 does not join a parenthesised group to the next term implicitly.
        return words.isEmpty ? nil : words.joined(separator: " AND ")
    }

    enum Segment { case plain(String), cjk([Character]) }

    static func segments(_ word: some StringProtocol) -> [Segment] {
        var segments: [Segment] = []
        var plain = ""
        var cjk: [Character] = []
        for character in word {
            if let scalar = character.unicodeScalars.first, FullTextExtras.isCJK(scalar) {
                if !plain.isEmpty {
                    segments.append(.plain(plain))
                    plain = ""
                }
                cjk.append(character)
            } else {
                if !cjk.isEmpty {
                    segments.append(.cjk(cjk))
                    cjk = []
                }
                plain.append(character)
            }
        }
        if !plain.isEmpty { segments.append(.plain(plain)) }
        if !cjk.isEmpty { segments.append(.cjk(cjk)) }
        return segments
    }
}
