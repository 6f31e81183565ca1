import ContactsApp

/// One line of a detail pane.
public enum DetailLine: Sendable, Equatable {
    /// A field: label and value; long values wrap under the value column.
    case field(label: String, value: String)
    case heading(String)
    /// Free text (an error message) wrapped to the pane, in `role`'s style.
    case text(String, role: StyleRole)
    /// A selectable sub-list row (an account's contacts).
    case row(ListRow, selected: Bool)
    case blank
    /// The column titles over `comparison` lines ("Mine", "Server's").
    case comparisonHeader(left: String, right: String)
    /// One field of two versions side by side; `differs` highlights both values.
    case comparison(label: String, left: String, right: String, differs: Bool)
}

/// A read-only pane of labelled fields, headings and text, cut to its rectangle.
public enum DetailWidget {
    /// Below this width two versions are stacked (label, then one line each) instead of side by side.
    public static let sideBySideComparisonWidth = 50

    /// The keys that scroll a pane, named in its "more lines" rows.
    public struct ScrollKeys: Sendable, Equatable {
        public var up: String
        public var down: String
        public init(up: String, down: String) {
            self.up = up
            self.down = down
        }
    }

    /// Draws the title and the lines scrolled by `scroll` content rows (clamped). When the lines do
    /// not fit, the row under the title says how many are above and the last row how many are
    /// below, with `keys`, the keys that scroll, when there are any.
    public static func draw(
        in canvas: inout Canvas, _ rect: Rect, title: String, lines: [DetailLine], theme: Theme, labelWidth: Int = 14,
        scroll: Int = 0, keys: ScrollKeys? = nil
    ) {
        canvas.fill(rect)
        guard rect.width > 4, rect.height > 0 else { return }
        let ellipsis = theme.lines.ellipsis
        canvas.draw(title.truncated(toWidth: rect.width - 1, ellipsis: ellipsis), x: rect.x + 1, y: rect.y, style: theme.style(.title))
        let content = layOut(lines, width: rect.width, theme: theme, labelWidth: labelWidth)
        let viewport = DetailViewport(contentRows: content.rows, windowRows: rect.height - 2, selectedRow: content.selectedRow)
        let shown = viewport.shownRows(from: scroll)
        guard !shown.isEmpty else { return }
        canvas.paste(content.canvas, rows: shown, x: rect.x, y: rect.y + 2)
        let hint = theme.style(.hint)
        if shown.lowerBound > 0 {
            let text = "↑ \(shown.lowerBound) more line\(shown.lowerBound == 1 ? "" : "s")" + (keys.map { ": " + $0.up } ?? "")
            canvas.draw(text.truncated(toWidth: rect.width - 2, ellipsis: ellipsis), x: rect.x + 1, y: rect.y + 1, style: hint)
        }
        let below = viewport.rowsBelow(from: scroll)
        if below > 0 {
            let text = "↓ \(below) more line\(below == 1 ? "" : "s")" + (keys.map { ": " + $0.down } ?? "")
            let y = rect.y + 2 + shown.count
            canvas.fill(Rect(x: rect.x, y: y, width: rect.width, height: 1))
            canvas.draw(text.truncated(toWidth: rect.width - 2, ellipsis: ellipsis), x: rect.x + 1, y: y, style: hint)
        }
    }

    /// How `lines` fit a pane of `rect`'s size: their rows once wrapped, the window below the title,
    /// and the highlighted row. The model scrolls within it.
    public static func viewport(of lines: [DetailLine], in rect: Rect, theme: Theme, labelWidth: Int = 14) -> DetailViewport {
        guard rect.width > 4, rect.height > 0 else { return .empty }
        let content = layOut(lines, width: rect.width, theme: theme, labelWidth: labelWidth)
        return DetailViewport(contentRows: content.rows, windowRows: rect.height - 2, selectedRow: content.selectedRow)
    }

    /// Every line drawn into a canvas of the pane's width and as tall as they need.
    private static func layOut(_ lines: [DetailLine], width: Int, theme: Theme, labelWidth: Int) -> (canvas: Canvas, rows: Int, selectedRow: Int?) {
        var height = max(lines.count * 2, 16)
        while true {
            var content = Canvas(size: Size(width: width, height: height))
            let drawn = drawLines(lines, in: &content, Rect(x: 0, y: 0, width: width, height: height), theme: theme, labelWidth: labelWidth)
            if drawn.complete { return (content, drawn.rows, drawn.selectedRow) }
            height *= 2
        }
    }

