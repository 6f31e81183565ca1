import ContactsApp

/// A record tab: the list, and beside it or instead of it the detail or the form.
extension ContactsScreen {
    /// The Contacts and Accounts tabs: list, detail or form.
    static func drawRecords(_ model: AppModel, in canvas: inout Canvas, layout: ScreenLayout, theme: Theme) {
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
            drawDetail(model, in: &canvas, rect: rect, theme: theme)
        }
    }

    /// The edit form takes the detail's place: while editing, and under the questions and pickers
    /// it opens.
    static func showsForm(_ model: AppModel) -> Bool {
        model.form != nil && [.editing, .confirmingDiscard, .pickingLookup].contains(model.mode)
    }

    /// A record tab shows the detail beside the list, or instead of it once opened; not the form.
    static func showsDetail(_ model: AppModel, layout: ScreenLayout) -> Bool {
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

    static func drawList(_ model: AppModel, in canvas: inout Canvas, layout: ScreenLayout, theme: Theme) {
        let list = model.list
        let header = layout.header
        canvas.fill(header)
        var titleWidth = 0
        if model.mode == .searching || !list.search.isEmpty {
            let prompt = "/ "
            let end = canvas.draw(prompt + list.search, x: header.x + 1, y: header.y, style: theme.style(model.mode == .searching ? .fieldFocused : .normal), maxWidth: header.width - 14)
            if model.mode == .searching { canvas.cursor = Point(x: min(end, header.maxX - 14), y: header.y) }
            let matches = "\(list.totalCount) found"
            canvas.draw(matches, x: header.maxX - matches.displayWidth - 1, y: header.y, style: theme.style(.hint))
        } else {
            let title = list.filter.title(list.kind.plural)
            let order = list.repository.sort == .name ? "" : " by \(list.repository.sort.label(for: list.kind))"
            let text = "\(title.prefix(1).uppercased() + title.dropFirst()) (\(list.totalCount))\(order)"
            canvas.draw(text, x: header.x + 1, y: header.y, style: theme.style(.title), maxWidth: header.width - 2)
            titleWidth = text.displayWidth
        }
        // What needs a look, and the key that shows it, when anything does.
        let issues = [(RecordFilter.pending, "changed"), (.errors, "error"), (.conflicts, "conflict")].compactMap { filter, word -> String? in
            let count = model.filterCounts[filter] ?? 0
            return count > 0 ? "\(count) \(word)\(count > 1 && word != "changed" ? "s" : "")" : nil
        }
        if !issues.isEmpty || list.filter != .all, model.mode != .searching, list.search.isEmpty {
            let key = model.messages.key(.nextFilter)
            let hint = list.filter == .all ? "\(key): " + issues.joined(separator: ", ") : "\(key): next filter"
            // Only beside the title, never over it.
            if titleWidth + hint.displayWidth + 4 <= header.width {
                canvas.draw(hint, x: header.maxX - hint.displayWidth - 1, y: header.y, style: theme.style(.hint))
            }
        }
        // Sorted by account, the second column shows it, so the order can be seen.
        let byAccount = list.repository.sort == .account
        let column = model.listColumns[list.kind.soupName]
        let rows = list.visibleRows.map { record in
            let secondary: String? =
                if byAccount || column == "AccountId" {
                    model.account(of: record)?.string("Name") ?? ""
                } else {
                    column.map { model.displayValue(of: $0, in: record, kind: list.kind) }
                }
            return row(for: record, kind: list.kind, theme: theme, secondary: secondary)
        }
        let empty =
            !list.search.isEmpty
            ? "No results found"
            : list.filter != .all
                ? model.messages.emptyFilter(list.filter.title(list.kind.plural))
                : "No \(list.kind.plural) yet: \(model.messages.key(.newRecord)) creates one"
        ListWidget.draw(
            in: &canvas, layout.list, rows: rows, selectedRow: list.selectedIndex - list.topIndex,
            focused: !(layout.sideBySide && model.detailOpen), theme: theme, emptyMessage: empty)
    }
}
