/// Rows of cells under a header, each column padded or cut by display width so CJK, accents and
/// emoji never break the alignment; the selected row (if any) reversed.
public enum TableWidget {
    /// Column widths for `rows` under `headers` in `width` columns: each column as wide as its
    /// widest cell, then the widest shrunk until the table fits (never below 3).
    public static func widths(headers: [String], rows: [[String]], width: Int, gap: Int = 2) -> [Int] {
        var widths = headers.map(\.displayWidth)
        for row in rows {
            for (index, cell) in row.enumerated() where index < widths.count {
                widths[index] = max(widths[index], cell.displayWidth)
            }
        }
        let available = max(width - gap * max(widths.count - 1, 0), widths.count)
        while widths.reduce(0, +) > available, let widest = widths.indices.max(by: { widths[$0] < widths[$1] }), widths[widest] > 3 {
            widths[widest] -= 1
        }
        return widths
    }

    public static func draw(
        in canvas: inout Canvas, _ rect: Rect, headers: [String], rows: [[String]], selectedRow: Int?, theme: Theme,
        rowStyles: [StyleRole] = []
    ) {
        canvas.fill(rect)
        guard rect.width > 2, rect.height > 0 else { return }
        let gap = 2
        let widths = widths(headers: headers, rows: rows, width: rect.width - 2, gap: gap)
        let ellipsis = theme.lines.ellipsis
        func line(_ cells: [String]) -> String {
            widths.indices.map { index in
                (index < cells.count ? cells[index] : "").fitted(toWidth: widths[index], ellipsis: ellipsis)
            }.joined(separator: String(repeating: " ", count: gap))
        }
        canvas.draw(line(headers), x: rect.x + 1, y: rect.y, style: theme.style(.title), maxWidth: rect.width - 2)
        // More rows than fit: scrolled just enough to show the selected one.
        let visible = max(rect.height - 1, 0)
        let first = selectedRow.map { min(max(0, $0 - visible + 1), max(rows.count - visible, 0)) } ?? 0
        for (offset, row) in rows.dropFirst(first).prefix(visible).enumerated() {
            let y = rect.y + 1 + offset
            let index = first + offset
            let selected = index == selectedRow
            let role = selected ? StyleRole.selection : (index < rowStyles.count ? rowStyles[index] : .normal)
            if selected { canvas.fill(Rect(x: rect.x, y: y, width: rect.width, height: 1), style: theme.style(.selection)) }
            canvas.draw(line(row), x: rect.x + 1, y: y, style: theme.style(role), maxWidth: rect.width - 2)
        }
    }
}
