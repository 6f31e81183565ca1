import ContactsApp
import ForceJSON

/// Where each part of the main screen goes for a terminal size: list and detail side by side from
/// 100 columns, the detail replacing the list below that.
public struct ScreenLayout: Sendable, Equatable {
    public static let sideBySideMinimumWidth = 100

    public let sideBySide: Bool
    /// The list's rows (below the tab bar and the list header, above the toast row and status line).
    public let list: Rect
    public let detail: Rect
    public let header: Rect

    public init(size: Size) {
        sideBySide = size.width >= Self.sideBySideMinimumWidth
        let bodyTop = 2
        let bodyHeight = max(size.height - bodyTop - 1, 0)
        if sideBySide {
            let listWidth = max(size.width * 2 / 5, 40)
            header = Rect(x: 0, y: 1, width: listWidth, height: 1)
            list = Rect(x: 0, y: bodyTop, width: listWidth, height: bodyHeight)
            detail = Rect(x: listWidth + 1, y: 1, width: size.width - listWidth - 1, height: bodyHeight + 1)
        } else {
            header = Rect(x: 0, y: 1, width: size.width, height: 1)
            list = Rect(x: 0, y: bodyTop, width: size.width, height: bodyHeight)
            detail = Rect(x: 0, y: 1, width: size.width, height: bodyHeight + 1)
        }
    }
}

/// Draws the app model: tabs, list, detail or form, dialogs, toast, status line, help.
public enum ContactsScreen {
    /// `helpNotes` go above the keys on the `?` screen (forceterm --demo's org details).
    public static func render(_ model: AppModel, size: Size, theme: Theme, helpNotes: HelpOverlay.Notes? = nil,
                              keymap: Keymap<AppCommand, AppMode> = AppKeymap.table) -> Canvas {
        var canvas = Canvas(size: size)
        guard size.width >= 20, size.height >= 6 else {
            canvas.draw("Make the terminal at least 20x6".truncated(toWidth: size.width), x: 0, y: 0)
            return canvas
        }
        let layout = ScreenLayout(size: size)
        TabBar.draw(
            in: &canvas, y: 0, width: size.width, tabs: model.tabs.map(\.title),
            active: model.tabs.firstIndex(of: model.tab) ?? 0, right: "? help", theme: theme)

        let body = Rect(x: 0, y: 1, width: size.width, height: size.height - 2)
        switch model.tab {
        case .syncs:
            SyncsScreen.draw(model, in: &canvas, body: Rect(x: 0, y: 1, width: size.width, height: size.height - 3), theme: theme)
        case .inspector:
            InspectorScreen.draw(model, in: &canvas, body: Rect(x: 0, y: 1, width: size.width, height: size.height - 3), theme: theme)
        case .records:
            drawRecords(model, in: &canvas, layout: layout, theme: theme, keymap: keymap)
        }

        switch model.mode {
        case .confirmingDelete:
            let name = model.selected.map(model.list.kind.displayName) ?? ""
            let cascade = model.selected.map(model.cascadeCount) ?? 0
            let withContacts = cascade == 0 ? ""
                : " Salesforce deletes its \(cascade) contact\(cascade == 1 ? "" : "s") with it; \(cascade == 1 ? "it is" : "they are") marked deleted here too."
            ConfirmDialog.draw(
                in: &canvas, within: body,
                question: "Delete \(name)? It stays here, marked -, until the next sync deletes it on the server.\(withContacts)", theme: theme)
        case .confirmingDiscard:
            ConfirmDialog.draw(in: &canvas, within: body, question: "Discard your unsaved changes?", theme: theme)
        case .confirmingRevert:
            ConfirmDialog.draw(in: &canvas, within: body, question: model.revertQuestion, theme: theme)
        case .confirmingQuit:
            ConfirmDialog.draw(in: &canvas, within: body, question: "A sync is running. Quit anyway? Local changes are kept.", theme: theme)
        case .pickingLookup:
            if let picker = model.choicePicker {
                drawChoicePicker(picker, in: &canvas, within: body, theme: theme)
            } else if let picker = model.lookupPicker {
                drawLookupPicker(picker, in: &canvas, within: body, theme: theme)
            }
        case .resolvingConflict:
            let name = model.selected.map(model.list.kind.displayName) ?? ""
            let comparison = model.conflictComparison
            let differing = comparison?.differingCount ?? 0
            let gone = comparison?.deletedOnServer == true
            let marker = theme.lines == .ascii ? ">" : "▸"
            var question = gone
                ? "\(name) was deleted on the server after you changed it here. Keep mine creates it again; take the server's removes it here."
                : "\(name) changed here and on the server (\(differing == 1 ? "1 field differs" : "\(differing) fields differ")). Which version wins?"
            var choices = "m = keep mine   t = take the server's   Esc = later"
            if let field = model.highlightedConflictField {
                let label = model.fieldNames(for: model.list.kind).contains(field) ? model.label(of: field, in: model.list.kind) : field
                let count = comparison?.conflictingFields.count ?? 0
                let row = comparison?.rows.first { $0.field == field }
                question = "\(name): \(count) fields changed on both sides. \(label) (marked \(marker), ↑/↓ picks another): "
                    + "mine \"\(row?.local ?? "")\", the server's \"\(row?.server ?? "")\". Which wins?"
                choices = "m = mine   t = the server's   M / T = for all \(count)   Esc = later"
            }
            ConfirmDialog.draw(in: &canvas, within: body, question: question, theme: theme, title: "Conflict", choices: choices)
        case .help:
            HelpOverlay.draw(
                in: &canvas, within: body, sections: AppKeymap.helpSections(ascii: theme.lines == .ascii, tabs: model.tabs.map(\.title), keymap: keymap),
                footer: "Row markers: + created  ~ updated  - deleted  ! sync error  \(theme.lines == .ascii ? "#" : "≠") conflict",
                notes: helpNotes, scroll: model.helpScroll, theme: theme)
        default:
            break
        }
        if let toast = model.toast {
            ToastWidget.draw(in: &canvas, y: size.height - 2, width: size.width, message: toast.message, isError: toast.isError, theme: theme)
        }
        drawStatus(model, in: &canvas, theme: theme)
        if !model.mode.takesText { canvas.cursor = nil }
        if theme.lines == .ascii { canvas.replaceSymbolsWithASCII() }
        return canvas
    }

