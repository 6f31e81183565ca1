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
}

/// A read-only pane of labelled fields, headings and text, cut to its rectangle.
public enum DetailWidget {
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
            }
        }
    }
}
