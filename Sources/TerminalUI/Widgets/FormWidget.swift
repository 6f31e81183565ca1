/// One field as the form widget shows it.
public struct FormFieldView: Sendable, Equatable {
    public let label: String
    public let value: String
    /// The cursor in characters from the start of `value`.
    public let cursor: Int
    public let required: Bool
    public let problem: String?

    public init(label: String, value: String, cursor: Int, required: Bool, problem: String?) {
        self.label = label
        self.value = value
        self.cursor = cursor
        self.required = required
        self.problem = problem
    }
}

/// An edit form: a label column, one input line per field (scrolled sideways so the cursor stays
/// visible), a problem line under any field that has one, and a hint line. Places the terminal
/// cursor in the focused field.
public enum FormWidget {
    public static func draw(
        in canvas: inout Canvas, _ rect: Rect, title: String, fields: [FormFieldView], focusedIndex: Int, hint: String,
        theme: Theme, labelWidth: Int = 14
    ) {
        canvas.fill(rect)
        guard rect.width > 8, rect.height > 2 else { return }
        let ellipsis = theme.lines.ellipsis
        canvas.draw(title.truncated(toWidth: rect.width - 1, ellipsis: ellipsis), x: rect.x + 1, y: rect.y, style: theme.style(.title))
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
                let style = focused ? theme.style(.fieldFocused) : theme.style(.normal)
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

/// A centred question in a box, with the keys that answer it (yes/no unless told otherwise).
public enum ConfirmDialog {
    public static func draw(
        in canvas: inout Canvas, within area: Rect, question: String, theme: Theme, title: String = "Confirm",
        choices: String = "y = yes    n = no"
    ) {
        let width = min(max(question.displayWidth + 6, choices.displayWidth + 6, 36), area.width - 2)
        let lines = question.wrapped(toWidth: width - 4)
        let box = area.centered(width: width, height: lines.count + 4)
        Box.draw(in: &canvas, box, theme: theme, title: title, style: theme.style(.dialog))
        for (index, line) in lines.enumerated() where index + 1 < box.height - 2 {
            canvas.draw(line, x: box.x + 2, y: box.y + 1 + index, style: theme.style(.dialog), maxWidth: box.width - 4)
        }
        canvas.draw(choices, x: box.x + 2, y: box.maxY - 2, style: theme.style(.hint), maxWidth: box.width - 4)
    }
}

/// The bottom line: state on the left, an optional progress bar, position on the right.
public enum StatusLine {
    public static let separator = " · "

    /// The facts (each its wordings, longest first; an empty one drops the fact) joined, each in
    /// the longest wording that lets them all fit in `width` columns.
    /// Shrinking goes in rounds, each taking every fact one wording shorter from the right, so the
    /// connection, the most important, keeps its full wording longest. Whatever still does not
    /// fit is cut with an ellipsis by the caller.
    public static func fit(_ facts: [[String]], width: Int) -> String {
        var chosen = facts.map { _ in 0 }
        func text() -> String {
            zip(facts, chosen).map { $0[$1] }.filter { !$0.isEmpty }.joined(separator: separator)
        }
        let rounds = facts.map { $0.count - 1 }.max() ?? 0
        for round in 0...rounds {
            for index in facts.indices.reversed() where round > 0 && facts[index].count > round {
                if text().displayWidth <= width { return text() }
                chosen[index] = round
            }
            if text().displayWidth <= width { return text() }
        }
        return text()
    }

    public static func draw(in canvas: inout Canvas, y: Int, width: Int, left facts: [[String]], progress: (label: String, fraction: Double)?, right: String, theme: Theme) {
        let style = theme.style(.statusLine)
        canvas.fill(Rect(x: 0, y: y, width: width, height: 1), style: style)
        let rightText = right.truncated(toWidth: max(width / 3, 0), ellipsis: theme.lines.ellipsis)
        let rightWidth = rightText.displayWidth
        var progressText = ""
        if let progress {
            let barWidth = 10
            let filled = Int((progress.fraction * Double(barWidth)).rounded())
            let bar = String(repeating: theme.lines.progressFull, count: filled) + String(repeating: theme.lines.progressEmpty, count: barWidth - filled)
            progressText = "\(progress.label) [\(bar)] \(Int((progress.fraction * 100).rounded()))%  "
        }
        let leftWidth = max(width - rightWidth - 3, 0)
        let leftText = progressText + fit(facts, width: max(leftWidth - progressText.displayWidth, 0))
        canvas.draw(" " + leftText.truncated(toWidth: leftWidth, ellipsis: theme.lines.ellipsis), x: 0, y: y, style: style)
        canvas.draw(rightText, x: width - rightWidth - 1, y: y, style: style)
    }
}

/// A one-line message just above the status line, right-aligned.
public enum ToastWidget {
    public static func draw(in canvas: inout Canvas, y: Int, width: Int, message: String, isError: Bool, theme: Theme) {
        let text = " " + message.truncated(toWidth: max(width - 4, 1), ellipsis: theme.lines.ellipsis) + " "
        canvas.draw(text, x: max(width - text.displayWidth - 1, 0), y: y, style: theme.style(isError ? .toastError : .toast))
    }
}

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

    public static func draw(in canvas: inout Canvas, within area: Rect, sections: [Section], footer: String, notes: Notes? = nil,
                            scroll: Int = 0, theme: Theme) {
        let box = area.inset(by: area.width >= 90 ? 2 : 0)
        Box.draw(in: &canvas, box, theme: theme, title: "Keys (? or Esc closes)")
        var inner = box.inset(by: 1)
        if let notes {
            var y = inner.y
            canvas.draw(notes.title, x: inner.x + 1, y: y, style: theme.style(.title), maxWidth: inner.width - 2)
            y += 1
            for line in notes.lines where y < inner.maxY - 1 {
                canvas.draw(line.truncated(toWidth: inner.width - 2, ellipsis: theme.lines.ellipsis), x: inner.x + 1, y: y)
                y += 1
            }
            inner = Rect(x: inner.x, y: y + 1, width: inner.width, height: max(inner.maxY - y - 1, 0))
        }
        let keyWidth = min(18, inner.width / 3)
        // Two columns of sections when there is room, else one.
        let columnCount = inner.width >= 96 ? 2 : 1
        let columnWidth = inner.width / columnCount
        let rowsPerColumn = max(inner.height - 1, 0)
        var hidden = false
        if scroll == 0, let placed = placeWholeSections(sections, columns: columnCount, rows: rowsPerColumn) {
            for (column, sectionRows) in placed.enumerated() {
                drawRows(sectionRows, in: &canvas, x: inner.x + 1 + column * columnWidth, y: inner.y, keyWidth: keyWidth, width: columnWidth, theme: theme)
            }
        } else {
            // Too many keys for the screen: the rows flow from column to column and scroll.
            var rows = Array(sections.map { [Row.title($0.title)] + $0.lines.map(Row.line) + [Row.blank] }.joined())
            rows.removeFirst(min(scroll, max(rows.count - 1, 0)))
            for column in 0..<columnCount {
                let slice = Array(rows.prefix(rowsPerColumn))
                rows.removeFirst(slice.count)
                drawRows(slice, in: &canvas, x: inner.x + 1 + column * columnWidth, y: inner.y, keyWidth: keyWidth, width: columnWidth, theme: theme)
            }
            hidden = rows.contains { if case .blank = $0 { false } else { true } }
        }
        let more = hidden ? "j/↓ more keys · " : (scroll > 0 ? "k/↑ back to the top · " : "")
        canvas.draw((more + footer).truncated(toWidth: inner.width - 2, ellipsis: theme.lines.ellipsis), x: inner.x + 1, y: inner.maxY - 1,
                    style: theme.style(.hint))
    }

    enum Row {
        case title(String)
        case line(keys: String, help: String)
        case blank
    }

    /// Whole sections per column, a section moving to the next column when it does not fit; `nil`
    /// when some section finds no room.
    static func placeWholeSections(_ sections: [Section], columns: Int, rows: Int) -> [[Row]]? {
        var placed: [[Row]] = [[]]
        for section in sections {
            let sectionRows = [Row.title(section.title)] + section.lines.map(Row.line) + [Row.blank]
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
            case .blank:
                break
            }
        }
    }
}

/// The tab strip at the top: the active tab reversed, numbers to press shown.
public enum TabBar {
    public static func draw(in canvas: inout Canvas, y: Int, width: Int, tabs: [String], active: Int, right: String, theme: Theme) {
        canvas.fill(Rect(x: 0, y: y, width: width, height: 1))
        var x = canvas.draw("forceterm ", x: 1, y: y, style: theme.style(.title))
        for (index, title) in tabs.enumerated() {
            x = canvas.draw(" \(index + 1) \(title) ", x: x, y: y, style: theme.style(index == active ? .tabActive : .tabInactive))
            x += 1
        }
        let rightWidth = right.displayWidth
        if x + rightWidth + 1 < width { canvas.draw(right, x: width - rightWidth - 1, y: y, style: theme.style(.hint)) }
    }
}