    /// The Contacts and Accounts tabs: list, detail or form.
    private static func drawRecords(_ model: AppModel, in canvas: inout Canvas, layout: ScreenLayout, theme: Theme,
                                    keymap: Keymap<AppCommand, AppMode>) {
        let editing = showsForm(model)
        let showList = layout.sideBySide || (!model.detailOpen && !editing)
        if showList { drawList(model, in: &canvas, layout: layout, theme: theme) }
        if layout.sideBySide {
            Box.verticalLine(in: &canvas, x: layout.list.maxX, top: 1, height: layout.detail.height, theme: theme)
        }
        // A toast takes the body's last line: the form's key hint and the detail's last line move up
        // rather than under it.
        let rect = detailRect(model, layout: layout)
        if editing, let form = model.form {
            drawForm(form, model: model, in: &canvas, rect: rect, theme: theme)
        } else if showsDetail(model, layout: layout) {
            drawDetail(model, in: &canvas, rect: rect, theme: theme, keymap: keymap)
        }
    }

    /// The edit form takes the detail's place: while editing, and under the questions and pickers
    /// it opens.
    private static func showsForm(_ model: AppModel) -> Bool {
        model.form != nil && [.editing, .confirmingDiscard, .pickingLookup].contains(model.mode)
    }

    /// A record tab shows the detail beside the list, or instead of it once opened; not the form.
    private static func showsDetail(_ model: AppModel, layout: ScreenLayout) -> Bool {
        !showsForm(model) && (layout.sideBySide || model.detailOpen)
    }

    // MARK: Parts

    /// `secondary`: the second column instead of the kind's subtitle (the account, when sorted by it).
    static func row(for record: LocalRecord, kind: RecordKind, theme: Theme, secondary: String? = nil) -> ListRow {
        let state = record.state
        let role: StyleRole
        switch state {
        case .clean: role = .normal
        case .created: role = .markerCreated
        case .updated: role = .markerUpdated
        case .deleted: role = .markerDeleted
        case .error: role = .markerError
        case .conflict: role = .markerConflict
        }
        let name = kind.displayName(of: record)
        return ListRow(
            marker: theme.lines == .ascii ? state.asciiMarker : state.marker, markerStyle: theme.style(role),
            primary: name.isEmpty ? "(no name)" : name, secondary: secondary ?? kind.subtitle(of: record), dimmed: record.isLocallyDeleted)
    }

