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

    public static func draw(in canvas: inout Canvas, _ rect: Rect, title: String, lines: [DetailLine], theme: Theme, labelWidth: Int = 14) {
        canvas.fill(rect)
        guard rect.width > 4, rect.height > 0 else { return }
        let ellipsis = theme.lines.ellipsis
        canvas.draw(title.truncated(toWidth: rect.width - 1, ellipsis: ellipsis), x: rect.x + 1, y: rect.y, style: theme.style(.title))
        var y = rect.y + 2
        let labelColumns = min(labelWidth, rect.width / 3)
        let valueX = rect.x + 1 + labelColumns + 2
        let valueWidth = max(rect.maxX - valueX, 1)
        for line in lines {
            guard y < rect.maxY else { break }
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
                for part in text.wrapped(toWidth: rect.width - 2) where y < rect.maxY {
                    canvas.draw(part, x: rect.x + 1, y: y, style: theme.style(role))
                    y += 1
                }
            case let .row(row, selected):
                ListWidget.draw(
                    in: &canvas, Rect(x: rect.x + 1, y: y, width: rect.width - 1, height: 1), rows: [row],
                    selectedRow: selected ? 0 : nil, focused: true, theme: theme, emptyMessage: "")
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
