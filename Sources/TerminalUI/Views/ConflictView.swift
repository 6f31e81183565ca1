import ContactsApp
import MobileSync

/// A record in conflict: both versions side by side in the detail, and the dialog that settles it.
extension ContactsScreen {
    /// The conflict dialog over the detail: what differs, and which keys settle it.
    static func drawConflictDialog(_ model: AppModel, in canvas: inout Canvas, within body: Rect, theme: Theme) {
        let name = model.selected.map(model.list.kind.displayName) ?? ""
        let comparison = model.conflictComparison
        let differing = comparison?.differingCount ?? 0
        let gone = comparison?.deletedOnServer == true
        let marker = theme.lines == .ascii ? ">" : "▸"
        var question =
            gone
            ? "\(name) was deleted on the server after you changed it here. Keep mine creates it again; take the server's removes it here."
            : "\(name) changed here and on the server (\(differing == 1 ? "1 field differs" : "\(differing) fields differ")). Which version wins?"
        // One field both sides changed: named, with both values, as the several-field question does.
        if !gone, comparison?.conflictingFields.count == 1, let row = comparison?.rows.first(where: \.conflicting) {
            let label = model.fieldNames(for: model.list.kind).contains(row.field) ? model.label(of: row.field, in: model.list.kind) : row.field
            question = "\(name): \(label) changed here and on the server: mine \"\(row.local)\", the server's \"\(row.server)\". Which wins?"
        }
        var choices = "m = keep mine   t = take the server's   Esc = later"
        if let field = model.highlightedConflictField {
            let label = model.fieldNames(for: model.list.kind).contains(field) ? model.label(of: field, in: model.list.kind) : field
            let count = comparison?.conflictingFields.count ?? 0
            let row = comparison?.rows.first { $0.field == field }
            // The marker is on the detail's row, which a narrow screen shows only with the detail open.
            let detailShown = canvas.size.width >= ScreenLayout.sideBySideMinimumWidth || model.detail.isOpen
            let marked = detailShown ? "marked \(marker), " : ""
            question =
                "\(name): \(count) fields changed on both sides. \(label) (\(marked)↑/↓ picks another): "
                + "mine \"\(row?.local ?? "")\", the server's \"\(row?.server ?? "")\". Which wins?"
            choices = "m = mine   t = the server's   M / T = for all \(count)   Esc = later"
        }
        ConfirmDialog.draw(in: &canvas, within: body, question: question, theme: theme, title: "Conflict", choices: choices)
    }

    /// A duplicate the org refused, or a create in doubt: what the org said, and the ways out.
    static func drawCreateDecision(_ model: AppModel, in canvas: inout Canvas, within body: Rect, theme: Theme) {
        guard let dialog = model.createDecision else { return }
        let name =
            (try? RecordRepository(store: model.store, kind: model.list.kind).record(entryId: dialog.entryId)).flatMap { $0 }
            .map(model.list.kind.displayName) ?? ""
        let words = model.messages.createDecision(dialog, name: name)
        let title: String = if case .duplicate = dialog.kind { "Duplicate" } else { "Create in doubt" }
        ConfirmDialog.draw(in: &canvas, within: body, question: words.question, theme: theme, title: title, choices: words.choices)
    }

    /// Both versions of a conflicted record, differing fields highlighted, and how to settle it.
    static func conflictLines(_ comparison: ConflictComparison, record: LocalRecord, model: AppModel, ascii: Bool) -> [DetailLine] {
        let kind = model.list.kind
        let what =
            comparison.deletion ?? "both sides changed "
            + comparison.conflictingFields.map { field in
                model.fieldNames(for: kind).contains(field) ? model.label(of: field, in: kind) : field
            }.joined(separator: ", ")
        var lines: [DetailLine] = [
            .text("Conflict: \(what). \(model.messages.key(.resolveConflict)) resolves it.", role: .markerConflict),
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
}
