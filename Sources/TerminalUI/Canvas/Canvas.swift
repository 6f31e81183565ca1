/// A position on the screen, in cells from the top-left corner.
public struct Point: Sendable, Hashable {
    public var x: Int
    public var y: Int
    public init(x: Int, y: Int) {
        self.x = x
        self.y = y
    }
}

/// The screen's size in cells.
public struct Size: Sendable, Hashable {
    public var width: Int
    public var height: Int
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
}

/// A rectangle of cells, the area a widget draws into.
public struct Rect: Sendable, Hashable {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = max(width, 0)
        self.height = max(height, 0)
    }

    public var maxX: Int { x + width }
    public var maxY: Int { y + height }

    /// The rectangle shrunk by `amount` cells on every side.
    public func inset(by amount: Int) -> Rect {
        Rect(x: x + amount, y: y + amount, width: width - 2 * amount, height: height - 2 * amount)
    }

    /// A `width` x `height` rectangle centred in this one (clamped to fit).
    public func centered(width: Int, height: Int) -> Rect {
        let w = min(width, self.width)
        let h = min(height, self.height)
        return Rect(x: x + (self.width - w) / 2, y: y + (self.height - h) / 2, width: w, height: h)
    }
}

/// One screen cell: a grapheme cluster and its style. A wide character's second column is a
/// continuation cell (`text` empty) so every row always has exactly `width` cells.
public struct Cell: Sendable, Hashable {
    public var text: String
    public var style: CellStyle

    public init(text: String, style: CellStyle) {
        self.text = text
        self.style = style
    }

    public static let blank = Cell(text: " ", style: .plain)
    public var isContinuation: Bool { text.isEmpty }
}

/// The whole screen as a grid of cells. Widgets draw into it; a driver shows it (ncurses) or keeps it
/// for snapshots (memory). Drawing clips to the grid and never splits a wide character: a wide
/// character that does not fit becomes a space, and overwriting half of one blanks the other half.
public struct Canvas: Sendable, Equatable {
    public let size: Size
    public private(set) var cells: [Cell]
    /// Where the terminal cursor should be shown (a text field being edited), if anywhere.
    public var cursor: Point?

    public init(size: Size) {
        self.size = Size(width: max(size.width, 0), height: max(size.height, 0))
        cells = Array(repeating: .blank, count: self.size.width * self.size.height)
    }

    public subscript(x: Int, y: Int) -> Cell {
        guard x >= 0, y >= 0, x < size.width, y < size.height else { return .blank }
        return cells[y * size.width + x]
    }

    /// Fills `rect` with spaces in `style`.
    public mutating func fill(_ rect: Rect, style: CellStyle = .plain) {
        for y in Self.span(rect.y, rect.maxY, limit: size.height) {
            for x in Self.span(rect.x, rect.maxX, limit: size.width) {
                set(x: x, y: y, Cell(text: " ", style: style))
            }
        }
    }

    /// Draws `text` from (`x`, `y`), at most `maxWidth` columns (and never past the right edge).
    /// Control characters are shown as spaces. Returns the column after the last one drawn.
    @discardableResult
    public mutating func draw(_ text: String, x: Int, y: Int, style: CellStyle = .plain, maxWidth: Int? = nil) -> Int {
        guard y >= 0, y < size.height else { return x }
        let limit = min(size.width, x + (maxWidth ?? size.width))
        var column = x
        for character in text {
            var cluster = String(character)
            var width = DisplayWidth.of(character)
            if width == 0 {
                // Controls and stray marks: a visible space keeps the layout honest.
                if character.unicodeScalars.allSatisfy({ $0.value < 0x20 || (0x7F..<0xA0).contains($0.value) }) {
                    cluster = " "
                    width = 1
                } else {
                    continue
                }
            }
            if column + width > limit {
                if width == 2, column < limit, column >= 0 { set(x: column, y: y, Cell(text: " ", style: style)) }
                return limit
            }
            if column >= 0 {
                set(x: column, y: y, Cell(text: cluster, style: style))
                if width == 2 { set(x: column + 1, y: y, Cell(text: "", style: style)) }
            }
            column += width
        }
        return column
    }

    /// For `--ascii`: the symbols the screens use (and typographic ones in data, such as an em
    /// dash) become one-column ASCII look-alikes, so a terminal or font without them shows no
    /// boxes or question marks. Letters of any script are left as they are.
    public mutating func replaceSymbolsWithASCII() {
        for index in cells.indices {
            if let replacement = Self.asciiSymbols[cells[index].text] { cells[index].text = replacement }
        }
    }

