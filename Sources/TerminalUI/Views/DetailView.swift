import ContactsApp
import MobileSync

/// The detail pane: a record's fields, its local state and sync errors, an account's contacts.
extension ContactsScreen {
    static func drawDetail(_ model: AppModel, in canvas: inout Canvas, rect: Rect, theme: Theme) {
        guard let content = detailContent(model, theme: theme) else {
            canvas.fill(rect)
            return
        }
        // The page keys scroll it once it has the keys; before that, Enter gives them.
        let label = { (command: AppCommand) in model.keymap.keys(for: command, in: .browsing).first?.label ?? "" }
        let open = model.detailOpen ? "" : label(.openDetail) + ", then "
        DetailWidget.draw(
            in: &canvas, rect, title: content.title, lines: content.lines, theme: theme, labelWidth: content.labelWidth,
            scroll: model.detailScroll, keys: .init(up: open + label(.pageUp), down: open + label(.pageDown)))
    }

    /// Where the detail goes: a toast takes the body's last line, so the pane ends above it.
    static func detailRect(_ model: AppModel, layout: ScreenLayout) -> Rect {
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
    static func detailContent(_ model: AppModel, theme: Theme) -> (title: String, lines: [DetailLine], labelWidth: Int)? {
        guard let record = model.selected else { return nil }
        let kind = model.list.kind
        var lines: [DetailLine] = []
        // A refused sync first: it is what the user has to act on, and a long record would push it
        // below the fold.
        let errors = RecordSyncError.errors(of: record)
        if !errors.isEmpty {
            lines.append(.heading("The org refused the last sync of this record"))
            for error in errors {
                let labels = error.fields.map { field in
                    model.fieldNames(for: kind).contains(field) || field == "AccountId" ? model.label(of: field, in: kind) : field
                }
                lines.append(.text(error.sentence + (labels.isEmpty ? "" : " (\(labels.joined(separator: ", ")))"), role: .fieldError))
            }
            let key = { (command: AppCommand) in model.messages.key(command) }
            if errors.contains(where: { $0.code == "CREATE_IN_DOUBT" }) {
                lines.append(.text("\(key(.resolveConflict)) decides: take one of the org's records as it, or create it anew", role: .hint))
            } else if record.isLocallyCreated, errors.contains(where: { $0.code == "DUPLICATES_DETECTED" }) {
                lines.append(.text("\(key(.resolveConflict)) decides: save it anyway, open the org's, or discard yours", role: .hint))
            } else {
                lines.append(
                    .text(
                        "\(key(.editRecord)) fixes it (the fields are marked), \(key(.revertRecord)) reverts your changes; \(key(.sync)) sends it again",
                        role: .hint))
            }
            lines.append(.blank)
        }
        if let comparison = model.conflictComparison {
            lines += conflictLines(comparison, record: record, model: model, ascii: theme.lines == .ascii)
        } else {
            lines += fieldLines(record, model: model)
        }
        lines.append(.blank)
        lines.append(.field(label: "Local state", value: model.conflictComparison?.deletion ?? record.state.summary))
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
                if model.accountContacts.isEmpty { lines.append(.text("None yet: \(model.messages.key(.newRecord)) creates one here", role: .hint)) }
                for (index, contact) in model.accountContacts.enumerated() {
                    lines.append(.row(row(for: contact, kind: model.contacts?.kind ?? .contact, theme: theme), selected: index == model.accountContactIndex))
                }
            } else {
                lines.append(.text("\(model.messages.key(.openDetail)) lists them", role: .hint))
            }
        }
        let title = kind.displayName(of: record)
        let labels = model.fieldNames(for: kind).map { model.label(of: $0, in: kind) }
        return (title.isEmpty ? "(no name)" : title, lines, labelColumns(labels))
    }

    /// Every field of a record: the form's fields first, then whatever else the org sent.
    static func fieldLines(_ record: LocalRecord, model: AppModel) -> [DetailLine] {
        let kind = model.list.kind
        var lines: [DetailLine] = []
        var shown: Set<String> = []
        let fields = model.fieldNames(for: kind)
        let address = PostalAddressFields(kind: kind)
        for field in fields {
            shown.insert(field)
            if address.isShownTogether(in: fields), address.fields.contains(field) {
                if field == address.fields[0] { lines.append(.field(label: "Address", value: address.oneLine(record))) }
            } else if field == "AccountId" {
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
}
