import ContactsApp

/// The edit form in the detail's place: each field as it is typed or picked, and the keys for it.
extension ContactsScreen {
    static func drawForm(_ form: RecordForm, model: AppModel, in canvas: inout Canvas, rect: Rect, theme: Theme) {
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
            // The focused field scrolls to its cursor; the others show the start of a long value.
            let cursor = index != form.focusedIndex ? 0 : field.isTyped ? field.cursor : value.count
            return FormFieldView(
                label: field.rule.label, value: value, cursor: cursor,
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
}
