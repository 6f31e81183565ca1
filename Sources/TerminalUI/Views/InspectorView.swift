import ContactsApp

/// The Inspector tab: the Smart SQL prompt, then one page of results (or the error, in full),
/// then which rows these are and the keys that page.
enum InspectorView {
    static func draw(_ model: AppModel, in canvas: inout Canvas, body: Rect, theme: Theme) {
        canvas.fill(body)
        let inspector = model.inspector
        let typing = model.mode == .typingQuery
        let prompt = "SQL> "
        let promptStyle = theme.style(typing ? .fieldFocused : .normal)
        canvas.draw(prompt, x: body.x + 1, y: body.y, style: theme.style(.label))
        let fieldX = body.x + 1 + prompt.displayWidth
        let fieldWidth = max(body.maxX - fieldX - 1, 1)
        if inspector.queryText.isEmpty && !typing {
            canvas.draw("Enter types a query · o soups · i indices", x: fieldX, y: body.y, style: theme.style(.hint), maxWidth: fieldWidth)
        } else {
            // A long query scrolls so the cursor stays visible.
            let (shown, cursorColumn) = FormWidget.window(inspector.queryText, cursor: typing ? inspector.prompt.cursor : 0, width: fieldWidth)
            canvas.draw(shown, x: fieldX, y: body.y, style: promptStyle, maxWidth: fieldWidth)
            if typing { canvas.cursor = Point(x: min(fieldX + cursorColumn, body.maxX - 1), y: body.y) }
        }
        let results = Rect(x: body.x, y: body.y + 2, width: body.width, height: max(body.height - 3, 0))
        if let error = inspector.error {
            DetailWidget.draw(in: &canvas, results, title: "Error", lines: [.text(error, role: .fieldError)], theme: theme)
            return
        }
        guard let page = inspector.page else {
            DetailWidget.draw(
                in: &canvas, results, title: "Smart SQL",
                lines: [
                    .text("{soup} is a soup's table, {soup:path} an indexed field, {soup:_soup} the whole record.", role: .hint),
                    .text("Example: SELECT {contacts:LastName}, {contacts:Email} FROM {contacts} ORDER BY {contacts:LastName}", role: .hint),
                ], theme: theme)
            return
        }
        let rows = page.rows.map { row in page.columns.indices.map { CellText.of(row.indices.contains($0) ? row[$0] : .null) } }
        TableWidget.draw(
            in: &canvas, Rect(x: results.x, y: results.y, width: results.width, height: results.height - 1),
            headers: page.columns, rows: rows, selectedRow: nil, theme: theme)
        canvas.draw(footer(page.summary), x: body.x + 1, y: body.maxY - 1, style: theme.style(.hint), maxWidth: body.width - 2)
    }

    /// "rows 11–20 of 57 (page 2 of 6) · ↓ next page  ↑ previous".
    static func footer(_ summary: PageSummary) -> String {
        if summary.totalRows == 0 { return "no rows" }
        var text = "rows \(summary.firstRow)–\(summary.lastRow) of \(summary.totalRows) (page \(summary.page) of \(summary.pageCount))"
        if summary.pageCount > 1 { text += " · ↓/PgDn next page · ↑/PgUp previous" }
        return text
    }
}
