import ForceJSON
import MobileSync

/// The edit form: new and edit, the keys that move and type in it, Enter on a lookup, a choice
/// or a checkbox, saving through the form's rules, and the question before discarding edits.
extension AppModel {
    /// The form being edited, with whatever it opened over itself.
    public var formSession: FormSession? {
        if case let .form(session) = overlay { return session }
        return nil
    }

    public var form: RecordForm? { formSession?.form }

    /// The list a lookup field's record is picked from, while the picker is open.
    public var lookupPicker: LookupPicker? {
        if case let .lookup(picker)? = formSession?.prompt { return picker }
        return nil
    }

    /// The values a picklist (or the record type) is picked from, while that picker is open.
    public var choicePicker: ChoicePicker? {
        if case let .choice(picker)? = formSession?.prompt { return picker }
        return nil
    }

    mutating func startNewRecord() {
        if tab.kind?.role == .account, detail.isOpen, let account = selected, let contactKind = contacts?.kind {
            // A new contact under the account, even one created offline (its local_ id is the link).
            guard contactKind.isSyncedUp else {
                toast = Toast(Messages.notSyncedUp(contactKind))
                return
            }
            let name = account.string("Name")
            let form = schema.form(
                kind: contactKind, purpose: .create(preset: ["AccountId": .string(account.serverId ?? "")]),
                title: "New contact at \(name)", record: nil)
            overlay = .form(FormSession(form: form))
        } else {
            guard list.kind.isSyncedUp else {
                toast = Toast(Messages.notSyncedUp(list.kind))
                return
            }
            let form = schema.form(kind: list.kind, purpose: .create(preset: [:]), title: "New \(list.kind.singular)", record: nil)
            overlay = .form(FormSession(form: form))
        }
    }

    mutating func startEditing() {
        guard let record = selected else { return }
        guard list.kind.isSyncedUp else {
            toast = Toast(Messages.notSyncedUp(list.kind))
            return
        }
        guard !record.isLocallyDeleted else {
            toast = Toast(messages.undeleteBeforeEditing(list.kind))
            return
        }
        let name = list.kind.displayName(of: record)
        var form = schema.form(kind: list.kind, purpose: .edit(entryId: record.entryId), title: "Edit \(name)", record: record)
        form.mark(RecordSyncError.errors(of: record))
        overlay = .form(FormSession(form: form))
    }

    /// A key while the form (or something it opened) has the keys.
    mutating func editing(_ session: FormSession, _ command: AppCommand) throws {
        var session = session
        switch session.prompt {
        case let .lookup(picker)?: try pickingLookup(picker, command, in: &session)
        case let .choice(picker)?: pickingChoice(picker, command, in: &session)
        case .discard?:
            if command == .confirmYes {
                overlay = nil
                return
            }
            session.prompt = nil
        case nil:
            if try editingFields(command, in: &session) { return }
        }
        overlay = .form(session)
    }

    /// The form's own keys; returns true when the form closed (saved or cancelled).
    private mutating func editingFields(_ command: AppCommand, in session: inout FormSession) throws -> Bool {
        switch command {
        case .nextField: session.form.focusNext()
        case .previousField: session.form.focusPrevious()
        case .cursorLeft: session.form.moveCursor(by: -1)
        case .cursorRight: session.form.moveCursor(by: 1)
        case .cursorHome: session.form.moveCursorToStart()
        case .cursorEnd: session.form.moveCursorToEnd()
        case .deleteBackward: session.form.deleteBackward()
        case .deleteForward: session.form.deleteForward()
        case .clearLine: session.form.clearFocused()
        case .save: return try save(&session)
        case .openLookup: try openPicker(in: &session)
        case .cancelEdit:
            if session.form.isDirty {
                session.prompt = .discard
            } else {
                overlay = nil
                return true
            }
        default:
            break
        }
        return false
    }

    mutating func typeIntoForm(_ character: Character) throws {
        guard var session = formSession else { return }
        switch session.prompt {
        case nil: session.form.insert(character)
        case var .choice(picker)?:
            picker.type(character)
            session.prompt = .choice(picker)
        case var .lookup(picker)?:
            try picker.list.setSearch(picker.list.search + String(character))
            session.prompt = .lookup(picker)
        case .discard?: return
        }
        overlay = .form(session)
    }

    /// Saves the form locally when its rules pass; returns true when it was saved (and closed).
    private mutating func save(_ session: inout FormSession) throws -> Bool {
        let wasDirty = session.form.isDirty
        let repository = RecordRepository(store: store, kind: session.form.kind)
        // First the record as stored now (a sync may have changed it), then the rules against it.
        if case let .edit(entryId) = session.form.purpose, let stored = try repository.record(entryId: entryId),
            let clash = session.form.rebase(onto: stored).first
        {
            // A sync changed a field the user changed too: said, and saved on the next save.
            toast = Toast(messages.changedWhileEditing(clash.rule.label, now: LocalRecord.text(stored.document[clash.name])), isError: true)
            return false
        }
        guard session.form.validate() else {
            toast = Toast(messages.notSaved(problems: session.form.problems.count), isError: true)
            return false
        }
        let current = session.form
        let saved: LocalRecord
        switch current.purpose {
        case .create:
            saved = try repository.create(fields: current.values)
            // What the org's duplicate rule will find, said now rather than after the sync.
            if current.kind.role == .contact, let match = try LikelyDuplicate.find(for: saved, in: repository) {
                toast = Toast(messages.savedLikelyDuplicate(of: current.kind.displayName(of: match.record), because: match.reason))
            } else {
                toast = Toast(syncsAutomatically ? messages.savedToSend : messages.savedLocally)
            }
        case let .edit(entryId):
            saved = try repository.update(entryId: entryId, fields: current.values)
            toast = Toast(wasDirty ? (syncsAutomatically ? messages.savedToSend : messages.savedLocally) : messages.nothingChanged)
        }
        overlay = nil
        try refreshAll()
        // The search stays as it was, and the saved record stays selected and in view even when
        // it no longer matches (another record sliding under the cursor would be edited next).
        if current.kind == tab.kind {
            try updateList { try $0.select(entryId: saved.entryId, keepingInView: true) }
            if !list.search.isEmpty, try list.showsOnlyAsKept(saved.entryId) { toast = Toast(messages.savedOutsideSearch(list.search)) }
        }
        return true
    }
}