    private static func drawList(_ model: AppModel, in canvas: inout Canvas, layout: ScreenLayout, theme: Theme) {
        let list = model.list
        let header = layout.header
        canvas.fill(header)
        if model.mode == .searching || !list.search.isEmpty {
            let prompt = "/ "
            let end = canvas.draw(prompt + list.search, x: header.x + 1, y: header.y, style: theme.style(model.mode == .searching ? .fieldFocused : .normal), maxWidth: header.width - 14)
            if model.mode == .searching { canvas.cursor = Point(x: min(end, header.maxX - 14), y: header.y) }
            let matches = "\(list.totalCount) found"
            canvas.draw(matches, x: header.maxX - matches.displayWidth - 1, y: header.y, style: theme.style(.hint))
        } else {
            let title = list.filter.title(list.kind.plural)
            let order = list.repository.sort == .name ? "" : " by \(list.repository.sort.label(for: list.kind))"
            canvas.draw("\(title.prefix(1).uppercased() + title.dropFirst()) (\(list.totalCount))\(order)", x: header.x + 1, y: header.y,
                        style: theme.style(.title), maxWidth: header.width - 2)
        }
        // What needs a look, and the key that shows it, when anything does.
        let issues = [(RecordFilter.pending, "changed"), (.errors, "error"), (.conflicts, "conflict")].compactMap { filter, word -> String? in
            let count = model.filterCounts[filter] ?? 0
            return count > 0 ? "\(count) \(word)" : nil
        }
        if !issues.isEmpty || list.filter != .all, model.mode != .searching, list.search.isEmpty {
            let hint = list.filter == .all ? "f: " + issues.joined(separator: ", ") : "f: next filter"
            if hint.displayWidth + 20 < header.width {
                canvas.draw(hint, x: header.maxX - hint.displayWidth - 1, y: header.y, style: theme.style(.hint))
            }
        }
        // Sorted by account, the second column shows it, so the order can be seen.
        let byAccount = list.repository.sort == .account
        let column = model.listColumns[list.kind.soupName]
        let rows = list.visibleRows.map { record in
            let secondary: String? = if byAccount || column == "AccountId" {
                model.account(of: record)?.string("Name") ?? ""
            } else {
                column.map { model.displayValue(of: $0, in: record, kind: list.kind) }
            }
            return row(for: record, kind: list.kind, theme: theme, secondary: secondary)
        }
        let empty = list.search.isEmpty ? "No \(list.kind.plural) yet: n creates one" : "No results found"
        ListWidget.draw(
            in: &canvas, layout.list, rows: rows, selectedRow: list.selectedIndex - list.topIndex,
            focused: !(layout.sideBySide && model.detailOpen), theme: theme, emptyMessage: empty)
    }

    private static func drawDetail(_ model: AppModel, in canvas: inout Canvas, rect: Rect, theme: Theme, keymap: Keymap<AppCommand, AppMode>) {
        guard let content = detailContent(model, theme: theme) else {
            canvas.fill(rect)
            return
        }
        // The page keys scroll it once it has the keys; before that, Enter gives them.
        let label = { (command: AppCommand) in keymap.keys(for: command, in: .browsing).first?.label ?? "" }
        let open = model.detailOpen ? "" : label(.openDetail) + ", then "
        DetailWidget.draw(in: &canvas, rect, title: content.title, lines: content.lines, theme: theme, labelWidth: content.labelWidth,
                          scroll: model.detailScroll, keys: .init(up: open + label(.pageUp), down: open + label(.pageDown)))
    }

    /// Where the detail goes: a toast takes the body's last line, so the pane ends above it.
    private static func detailRect(_ model: AppModel, layout: ScreenLayout) -> Rect {
        let rect = layout.detail
        return model.toast == nil ? rect : Rect(x: rect.x, y: rect.y, width: rect.width, height: max(rect.height - 1, 1))
    }