    /// Every cell in ASCII, for a terminal whose locale is not UTF-8: letters without their accents
    /// (José → Jose), fullwidth forms as their ASCII twins, anything else as `?`; a wide character
    /// keeps its two columns (`?` and a blank), so the layout does not move.
    public mutating func transliterateToASCII() {
        replaceSymbolsWithASCII()
        var previousReplaced = false
        for index in cells.indices {
            let text = cells[index].text
            if cells[index].isContinuation {
                if previousReplaced { cells[index].text = " " }
                continue
            }
            previousReplaced = !text.allSatisfy(\.isASCII)
            if previousReplaced { cells[index].text = String(Self.asciiLetter(text)) }
        }
    }

    /// One ASCII character standing for `text` (one cell's character).
    static func asciiLetter(_ text: String) -> Character {
        if let special = asciiLetters[text] { return special }
        let folded = text.folding(options: [.diacriticInsensitive, .widthInsensitive, .caseInsensitive], locale: nil)
        if let first = folded.first, folded.count == 1, first.isASCII, first.isLetter || first.isNumber || first.isPunctuation {
            // Folding lowered the case; put it back.
            return text.first?.isUppercase == true ? Character(first.uppercased()) : first
        }
        return "?"
    }

    /// Letters that folding leaves as they are, each with the ASCII letter readers expect.
    static let asciiLetters: [String: Character] = [
        "ø": "o", "Ø": "O", "ł": "l", "Ł": "L", "đ": "d", "Đ": "D", "ß": "s", "æ": "a", "Æ": "A", "œ": "o", "Œ": "O",
        "ı": "i", "þ": "t", "Þ": "T", "ð": "d", "Ð": "D",
    ]

    static let asciiSymbols: [String: String] = [
        "·": ".", "•": "*", "↓": "v", "↑": "^", "→": ">", "←": "<", "▸": ">", "↳": "^", "≠": "#", "…": "~",
        "—": "-", "–": "-", "✓": "v", "✗": "x", "‘": "'", "’": "'", "“": "\"", "”": "\"", "×": "x", "│": "|", "─": "-",
    ]

    /// Changes the style of the cells in `rect`, keeping their text (a highlighted row).
    public mutating func restyle(_ rect: Rect, style: CellStyle) {
        for y in Self.span(rect.y, rect.maxY, limit: size.height) {
            for x in Self.span(rect.x, rect.maxX, limit: size.width) {
                cells[y * size.width + x].style = style
            }
        }
    }

    /// Copies `source`'s rows `rows`, cell for cell, to this canvas from (`x`, `y`): a pane laid out
    /// off screen and shown scrolled.
    public mutating func paste(_ source: Canvas, rows: Range<Int>, x: Int, y: Int) {
        for (offset, row) in rows.enumerated() where row >= 0 && row < source.size.height {
            for column in 0..<source.size.width {
                set(x: x + column, y: y + offset, source.cells[row * source.size.width + column])
            }
        }
    }

    /// `start..<end` clipped to `0..<limit`, empty rather than invalid when they do not overlap.
    private static func span(_ start: Int, _ end: Int, limit: Int) -> Range<Int> {
        let low = max(start, 0)
        return low..<max(min(end, limit), low)
    }

    private mutating func set(x: Int, y: Int, _ cell: Cell) {
        guard x >= 0, y >= 0, x < size.width, y < size.height else { return }
        let index = y * size.width + x
        // Overwriting either half of a wide character blanks the other half.
        if cells[index].isContinuation, x > 0, !cell.isContinuation {
            cells[index - 1] = Cell(text: " ", style: cells[index - 1].style)
        }
        if x + 1 < size.width, cells[index + 1].isContinuation, !cell.isContinuation, DisplayWidth.of(cell.text) < 2 {
            cells[index + 1] = Cell(text: " ", style: cells[index + 1].style)
        }
        cells[index] = cell
    }

    /// Row `y` as text, wide characters once (their continuation cells skipped).
    public func line(_ y: Int) -> String {
        guard y >= 0, y < size.height else { return "" }
        var text = ""
        for x in 0..<size.width where !self[x, y].isContinuation { text += self[x, y].text }
        return text
    }

    /// The screen as text, one line per row, trailing spaces kept so widths can be checked.
    public var text: String { (0..<size.height).map(line).joined(separator: "\n") }

    /// One code per cell (see `CellStyle.snapshotCode`), so a snapshot also catches a lost highlight.
    public var attributeMap: String {
        (0..<size.height).map { y in String((0..<size.width).map { self[$0, y].style.snapshotCode }) }
            .joined(separator: "\n")
    }
}
