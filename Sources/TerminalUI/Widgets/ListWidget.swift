/// One row of a list: a marker column, a name, and a dimmer second column.
public struct ListRow: Sendable, Equatable {
    public let marker: String
    public let markerStyle: CellStyle
    public let primary: String
    public let secondary: String
    /// Drawn dim (a locally deleted record).
    public let dimmed: Bool

    public init(marker: String, markerStyle: CellStyle, primary: String, secondary: String, dimmed: Bool) {
        self.marker = marker
        self.markerStyle = markerStyle
        self.primary = primary
        self.secondary = secondary
        self.dimmed = dimmed
    }
}

/// A list pane: the visible rows, the selected one highlighted (reverse when the pane has focus,
/// underlined when not). Columns are cut by display width, so wide characters never shift a row.
public enum ListWidget {
    public static func draw(
        in canvas: inout Canvas, _ rect: Rect, rows: [ListRow], selectedRow: Int?, focused: Bool, theme: Theme,
        emptyMessage: String
    ) {
        canvas.fill(rect)
        guard rect.width > 4, rect.height > 0 else { return }
        if rows.isEmpty {
            canvas.draw(emptyMessage.truncated(toWidth: rect.width - 2, ellipsis: theme.lines.ellipsis), x: rect.x + 2, y: rect.y, style: theme.style(.hint))
            return
        }
        let textWidth = rect.width - 2
        let primaryWidth = max(textWidth * 11 / 20, min(textWidth, 12))
        let secondaryWidth = max(textWidth - primaryWidth - 1, 0)
        for (offset, row) in rows.prefix(rect.height).enumerated() {
            let y = rect.y + offset
            let base = row.dimmed ? theme.style(.dimmed) : theme.style(.normal)
            canvas.draw(row.marker.fitted(toWidth: 1), x: rect.x, y: y, style: row.markerStyle)
            canvas.draw(row.primary.fitted(toWidth: primaryWidth, ellipsis: theme.lines.ellipsis), x: rect.x + 2, y: y, style: base)
            if secondaryWidth > 0 {
                let secondaryStyle = row.dimmed ? base : theme.style(.hint)
                canvas.draw(
                    row.secondary.fitted(toWidth: secondaryWidth, ellipsis: theme.lines.ellipsis), x: rect.x + 3 + primaryWidth, y: y,
                    style: secondaryStyle)
            }
            if offset == selectedRow {
                canvas.restyle(
                    Rect(x: rect.x + 1, y: y, width: rect.width - 1, height: 1),
                    style: theme.style(focused ? .selection : .selectionInactive))
            }
        }
    }
}