    /// How the selected record's detail fits the pane at this size, when a detail is shown; the
    /// model scrolls within it (`AppModel.fitDetail`).
    public static func detailViewport(_ model: AppModel, size: Size, theme: Theme) -> DetailViewport? {
        let layout = ScreenLayout(size: size)
        guard case .records = model.tab, showsDetail(model, layout: layout), let content = detailContent(model, theme: theme) else { return nil }
        return DetailWidget.viewport(of: content.lines, in: detailRect(model, layout: layout), theme: theme, labelWidth: content.labelWidth)
    }

    /// The detail pane's title, lines and label width for the selected record; nil when none is selected.
    private static func detailContent(_ model: AppModel, theme: Theme) -> (title: String, lines: [DetailLine], labelWidth: Int)? {
        guard let record = model.selected else { return nil }
        let kind = model.list.kind
        var lines: [DetailLine] = []
        if let comparison = model.conflictComparison {
            lines = conflictLines(comparison, record: record, model: model, ascii: theme.lines == .ascii)
        } else {
            lines = fieldLines(record, model: model)
        }
        lines.append(.blank)
        lines.append(.field(label: "Local state", value: record.state.summary))
        let errors = RecordSyncError.errors(of: record)
        if !errors.isEmpty {
            lines.append(.blank)
            lines.append(.heading("The org refused the last sync of this record"))
            for error in errors {
                let labels = error.fields.map { field in
                    model.fieldNames(for: kind).contains(field) || field == "AccountId" ? model.label(of: field, in: kind) : field
                }
                lines.append(.text(error.sentence + (labels.isEmpty ? "" : " (\(labels.joined(separator: ", ")))"), role: .fieldError))
            }
            lines.append(.text("e fixes it (the fields are marked), r reverts your changes; s sends it again", role: .hint))
        }
        if kind.role == .account {
            lines.append(.blank)
            if model.contacts == nil {
                lines.append(.heading("Contacts"))
                lines.append(.text("None here: usersyncs.json syncs no contacts soup", role: .hint))
            } else {
                lines.append(.heading("Contacts (\(model.accountContactCount))"))
            }
            if model.contacts == nil {
                // Said above.
            } else if model.detailOpen {
                if model.accountContacts.isEmpty { lines.append(.text("None yet: n creates one here", role: .hint)) }
                for (index, contact) in model.accountContacts.enumerated() {
                    lines.append(.row(row(for: contact, kind: model.contacts?.kind ?? .contact, theme: theme), selected: index == model.accountContactIndex))
                }
            } else {
                lines.append(.text("Enter lists them", role: .hint))
            }
        }
        let title = kind.displayName(of: record)
        let labels = model.fieldNames(for: kind).map { model.label(of: $0, in: kind) }
        return (title.isEmpty ? "(no name)" : title, lines, labelColumns(labels))
    }

    /// Both versions of a conflicted record, differing fields highlighted, and how to settle it.
    private static func conflictLines(_ comparison: ConflictComparison, record: LocalRecord, model: AppModel, ascii: Bool) -> [DetailLine] {
        let kind = model.list.kind
        let what = comparison.deletedOnServer ? "changed here, deleted on the server"
            : comparison.deletedHere ? "deleted here, changed on the server"
            : "both sides changed " + comparison.conflictingFields.map { field in
                model.fieldNames(for: kind).contains(field) ? model.label(of: field, in: kind) : field
            }.joined(separator: ", ")
        var lines: [DetailLine] = [
            .text("Conflict: \(what). c resolves it.", role: .markerConflict),
            .blank,
            .comparisonHeader(left: "1 Mine", right: comparison.deletedOnServer ? "2 Server's (deleted)" : "2 Server's"),
        ]
        for row in comparison.rows {
            var label = row.field
            var local = row.local
            var server = row.server
            if row.field == "AccountId" {
                label = "Account"
                local = accountName(id: row.local, model: model)
                server = accountName(id: row.server, model: model)
            } else if model.fieldNames(for: kind).contains(row.field) {
                label = model.label(of: row.field, in: kind)
            }
            if row.field == model.highlightedConflictField { label = (ascii ? "> " : "▸ ") + label }
            lines.append(.comparison(label: label, left: local, right: server, differs: row.conflicting))
        }
        return lines
    }

