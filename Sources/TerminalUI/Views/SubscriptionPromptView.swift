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
            : "Enter next · Esc close · SOQL, as after WHERE; LIKE matches as typed, accents count"
        canvas.draw(keys, x: box.x + 2, y: box.maxY - 2, style: theme.style(.hint), maxWidth: inner)
    }

    /// `text` cut into rows of at most `width` columns, at a space where one is (a word longer
    /// than a row is cut, a wide character never split), with the cursor's row and column; the
    /// cursor after a full row starts the next.
    static func rows(_ text: String, cursor: Int, width: Int) -> (rows: [String], row: Int, column: Int) {
        let characters = Array(text)
        func columns(_ range: Range<Int>) -> Int { characters[range].reduce(0) { $0 + DisplayWidth.of($1) } }
        var starts = [0]
        var used = 0
        var afterSpace: Int?
        var index = 0
        while index < characters.count {
            let cells = DisplayWidth.of(characters[index])
            if used + cells > width, used > 0 {
                let start = starts[starts.count - 1]
                if characters[index] != " ", let breakAt = afterSpace, breakAt > start {
                    starts.append(breakAt)
                    used = columns(breakAt..<index)
                } else {
                    starts.append(index)
                    used = 0
                }
                afterSpace = nil
                continue
            }
            used += cells
            if characters[index] == " " { afterSpace = index + 1 }
            index += 1
        }
        if cursor >= characters.count, used >= width, !characters.isEmpty { starts.append(characters.count) }
        let bounds = zip(starts, starts.dropFirst() + [characters.count])
        let rows = bounds.map { String(characters[$0..<$1]) }
        let cursor = min(max(cursor, 0), characters.count)
        let row = starts.lastIndex { $0 <= cursor } ?? 0
        return (rows, row, columns(starts[row]..<cursor))
    }
}