    /// Draws `lines` from the top of `rect`; `complete` is false when they did not all fit.
    private static func drawLines(
        _ lines: [DetailLine], in canvas: inout Canvas, _ rect: Rect, theme: Theme,
        labelWidth: Int
    ) -> (rows: Int, complete: Bool, selectedRow: Int?) {
        let ellipsis = theme.lines.ellipsis
        var y = rect.y
        var selectedRow: Int?
        let labelColumns = min(labelWidth, rect.width / 3)
        let valueX = rect.x + 1 + labelColumns + 2
        let valueWidth = max(rect.maxX - valueX, 1)
        for line in lines {
            guard y < rect.maxY else { return (y - rect.y, false, selectedRow) }
            switch line {
            case let .field(label, value):
                canvas.draw(label.fitted(toWidth: labelColumns, alignment: .right, ellipsis: ellipsis), x: rect.x + 1, y: y, style: theme.style(.label))
                let wrapped = value.isEmpty ? [""] : value.wrapped(toWidth: valueWidth)
                for (index, part) in wrapped.enumerated() where y + index < rect.maxY {
                    canvas.draw(part, x: valueX, y: y + index, maxWidth: valueWidth)
                }
                y += max(wrapped.count, 1)
            case let .heading(text):
                canvas.draw(text.truncated(toWidth: rect.width - 1, ellipsis: ellipsis), x: rect.x + 1, y: y, style: theme.style(.title))
                y += 1
            case let .text(text, role):
                for part in text.wrapped(toWidth: rect.width - 2) {
                    canvas.draw(part, x: rect.x + 1, y: y, style: theme.style(role))
                    y += 1
                }
            case let .row(row, selected):
                ListWidget.draw(
                    in: &canvas, Rect(x: rect.x + 1, y: y, width: rect.width - 1, height: 1), rows: [row],
                    selectedRow: selected ? 0 : nil, focused: true, theme: theme, emptyMessage: "")
                if selected { selectedRow = y - rect.y }
                y += 1
            case .blank:
                y += 1
            case let .comparisonHeader(left, right):
                y = drawComparison(in: &canvas, rect, y: y, label: "", left: left, right: right, style: theme.style(.title), labelColumns: labelColumns, theme: theme)
            case let .comparison(label, left, right, differs):
                y = drawComparison(
                    in: &canvas, rect, y: y, label: label, left: left, right: right,
                    style: theme.style(differs ? .changed : .normal), labelColumns: labelColumns, theme: theme)
            }
        }
        // Strictly inside: a comparison cut at the very bottom returns the bottom row.
        return (y - rect.y, y < rect.maxY, selectedRow)
    }

    /// One comparison row: label, then the two values in equal columns cut to fit; on a narrow pane,
    /// the label with the two values stacked under it. Returns the next free row.
    private static func drawComparison(
        in canvas: inout Canvas, _ rect: Rect, y: Int, label: String, left: String, right: String, style: CellStyle,
        labelColumns: Int, theme: Theme
    ) -> Int {
        let ellipsis = theme.lines.ellipsis
        let labelStyle = theme.style(.label)
        if rect.width >= sideBySideComparisonWidth {
            let valueX = rect.x + 1 + labelColumns + 2
            let columnWidth = max((rect.maxX - valueX - 2) / 2, 1)
            canvas.draw(label.fitted(toWidth: labelColumns, alignment: .right, ellipsis: ellipsis), x: rect.x + 1, y: y, style: labelStyle)
            canvas.draw(left.truncated(toWidth: columnWidth, ellipsis: ellipsis), x: valueX, y: y, style: style)
            canvas.draw(right.truncated(toWidth: columnWidth, ellipsis: ellipsis), x: valueX + columnWidth + 2, y: y, style: style)
            return y + 1
        }
        var next = y
        let width = max(rect.width - 4, 1)
        if !label.isEmpty {
            canvas.draw(label.truncated(toWidth: rect.width - 2, ellipsis: ellipsis), x: rect.x + 1, y: next, style: labelStyle)
            next += 1
            guard next < rect.maxY else { return next }
            canvas.draw(("1 " + left).truncated(toWidth: width, ellipsis: ellipsis), x: rect.x + 3, y: next, style: style)
            next += 1
            guard next < rect.maxY else { return next }
            canvas.draw(("2 " + right).truncated(toWidth: width, ellipsis: ellipsis), x: rect.x + 3, y: next, style: style)
            return next + 1
        }
        canvas.draw("1 \(left) / 2 \(right)".truncated(toWidth: rect.width - 2, ellipsis: ellipsis), x: rect.x + 1, y: next, style: style)
        return next + 1
    }
}