    /// Every field of a record: the form's fields first, then whatever else the org sent.
    private static func fieldLines(_ record: LocalRecord, model: AppModel) -> [DetailLine] {
        let kind = model.list.kind
        var lines: [DetailLine] = []
        var shown: Set<String> = []
        for field in model.fieldNames(for: kind) {
            shown.insert(field)
            if field == "AccountId" {
                lines.append(.field(label: "Account", value: accountName(id: record.string(field), model: model)))
            } else {
                lines.append(.field(label: model.label(of: field, in: kind), value: model.displayValue(of: field, in: record, kind: kind)))
            }
        }
        // Every other field of the record, so nothing the org sent is hidden. Empty ones keep their
        // line: records of one org carry the same fields, so moving the selection leaves every label
        // where it was and only changed values go to the terminal (a few hundred bytes over SSH).
        for key in record.document.keys where !shown.contains(key) && !ConflictComparison.isBookkeeping(key) {
            lines.append(.field(label: key, value: record.string(key)))
        }
        return lines
    }

    /// An account id as the detail shows it: the account's name when the store holds it, else the
    /// id and why there is no name.
    static func accountName(id: String, model: AppModel) -> String {
        guard !id.isEmpty else { return "" }
        if let account = model.account(id: id) { return account.string("Name") }
        return model.accounts == nil ? "\(id) (usersyncs.json syncs no accounts soup)" : id
    }

    private static func drawForm(_ form: RecordForm, model: AppModel, in canvas: inout Canvas, rect: Rect, theme: Theme) {
        let views = form.fields.enumerated().map { index, field in
            // A lookup shows its record's name, a checkbox a box, a record type its label; the
            // cursor sits at the end of what is not typed. An empty list field says how to fill
            // it while it has the focus.
            let pickHint = index == form.focusedIndex && field.value.isEmpty && field.rule.editable ? "(none: Enter picks)" : ""
            let value: String
            if field.lookup != nil {
                value = model.lookupDisplay(field) + pickHint
            } else if field.rule.format == .checkbox {
                value = field.value == "true" ? "[x]" : "[ ]"
            } else if field.rule.isChoice {
                value = field.value.isEmpty ? pickHint : model.choiceDisplay(field)
            } else {
                value = field.value
            }
            return FormFieldView(label: field.rule.label, value: value, cursor: field.isTyped ? field.cursor : value.count,
                                 required: field.rule.required && field.rule.editable, problem: form.problems[field.name],
                                 readOnly: !field.rule.editable)
        }
        FormWidget.draw(
            in: &canvas, rect, title: form.title + (form.isDirty ? " (modified)" : ""), fields: views, focusedIndex: form.focusedIndex,
            hint: formHint(form.focused, ascii: theme.lines == .ascii), theme: theme,
            labelWidth: labelColumns(form.fields.map { $0.rule.label + ($0.rule.required ? "*" : "") }), note: form.rulesNote)
    }

    /// The label column for these labels: wide enough for the org's longer ones ("Billing
    /// Zip/Postal Code"), within bounds (the widgets also keep it under a third of the pane).
    static func labelColumns(_ labels: [String]) -> Int {
        min(max(labels.map(\.displayWidth).max() ?? 0, 14), 22)
    }

    /// What the keys do on the focused field.
    static func formHint(_ field: FormField?, ascii: Bool) -> String {
        let dot = ascii ? "," : " ·"
        let rest = "Ctrl-S/F2 save\(dot) Esc cancel"
        guard let field else { return rest }
        let format = field.rule.format
        let edit: String
        if !field.rule.editable {
            edit = "read-only for you in this org"
        } else if field.lookup != nil {
            edit = "Enter picks\(dot) Ctrl-U none"
        } else if format == .checkbox {
            edit = "Space or Enter toggles"
        } else if format == .recordType {
            edit = "Enter picks the record type"
        } else if field.rule.isChoice {
            edit = "Enter picks\(dot) Ctrl-U none"
        } else if format == .date {
            edit = "YYYY-MM-DD"
        } else if format == .dateTime {
            edit = "YYYY-MM-DD HH:MM (UTC)"
        } else {
            edit = ascii ? "Tab/Up/Down fields" : "Tab/↑/↓ fields"
        }
        return "\(edit)\(dot) \(rest)"
    }

