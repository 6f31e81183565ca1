extension StringProtocol {
    /// The text broken into lines of at most `width` columns: at spaces where possible, inside a
    /// word when a word is wider than a line, and at every newline. Never splits a grapheme cluster.
    public func wrapped(toWidth width: Int) -> [String] {
        guard width > 0 else { return [] }
        var lines: [String] = []
        for paragraph in split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            var lineWidth = 0
            for word in paragraph.split(separator: " ", omittingEmptySubsequences: false) {
                let wordWidth = word.displayWidth
                let gap = line.isEmpty ? 0 : 1
                if lineWidth + gap + wordWidth <= width {
                    if gap == 1 { line += " " }
                    line += word
                    lineWidth += gap + wordWidth
                    continue
                }
                if !line.isEmpty { lines.append(line) }
                line = ""
                lineWidth = 0
                for character in word {
                    let characterWidth = DisplayWidth.of(character)
                    if lineWidth + characterWidth > width {
                        lines.append(line)
                        line = ""
                        lineWidth = 0
                    }
                    line.append(character)
                    lineWidth += characterWidth
                }
            }
            lines.append(line)
        }
        return lines
    }
}
