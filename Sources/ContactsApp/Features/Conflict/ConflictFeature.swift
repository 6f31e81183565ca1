import MobileSync

/// The conflict dialog (`c` on a record marked ≠): keep mine or take the server's, field by field
/// when several fields conflict, through MobileSync's resolver.
extension AppModel {
    /// The selected record's conflict, field by field, when it has one.
    public var conflictComparison: ConflictComparison? {
        guard let record = selected else { return nil }
        return ConflictComparison(record: record, fields: fieldNames(for: list.kind))
    }

    /// In the conflict dialog, which of the conflicting fields `m` / `t` settle.
    public var conflictFieldIndex: Int {
        if case let .conflict(dialog) = overlay { return dialog.fieldIndex }
        return 0
    }

    /// The conflicting field `m` / `t` settle now; nil when they settle the whole conflict.
    public var highlightedConflictField: String? {
        guard case let .conflict(dialog) = overlay, let comparison = conflictComparison,
            !comparison.deletedOnServer, !comparison.deletedHere
        else { return nil }
        let fields = comparison.conflictingFields
        return fields.count > 1 ? fields[min(dialog.fieldIndex, fields.count - 1)] : nil
    }

    mutating func openConflict() {
        guard let record = selected else { return }
        if record.hasConflict {
            overlay = .conflict(ConflictDialog())
        } else if let dialog = CreateDecisionDialog(record: record) {
            overlay = .decision(dialog)
        } else {
            toast = Toast(messages.noConflict(list.kind))
        }
    }

    mutating func resolving(_ dialog: ConflictDialog, _ command: AppCommand) throws {
        var dialog = dialog
        let comparison = conflictComparison
        let fields = comparison?.conflictingFields ?? []
        switch command {
        case .moveDown: dialog.fieldIndex = min(dialog.fieldIndex + 1, max(fields.count - 1, 0))
        case .moveUp: dialog.fieldIndex = max(dialog.fieldIndex - 1, 0)
        case let .resolve(choice) where fields.count > 1 && comparison?.deletedOnServer == false && comparison?.deletedHere == false:
            overlay = .conflict(dialog)
            try resolveConflict(choice, fields: [fields[min(dialog.fieldIndex, fields.count - 1)]])
            return
        case let .resolve(choice), let .resolveAll(choice):
            overlay = .conflict(dialog)
            try resolveConflict(choice, fields: nil)
            return
        default:
            overlay = nil
            return
        }
        overlay = .conflict(dialog)
    }

    /// Settles `fields` of the selected record's conflict (all of them when nil), in one
    /// transaction; the dialog stays open while fields are left.
    private mutating func resolveConflict(_ choice: ConflictChoice, fields: [String]?) throws {
        guard let record = selected, record.hasConflict else {
            overlay = nil
            return
        }
        let settling = fields ?? conflictComparison?.conflictingFields ?? []
        try ConflictResolver(store: store, soupName: list.kind.soupName).resolve(entryId: record.entryId, fields: fields, choice: choice)
        try refreshAll()
        let labels = fields.map { $0.map { self.label(of: $0, in: list.kind) }.joined(separator: ", ") }
        // The record as stored now: a list of conflicts only has moved on to the next one.
        let after = try RecordRepository(store: store, kind: list.kind).record(entryId: record.entryId)
        if let after, after.hasConflict {
            let left = ConflictComparison(record: after, fields: fieldNames(for: list.kind))?.conflictingFields.count ?? 0
            // The dialog stays on this record while it is the one selected.
            overlay = selected?.entryId == record.entryId ? .conflict(ConflictDialog(fieldIndex: min(conflictFieldIndex, max(left - 1, 0)))) : nil
            toast = Toast(messages.resolvedSome(choice, fields: labels, left: left))
            return
        }
        overlay = nil
        if choice == .takeServer, labels == nil, !settling.isEmpty, after?.hasLocalChanges == true {
            // The server's values won where both changed; the rest of mine stays queued.
            toast = Toast(messages.tookServersKeepingOthers(settling.map { label(of: $0, in: list.kind) }.joined(separator: ", ")))
            return
        }
        toast = Toast(messages.resolved(choice, fields: labels))
    }
}
