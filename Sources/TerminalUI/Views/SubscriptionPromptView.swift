import ContactsApp

/// The subscription prompt (`a`): a box over the tab with the condition being typed, wrapped so
/// all of it shows before it is stored (or, at the second step, the condition kept and the name
/// being typed), why the last Enter was refused, and the keys.
enum SubscriptionPromptView {
    /// Rows of typed text shown at most; a longer condition scrolls to keep the cursor in view.
    static let inputRows = 4

    static func draw(_ prompt: SubscriptionPrompt, in canvas: inout Canvas, within area: Rect, theme: Theme) {
        let width = min(max(area.width - 4, 20), 90)
        let inner = width - 4
        let naming = prompt.step == .name
        let label = naming ? "Name: " : "Where: "
        let fieldWidth = max(inner - label.displayWidth, 1)
        let errorLines = prompt.error.map { $0.wrapped(toWidth: inner) } ?? []
        let keptCondition = naming ? Array(prompt.condition.text.wrapped(toWidth: inner).prefix(inputRows)) : []
        let typed = rows(prompt.input.text, cursor: prompt.input.cursor, width: fieldWidth)
        let first = max(0, typed.row - inputRows + 1)
        let shown = Array(typed.rows[first..<min(typed.rows.count, first + inputRows)])
        let height = 5 + keptCondition.count + shown.count + errorLines.count
        let box = area.centered(width: width, height: min(height, area.height))
        Box.draw(in: &canvas, box, theme: theme, title: "Subscribe to \(prompt.plural) on the server", style: theme.style(.dialog))
        var y = box.y + 1
        for line in keptCondition {
            canvas.draw(line, x: box.x + 2, y: y, style: theme.style(.hint), maxWidth: inner)
            y += 1
        }
        canvas.draw(label, x: box.x + 2, y: y, style: theme.style(.label), maxWidth: inner)
        let fieldX = box.x + 2 + label.displayWidth
        for (index, row) in shown.enumerated() {
            canvas.fill(Rect(x: fieldX, y: y + index, width: fieldWidth, height: 1), style: theme.style(.fieldFocused))
            canvas.draw(row, x: fieldX, y: y + index, style: theme.style(.fieldFocused), maxWidth: fieldWidth)
        }
        canvas.cursor = Point(x: min(fieldX + typed.column, box.maxX - 3), y: y + typed.row - first)
        y += shown.count + 1
        for line in errorLines where y < box.maxY - 1 {
            canvas.draw(line, x: box.x + 2, y: y, style: theme.style(.fieldError), maxWidth: inner)
            y += 1
        }
        let keys =
            naming
            ? "Enter subscribes and fetches · Esc back to the condition"
            : "One SOQL condition over the fields the sync fetches · Enter next · Esc close"
        canvas.draw(keys, x: box.x + 2, y: box.maxY - 2, style: theme.style(.hint), maxWidth: inner)
    }

    /// `text` cut into rows of at most `width` columns (a wide character never split), with the
    /// cursor's row and column; the cursor after a full row starts the next.
    static func rows(_ text: String, cursor: Int, width: Int) -> (rows: [String], row: Int, column: Int) {
        var rows = [""]
        var used = 0
        var at = (row: 0, column: 0)
        for (index, character) in text.enumerated() {
            let cells = DisplayWidth.of(character)
            if used + cells > width {
                rows.append("")
                used = 0
            }
            if index == cursor { at = (rows.count - 1, used) }
            rows[rows.count - 1].append(character)
            used += cells
        }
        if cursor >= text.count {
            if used >= width {
                rows.append("")
                used = 0
            }
            at = (rows.count - 1, used)
        }
        return (rows, at.row, at.column)
    }
}
