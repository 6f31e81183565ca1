import ContactsApp

/// The pickers the form opens: a lookup's records, a picklist's or record type's values.
extension ContactsScreen {
    /// The choice picker: a box over the form with the typed filter and the values; in a
    /// multi-select picklist, the marked ones checked.
    static func drawChoicePicker(_ picker: ChoicePicker, in canvas: inout Canvas, within body: Rect, theme: Theme) {
        let top = max(0, picker.selectedIndex - AppModel.lookupPickerHeight + 1)
        let rows = picker.visible.dropFirst(top).prefix(AppModel.lookupPickerHeight).map { option in
            ListRow(
                marker: " ", markerStyle: theme.style(.normal),
                primary: (picker.isMultiple ? (picker.marked.contains(option.value) ? "[x] " : "[ ] ") : "") + option.label,
                secondary: "", dimmed: false)
        }
        let dot = theme.lines == .ascii ? "," : " ·"
        let keys = picker.isMultiple ? "Space marks\(dot) Enter keeps the marked" : "Enter picks"
        drawPicker(
            in: &canvas, within: body, width: 60, title: "\(picker.label) (\(picker.options.count))", filter: picker.filter,
            rows: Array(rows), selectedRow: picker.selectedIndex - top, hint: "\(keys)\(dot) Esc back", theme: theme)
    }

    /// The lookup picker: a box over the form with the search line and the matching records.
    static func drawLookupPicker(_ picker: LookupPicker, in canvas: inout Canvas, within body: Rect, theme: Theme) {
        let list = picker.list
        let rows = list.visibleRows.map { row(for: $0, kind: list.kind, theme: theme) }
        let hint = theme.lines == .ascii ? "Enter picks, Ctrl-U none, Esc back" : "Enter picks · Ctrl-U none · Esc back"
        drawPicker(
            in: &canvas, within: body, width: 70, title: "Pick the \(list.kind.singular) (\(list.totalCount))", filter: list.search,
            rows: rows, selectedRow: list.selectedIndex - list.topIndex, hint: hint, theme: theme)
    }

    /// A picker's box, centred over the body: the title, the typed filter (with the cursor), the
    /// rows, and the keys.
    static func drawPicker(
        in canvas: inout Canvas, within body: Rect, width maximum: Int, title: String, filter: String,
        rows: [ListRow], selectedRow: Int, hint: String, theme: Theme
    ) {
        let width = min(max(body.width - 8, 20), maximum)
        let height = AppModel.lookupPickerHeight + 4
        let box = Rect(x: body.x + (body.width - width) / 2, y: body.y + max((body.height - height) / 2, 0), width: width, height: height)
        canvas.fill(box)
        Box.draw(in: &canvas, box, theme: theme, title: title)
        let end = canvas.draw("/ " + filter, x: box.x + 2, y: box.y + 1, style: theme.style(.fieldFocused), maxWidth: box.width - 4)
        canvas.cursor = Point(x: min(end, box.maxX - 2), y: box.y + 1)
        ListWidget.draw(
            in: &canvas, Rect(x: box.x + 1, y: box.y + 2, width: box.width - 2, height: AppModel.lookupPickerHeight), rows: rows,
            selectedRow: selectedRow, focused: true, theme: theme, emptyMessage: "No match")
        canvas.draw(hint, x: box.x + 2, y: box.maxY - 2, style: theme.style(.hint), maxWidth: box.width - 4)
    }
}
