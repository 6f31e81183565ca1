/// The eight ANSI colours plus the terminal's own default, which is all ncurses promises everywhere.
public enum TerminalColor: Int, Sendable, CaseIterable {
    case standard = -1
    case black = 0, red, green, yellow, blue, magenta, cyan, white
}

/// How one cell is drawn: colours plus the attributes a monochrome terminal still shows.
public struct CellStyle: Sendable, Hashable {
    public var foreground: TerminalColor
    public var background: TerminalColor
    public var bold: Bool
    public var dim: Bool
    public var reverse: Bool
    public var underline: Bool

    public init(
        foreground: TerminalColor = .standard, background: TerminalColor = .standard, bold: Bool = false,
        dim: Bool = false, reverse: Bool = false, underline: Bool = false
    ) {
        self.foreground = foreground
        self.background = background
        self.bold = bold
        self.dim = dim
        self.reverse = reverse
        self.underline = underline
    }

    public static let plain = CellStyle()

    /// The same style without colours, for NO_COLOR, `--no-color` and terminals without colour.
    public var monochrome: CellStyle {
        CellStyle(bold: bold, dim: dim, reverse: reverse, underline: underline)
    }

    /// A one-letter code per attribute, for snapshot attribute maps: `R`everse, `B`old, `D`im,
    /// `U`nderline, `C`olour only, `.` plain.
    public var snapshotCode: Character {
        if reverse { return "R" }
        if bold { return "B" }
        if dim { return "D" }
        if underline { return "U" }
        if foreground != .standard || background != .standard { return "C" }
        return "."
    }
}
