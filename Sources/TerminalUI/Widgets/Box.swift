/// A frame around a rectangle, with an optional title in its top edge; the inside is cleared.
public enum Box {
    public static func draw(in canvas: inout Canvas, _ rect: Rect, theme: Theme, title: String? = nil, style: CellStyle = .plain) {
        guard rect.width >= 2, rect.height >= 2 else { return }
        let lines = theme.lines
        canvas.fill(rect, style: style)
        let horizontal = String(repeating: lines.horizontal, count: rect.width - 2)
        canvas.draw(lines.topLeft + horizontal + lines.topRight, x: rect.x, y: rect.y, style: style)
        canvas.draw(lines.bottomLeft + horizontal + lines.bottomRight, x: rect.x, y: rect.maxY - 1, style: style)
        for y in (rect.y + 1)..<(rect.maxY - 1) {
            canvas.draw(lines.vertical, x: rect.x, y: y, style: style)
            canvas.draw(lines.vertical, x: rect.maxX - 1, y: y, style: style)
        }
        if let title, rect.width > 6 {
            canvas.draw(" \(title.truncated(toWidth: rect.width - 6, ellipsis: lines.ellipsis)) ", x: rect.x + 2, y: rect.y, style: theme.style(.title))
        }
    }

    /// A vertical separator line from `top` for `height` rows at column `x`.
    public static func verticalLine(in canvas: inout Canvas, x: Int, top: Int, height: Int, theme: Theme) {
        for y in top..<(top + max(height, 0)) { canvas.draw(theme.lines.vertical, x: x, y: y, style: theme.style(.dimmed)) }
    }
}
