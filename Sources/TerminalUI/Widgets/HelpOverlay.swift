/// The `?` screen: sections of key and help lines, taken from the keymap table.
public enum HelpOverlay {
    public struct Section: Sendable {
        public let title: String
        public let lines: [(keys: String, help: String)]
        public init(title: String, lines: [(keys: String, help: String)]) {
            self.title = title
            self.lines = lines
        }
    }

    /// Text shown above the keys, line by line as given (e.g. `forceterm --demo`'s org details,
    /// laid out by the caller for the narrowest screen).
    public struct Notes: Sendable, Equatable {
        public let title: String
        public let lines: [String]
        public init(title: String, lines: [String]) {
            self.title = title
            self.lines = lines
        }
    }

    /// Where the keys go: the box's inside (below fixed notes, wrapped to its width), columns and rows.
    struct Geometry {
        var box: Rect
        var inner: Rect
        /// Notes drawn above the keys, or nil when they scroll with them (`scrollingNotes`).
        var fixedNotes: Notes?
        var scrollingNotes: Notes?
        var keyWidth: Int
        var columnCount: Int
        var columnWidth: Int
        var rowsPerColumn: Int
        var helpWidth: Int

        init(area: Rect, notes: Notes?) {
            box = area.inset(by: area.width >= 90 ? 2 : 0)
            var inner = box.inset(by: 1)
            let notes = notes.map { Notes(title: $0.title, lines: $0.lines(fittedTo: inner.width - 2)) }
            // Notes that would leave the keys less than half the box scroll with them instead.
            let half = inner.height / 2
            let scrollingNotes = notes.flatMap { $0.lines.count + 2 > half ? $0 : nil }
            self.scrollingNotes = scrollingNotes
            fixedNotes = scrollingNotes == nil ? notes : nil
            if let fixedNotes {
                let shown = max(min(fixedNotes.lines.count, inner.maxY - 2 - inner.y), 0)
                let y = inner.y + 1 + shown
                inner = Rect(x: inner.x, y: y + 1, width: inner.width, height: max(inner.maxY - y - 1, 0))
            }
            self.inner = inner
            keyWidth = min(18, inner.width / 3)
            // Two columns of sections when there is room, else one; scrolling notes are as wide as
            // their caller laid them out, so they take the one column.
            columnCount = inner.width >= 96 && scrollingNotes == nil ? 2 : 1
            columnWidth = inner.width / columnCount
            rowsPerColumn = max(inner.height - 1, 0)
            helpWidth = max(columnWidth - keyWidth - 3, 1)
        }

        /// The sections placed whole in columns, when they fit unscrolled.
        func wholeSections(_ sections: [Section]) -> [[Row]]? {
            guard scrollingNotes == nil else { return nil }
            return placeWholeSections(sections, columns: columnCount, rows: rowsPerColumn, helpWidth: helpWidth)
        }

        /// Every row, notes first when they scroll, for a screen that scrolls.
        func flowingRows(_ sections: [Section]) -> [Row] {
            let noteRows = scrollingNotes.map { [Row.title($0.title)] + $0.lines.map(Row.text) + [Row.blank] } ?? []
            return noteRows + Array(sections.map { HelpOverlay.rows(of: $0, helpWidth: helpWidth) }.joined())
        }
    }

    /// How far the keys scroll on a screen this size: 0 when they fit, else until the last row shows.
    public static func scrollLimit(within area: Rect, sections: [Section], notes: Notes? = nil) -> Int {
        let geometry = Geometry(area: area, notes: notes)
        if geometry.wholeSections(sections) != nil { return 0 }
        var rows = geometry.flowingRows(sections)
        while case .blank? = rows.last { rows.removeLast() }
        return max(rows.count - geometry.rowsPerColumn * geometry.columnCount, 0)
    }

