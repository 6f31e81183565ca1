/// How the detail pane's lines fit its rows, as the screen last drew them. A record's fields (or an
/// account's contacts) can outgrow a short terminal; the model scrolls the pane within this.
public struct DetailViewport: Sendable, Equatable {
    /// Rows the pane's lines take once wrapped to its width.
    public var contentRows: Int
    /// Rows the pane has for them (below its title).
    public var windowRows: Int
    /// The row of the highlighted line (an account's selected contact), if there is one.
    public var selectedRow: Int?

    public init(contentRows: Int, windowRows: Int, selectedRow: Int? = nil) {
        self.contentRows = max(contentRows, 0)
        self.windowRows = max(windowRows, 0)
        self.selectedRow = selectedRow
    }

    public static let empty = DetailViewport(contentRows: 0, windowRows: 0)

    /// The furthest the pane scrolls: its last line at the bottom of the window.
    public var scrollLimit: Int { max(contentRows - windowRows, 0) }

    public func clamped(_ scroll: Int) -> Int { min(max(scroll, 0), scrollLimit) }

    /// The content rows shown when scrolled by `scroll`: one fewer while more lie below, as the
    /// window's last row then says how many.
    public func shownRows(from scroll: Int) -> Range<Int> {
        let top = clamped(scroll)
        let room = top < scrollLimit ? max(windowRows - 1, 1) : windowRows
        return top..<min(top + room, contentRows)
    }

    /// Rows below the window when scrolled by `scroll`.
    public func rowsBelow(from scroll: Int) -> Int { max(contentRows - shownRows(from: scroll).upperBound, 0) }

    /// The nearest scroll that shows `row`, starting from `scroll`.
    public func revealing(_ row: Int, from scroll: Int) -> Int {
        var top = clamped(scroll)
        if row < top { return clamped(row) }
        while row >= shownRows(from: top).upperBound, top < scrollLimit { top += 1 }
        return top
    }

    /// How far a page key moves: the window less a row of overlap.
    public var pageRows: Int { max(windowRows - 2, 1) }
}
