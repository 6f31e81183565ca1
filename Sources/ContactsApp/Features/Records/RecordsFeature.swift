import MobileSync

/// A record tab with nothing over it: moving through the list, searching, sorting and filtering,
/// copying a record. Opening the detail and changing records are their own features; this routes
/// their keys to them.
extension AppModel {
    mutating func browse(_ command: AppCommand) throws {
        if readOnly, Self.changesTheStore(command) {
            toast = Toast(Messages.readOnlyStore, isError: true)
            return
        }
        switch command {
        case .moveUp: try moveSelection(-1)
        case .moveDown: try moveSelection(1)
        case .pageUp: if !scrollDetail(pages: -1) { try updateList { try $0.pageUp() } }
        case .pageDown: if !scrollDetail(pages: 1) { try updateList { try $0.pageDown() } }
        case .moveToTop: try updateList { try $0.moveToTop() }
        case .moveToBottom: try updateList { try $0.moveToBottom() }
        case .openDetail: try openDetail()
        case .back: try back()
        case .startSearch:
            detail.isOpen = false
            overlay = .searching
            try updateList { try $0.prepareSearch() }
        case .newRecord: startNewRecord()
        case .editRecord: startEditing()
        case .deleteRecord: askToDelete()
        case .undeleteRecord: try undeleteSelected()
        case .revertRecord: askToRevert()
        case .resolveConflict: openConflict()
        case .subscribe: startSubscribing()
        case .toggleOffline: toggleOffline()
        case .nextSort:
            let next = list.repository.sort.next(for: list.kind)
            let accountsSoup = accounts?.kind.soupName
            try updateList { try $0.setSort(next, accountsSoup: accountsSoup) }
            toast = Toast(messages.sorted(by: list.repository.sort.label(for: list.kind)))
        case .nextFilter:
            let next = list.filter.next
            try updateList { try $0.setFilter(next) }
            try countFilters()
            if list.totalCount == 0, next != .all { toast = Toast(messages.emptyFilter(next.title(list.kind.plural))) }
        case .copyValue, .copyRecord:
            copy(whole: command == .copyRecord)
        default:
            try common(command)
        }
    }

    /// The search box: typed text narrows the list at once; Enter keeps the filter, Esc clears it.
    mutating func searching(_ command: AppCommand) throws {
        switch command {
        case .keepSearch:
            overlay = nil
        case .clearSearch:
            overlay = nil
            try updateList { try $0.setSearch("") }
        case .deleteBackward:
            let text = String(list.search.dropLast())
            try updateList { try $0.setSearch(text) }
        case .moveUp: try moveSelection(-1)
        case .moveDown: try moveSelection(1)
        default:
            break
        }
    }

    mutating func typeSearch(_ character: Character) throws {
        let text = list.search + String(character)
        try updateList { try $0.setSearch(text) }
    }

    /// ↑ / ↓: the list's selection, or in an open account's detail, its highlighted contact.
    mutating func moveSelection(_ delta: Int) throws {
        if detail.isOpen, tab.kind?.role == .account {
            detail.accountContactIndex = min(max(detail.accountContactIndex + delta, 0), max(detail.accountContacts.count - 1, 0))
        } else {
            try updateList { try $0.move(by: delta) }
        }
    }

    /// What `y` copies of a record, in order of preference: how one reaches the person or company.
    static let copiedFields = ["Email", "MobilePhone", "Phone", "HomePhone", "Website"]

    /// `y`: the selected record's email (else phone, else website); `Y`: its fields as lines of
    /// `Label: value`. In an account's detail, the contact highlighted there.
    private mutating func copy(whole: Bool) {
        var kind = list.kind
        var record = selected
        if detail.isOpen, kind.role == .account, detail.accountContacts.indices.contains(detail.accountContactIndex),
            let contacts = kinds.first(where: { $0.role == .contact })
        {
            kind = contacts
            record = detail.accountContacts[detail.accountContactIndex]
        }
        guard let record else { return }
        let name = kind.displayName(of: record)
        if whole {
            let lines =
                [name]
                + fieldNames(for: kind).compactMap { field -> String? in
                    let value = field == "AccountId" ? (account(of: record)?.string("Name") ?? "") : displayValue(of: field, in: record, kind: kind)
                    return value.isEmpty ? nil : "\(label(of: field, in: kind)): \(value)"
                }
            clipboardText = lines.joined(separator: "\n")
            toast = Toast(messages.copied(record: name, fields: lines.count - 1))
            return
        }
        guard let field = Self.copiedFields.first(where: { !record.string($0).isEmpty }) else {
            toast = Toast(messages.nothingToCopy(name: name, kind: kind), isError: true)
            return
        }
        clipboardText = record.string(field)
        toast = Toast(messages.copied(value: record.string(field)))
    }

    /// The commands a read-only store refuses.
    static func changesTheStore(_ command: AppCommand) -> Bool {
        switch command {
        case .newRecord, .editRecord, .deleteRecord, .undeleteRecord, .revertRecord, .resolveConflict, .sync: true
        default: false
        }
    }
}