    /// The choice picker: a box over the form with the typed filter and the values; in a
    /// multi-select picklist, the marked ones checked.
    private static func drawChoicePicker(_ picker: ChoicePicker, in canvas: inout Canvas, within body: Rect, theme: Theme) {
        let top = max(0, picker.selectedIndex - AppModel.lookupPickerHeight + 1)
        let rows = picker.visible.dropFirst(top).prefix(AppModel.lookupPickerHeight).map { option in
            ListRow(marker: " ", markerStyle: theme.style(.normal),
                    primary: (picker.isMultiple ? (picker.marked.contains(option.value) ? "[x] " : "[ ] ") : "") + option.label,
                    secondary: "", dimmed: false)
        }
        let dot = theme.lines == .ascii ? "," : " ·"
        let keys = picker.isMultiple ? "Space marks\(dot) Enter keeps the marked" : "Enter picks"
        drawPicker(in: &canvas, within: body, width: 60, title: "\(picker.label) (\(picker.options.count))", filter: picker.filter,
                   rows: Array(rows), selectedRow: picker.selectedIndex - top, hint: "\(keys)\(dot) Esc back", theme: theme)
    }

    /// The lookup picker: a box over the form with the search line and the matching records.
    private static func drawLookupPicker(_ picker: LookupPicker, in canvas: inout Canvas, within body: Rect, theme: Theme) {
        let list = picker.list
        let rows = list.visibleRows.map { row(for: $0, kind: list.kind, theme: theme) }
        let hint = theme.lines == .ascii ? "Enter picks, Ctrl-U none, Esc back" : "Enter picks · Ctrl-U none · Esc back"
        drawPicker(in: &canvas, within: body, width: 70, title: "Pick the \(list.kind.singular) (\(list.totalCount))", filter: list.search,
                   rows: rows, selectedRow: list.selectedIndex - list.topIndex, hint: hint, theme: theme)
    }

    /// A picker's box, centred over the body: the title, the typed filter (with the cursor), the
    /// rows, and the keys.
    private static func drawPicker(in canvas: inout Canvas, within body: Rect, width maximum: Int, title: String, filter: String,
                                   rows: [ListRow], selectedRow: Int, hint: String, theme: Theme) {
        let width = min(max(body.width - 8, 20), maximum)
        let height = AppModel.lookupPickerHeight + 4
        let box = Rect(x: body.x + (body.width - width) / 2, y: body.y + max((body.height - height) / 2, 0), width: width, height: height)
        canvas.fill(box)
        Box.draw(in: &canvas, box, theme: theme, title: title)
        let end = canvas.draw("/ " + filter, x: box.x + 2, y: box.y + 1, style: theme.style(.fieldFocused), maxWidth: box.width - 4)
        canvas.cursor = Point(x: min(end, box.maxX - 2), y: box.y + 1)
        ListWidget.draw(in: &canvas, Rect(x: box.x + 1, y: box.y + 2, width: box.width - 2, height: AppModel.lookupPickerHeight), rows: rows,
                        selectedRow: selectedRow, focused: true, theme: theme, emptyMessage: "No match")
        canvas.draw(hint, x: box.x + 2, y: box.maxY - 2, style: theme.style(.hint), maxWidth: box.width - 4)
    }

    private static func drawStatus(_ model: AppModel, in canvas: inout Canvas, theme: Theme) {
        var progress: (String, Double)?
        if case let .running(state)? = model.sync?.current { progress = (state.phase, state.fraction) }
        let position: String
        switch model.tab {
        case .syncs:
            position = model.syncs.syncs.count == 1 ? "1 sync" : "\(model.syncs.syncs.count) syncs"
        case .inspector:
            position = model.inspector.page.map { "page \($0.summary.page)/\($0.summary.pageCount)" } ?? ""
        case .records:
            let list = model.list
            position = list.totalCount == 0 ? "0" : "\(list.selectedIndex + 1)/\(list.totalCount)"
        }
        StatusLine.draw(
            in: &canvas, y: canvas.size.height - 1, width: canvas.size.width, left: model.statusFacts.map(\.wordings),
            progress: progress, right: position, theme: theme)
    }
}
