/// One field as the form widget shows it.
public struct FormFieldView: Sendable, Equatable {
    public let label: String
    public let value: String
    /// The cursor in characters from the start of `value`.
    public let cursor: Int
    public let required: Bool
    public let problem: String?
    /// Shown dimmed: the org does not let this user set it.
    public let readOnly: Bool

    public init(label: String, value: String, cursor: Int, required: Bool, problem: String?, readOnly: Bool = false) {
        self.label = label
        self.value = value
        self.cursor = cursor
        self.required = required
        self.problem = problem
        self.readOnly = readOnly
    }
}

/// An edit form: a title and an optional note under it, a label column, one input line per field
/// (scrolled sideways so the cursor stays visible), a problem line under any field that has one,
/// and a hint line. Places the terminal cursor in the focused field.
public enum FormWidget {
    public static func draw(
        in canvas: inout Canvas, _ rect: Rect, title: String, fields: [FormFieldView], focusedIndex: Int, hint: String,
        theme: Theme, labelWidth: Int = 14, note: String? = nil
    ) {
        canvas.fill(rect)
        guard rect.width > 8, rect.height > 2 else { return }
        let ellipsis = theme.lines.ellipsis
        canvas.draw(title.truncated(toWidth: rect.width - 1, ellipsis: ellipsis), x: rect.x + 1, y: rect.y, style: theme.style(.title))
        if let note { canvas.draw(note.truncated(toWidth: rect.width - 1, ellipsis: ellipsis), x: rect.x + 1, y: rect.y + 1, style: theme.style(.hint)) }
        let labelColumns = min(labelWidth, rect.width / 3)
        let inputX = rect.x + 1 + labelColumns + 2
        let inputWidth = max(rect.maxX - inputX - 1, 1)
        // Rows needed: one per field plus one per problem; scroll so the focused field is shown.
        var rows: [(fieldIndex: Int, isProblem: Bool)] = []
        for (index, field) in fields.enumerated() {
            rows.append((index, false))
            if field.problem != nil { rows.append((index, true)) }
        }
        let available = max(rect.height - 3, 1)
        let focusRow = rows.firstIndex { $0.fieldIndex == focusedIndex && !$0.isProblem } ?? 0
        let firstRow = max(0, min(focusRow - available + 2, rows.count - available))
        var y = rect.y + 2
        for row in rows.dropFirst(firstRow).prefix(available) {
            let field = fields[row.fieldIndex]
            if row.isProblem {
                let marker = theme.lines == .ascii ? "^ " : "↳ "
                canvas.draw((marker + (field.problem ?? "")).truncated(toWidth: rect.maxX - inputX, ellipsis: ellipsis), x: inputX, y: y, style: theme.style(.fieldError))
            } else {
                let label = field.label + (field.required ? "*" : "")
                canvas.draw(label.fitted(toWidth: labelColumns, alignment: .right, ellipsis: ellipsis), x: rect.x + 1, y: y, style: theme.style(.label))
                let focused = row.fieldIndex == focusedIndex
                let (visible, cursorColumn) = window(field.value, cursor: field.cursor, width: inputWidth)
                let style = focused ? theme.style(.fieldFocused) : theme.style(field.readOnly ? .hint : .normal)
                canvas.draw(visible.padded(toWidth: inputWidth), x: inputX, y: y, style: style)
                if focused { canvas.cursor = Point(x: inputX + cursorColumn, y: y) }
            }
            y += 1
        }
        canvas.draw(hint.truncated(toWidth: rect.width - 1, ellipsis: ellipsis), x: rect.x + 1, y: rect.maxY - 1, style: theme.style(.hint))
    }

    /// The part of `value` to show in `width` columns so the cursor is visible, and the cursor's
    /// column in it.
    static func window(_ value: String, cursor: Int, width: Int) -> (String, Int) {
        let characters = Array(value)
        let cursor = min(max(cursor, 0), characters.count)
        var start = 0
        // Scroll right until the text before the cursor (plus the cursor cell) fits.
        while start < cursor, String(characters[start..<cursor]).displayWidth + 1 > width { start += 1 }
        let shown = String(characters[start...]).clipped(toWidth: width)
        return (shown, String(characters[start..<cursor]).displayWidth)
    }
}