    public static func draw(
        in canvas: inout Canvas, within area: Rect, sections: [Section], footer: String, notes: Notes? = nil,
        scroll: Int = 0, theme: Theme
    ) {
        let geometry = Geometry(area: area, notes: notes)
        Box.draw(in: &canvas, geometry.box, theme: theme, title: "Keys (? or Esc closes)")
        let inner = geometry.inner
        if let notes = geometry.fixedNotes {
            let top = geometry.box.inset(by: 1)
            var y = top.y
            canvas.draw(notes.title, x: top.x + 1, y: y, style: theme.style(.title), maxWidth: top.width - 2)
            y += 1
            for line in notes.lines where y < top.maxY - 1 {
                canvas.draw(line.truncated(toWidth: top.width - 2, ellipsis: theme.lines.ellipsis), x: top.x + 1, y: y)
                y += 1
            }
        }
        var hidden = false
        if scroll == 0, let placed = geometry.wholeSections(sections) {
            for (column, sectionRows) in placed.enumerated() {
                drawRows(
                    sectionRows, in: &canvas, x: inner.x + 1 + column * geometry.columnWidth, y: inner.y, keyWidth: geometry.keyWidth,
                    width: geometry.columnWidth, theme: theme)
            }
        } else {
            // Too many keys for the screen: the rows flow from column to column and scroll.
            var rows = geometry.flowingRows(sections)
            rows.removeFirst(min(scroll, max(rows.count - 1, 0)))
            for column in 0..<geometry.columnCount {
                let slice = Array(rows.prefix(geometry.rowsPerColumn))
                rows.removeFirst(slice.count)
                drawRows(
                    slice, in: &canvas, x: inner.x + 1 + column * geometry.columnWidth, y: inner.y, keyWidth: geometry.keyWidth,
                    width: geometry.columnWidth, theme: theme)
            }
            hidden = rows.contains { if case .blank = $0 { false } else { true } }
        }
        let more = hidden ? "j/↓ more keys · " : (scroll > 0 ? "k/↑ back to the top · " : "")
        canvas.draw(
            (more + footer).truncated(toWidth: inner.width - 2, ellipsis: theme.lines.ellipsis), x: inner.x + 1, y: inner.maxY - 1,
            style: theme.style(.hint))
    }

    enum Row {
        case title(String)
        case line(keys: String, help: String)
        /// A line of the notes, drawn as given.
        case text(String)
        case blank
    }

    /// A section's rows: its title, each key with its help wrapped under itself (not cut), a blank.
    static func rows(of section: Section, helpWidth: Int) -> [Row] {
        var rows = [Row.title(section.title)]
        for line in section.lines {
            let parts = line.help.wrapped(toWidth: helpWidth)
            rows.append(.line(keys: line.keys, help: parts.first ?? ""))
            rows += parts.dropFirst().map { Row.line(keys: "", help: $0) }
        }
        return rows + [.blank]
    }

    /// Whole sections per column, a section moving to the next column when it does not fit; `nil`
    /// when some section finds no room.
    static func placeWholeSections(_ sections: [Section], columns: Int, rows: Int, helpWidth: Int) -> [[Row]]? {
        var placed: [[Row]] = [[]]
        for section in sections {
            let sectionRows = self.rows(of: section, helpWidth: helpWidth)
            if placed[placed.count - 1].count + sectionRows.count - 1 > rows, !placed[placed.count - 1].isEmpty {
                guard placed.count < columns else { return nil }
                placed.append([])
            }
            guard placed[placed.count - 1].count + sectionRows.count - 1 <= rows else { return nil }
            placed[placed.count - 1] += sectionRows
        }
        return placed
    }

    static func drawRows(_ rows: [Row], in canvas: inout Canvas, x: Int, y: Int, keyWidth: Int, width: Int, theme: Theme) {
        for (offset, row) in rows.enumerated() {
            switch row {
            case let .title(title):
                canvas.draw(title, x: x, y: y + offset, style: theme.style(.title), maxWidth: width - 2)
            case let .line(keys, help):
                canvas.draw(keys.fitted(toWidth: keyWidth, ellipsis: theme.lines.ellipsis), x: x, y: y + offset, style: theme.style(.label))
                canvas.draw(help.truncated(toWidth: max(width - keyWidth - 3, 1), ellipsis: theme.lines.ellipsis), x: x + keyWidth + 1, y: y + offset)
            case let .text(text):
                canvas.draw(text.truncated(toWidth: max(width - 2, 1), ellipsis: theme.lines.ellipsis), x: x, y: y + offset)
            case .blank:
                break
            }
        }
    }
}

extension HelpOverlay.Notes {
    /// The lines as they fit `width`: one too long goes on below, under its value (after the
    /// label's run of spaces, as in `Requests  tail -f …`), rather than being cut.
    func lines(fittedTo width: Int) -> [String] {
        lines.flatMap { line -> [String] in
            guard line.displayWidth > width, width >= 20 else { return [line] }
            guard let gap = line.range(of: "  +", options: .regularExpression), line[..<gap.upperBound].displayWidth <= width / 2 else {
                return line.wrapped(toWidth: width)
            }
            let indent = line[..<gap.upperBound].displayWidth
            let value = String(line[gap.upperBound...]).wrapped(toWidth: width - indent)
            return [String(line[..<gap.upperBound]) + (value.first ?? "")] + value.dropFirst().map { String(repeating: " ", count: indent) + $0 }
        }
    }
}
