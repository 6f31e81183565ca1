import MobileSync

/// The detail pane: open or not (on a narrow screen it replaces the list), how far it is scrolled
/// within the rows the screen gives it, and for an account its contacts, ↑/↓ moving through them.
public struct DetailState: Sendable {
    public internal(set) var isOpen = false
    public internal(set) var accountContacts: [LocalRecord] = []
    public internal(set) var accountContactCount = 0
    public internal(set) var accountContactIndex = 0
    /// Content rows scrolled past (`DetailViewport`), kept for one record.
    public internal(set) var scroll = 0
    /// The pane as the screen fits it, and whose it was: another record starts at the top.
    var viewport = DetailViewport.empty
    var scrollOwner: Int64?
    /// The highlighted row last brought into view, so scrolling away from it with PgDn sticks.
    var revealedRow: Int?
}

/// Enter and back: the detail, a contact's account, an account's contact, and the way back.
extension AppModel {
    /// How many of an account's contacts the detail lists.
    public static let accountContactLimit = 200

    public var detailOpen: Bool { detail.isOpen }
    public var accountContacts: [LocalRecord] { detail.accountContacts }
    public var accountContactCount: Int { detail.accountContactCount }
    public var accountContactIndex: Int { detail.accountContactIndex }
    public var detailScroll: Int { detail.scroll }

    mutating func openDetail() throws {
        guard let record = selected else { return }
        if tab.kind?.role == .contact, detail.isOpen {
            // Enter in a contact's detail opens its account; back returns here.
            guard let account = account(of: record), let accountIndex = lists.firstIndex(where: { $0.kind.role == .account }) else {
                toast = Toast(record.string("AccountId").isEmpty ? messages.contactWithoutAccount : messages.accountNotInStore)
                return
            }
            backStack.append(Place(listIndex: listIndex, entryId: record.entryId))
            tab = .records(lists[accountIndex].kind)
            listIndex = accountIndex
            try lists[accountIndex].setSearch("")
            try lists[accountIndex].setFilter(.all)
            try lists[accountIndex].select(entryId: account.entryId)
            try loadAccountContacts(of: account)
            try countFilters()
            return
        }
        if tab.kind?.role == .account, detail.isOpen {
            // Enter on one of the account's contacts opens it in the Contacts tab; back returns here.
            guard detail.accountContacts.indices.contains(detail.accountContactIndex),
                let contactIndex = lists.firstIndex(where: { $0.kind.role == .contact })
            else { return }
            let contact = detail.accountContacts[detail.accountContactIndex]
            backStack.append(Place(listIndex: listIndex, entryId: record.entryId))
            tab = .records(lists[contactIndex].kind)
            listIndex = contactIndex
            try lists[contactIndex].setSearch("")
            try lists[contactIndex].select(entryId: contact.entryId)
            try countFilters()
            return
        }
        backStack = []
        detail.isOpen = true
        if tab.kind?.role == .account { try loadAccountContacts(of: record) }
    }

    /// Back: to the record whose Enter opened this one, else out of the detail, else the search
    /// cleared.
    mutating func back() throws {
        if detail.isOpen, let place = backStack.popLast() {
            tab = .records(lists[place.listIndex].kind)
            listIndex = place.listIndex
            try lists[place.listIndex].select(entryId: place.entryId)
            try loadSelectedAccountContacts()
            try countFilters()
        } else if detail.isOpen {
            detail.isOpen = false
        } else if !list.search.isEmpty {
            try updateList { try $0.setSearch("") }
        }
    }

    /// The detail pane as the screen fits it (nil: none shown). A record other than the last one
    /// fitted starts at the top; a newly highlighted contact is scrolled into view.
    public mutating func fitDetail(_ viewport: DetailViewport?, record entryId: Int64?) {
        guard let viewport else {
            detail.viewport = .empty
            detail.scroll = 0
            detail.scrollOwner = nil
            detail.revealedRow = nil
            return
        }
        if entryId != detail.scrollOwner {
            detail.scroll = 0
            detail.scrollOwner = entryId
            detail.revealedRow = nil
        }
        detail.viewport = viewport
        if let row = viewport.selectedRow, row != detail.revealedRow {
            detail.scroll = viewport.revealing(row, from: detail.scroll)
            detail.revealedRow = row
        }
        detail.scroll = viewport.clamped(detail.scroll)
    }

    /// PgUp / PgDn with the detail open scroll it, when it does not fit.
    mutating func scrollDetail(pages: Int) -> Bool {
        guard detail.isOpen, detail.viewport.scrollLimit > 0 else { return false }
        detail.scroll = detail.viewport.clamped(detail.scroll + pages * detail.viewport.pageRows)
        return true
    }

    /// Keeps the selected account's contacts current: the first of them and their count while its
    /// detail is open, the count alone otherwise (the side-by-side detail shows it).
    mutating func loadSelectedAccountContacts() throws {
        guard tab.kind?.role == .account, let account = selected else { return }
        if detail.isOpen {
            try loadAccountContacts(of: account)
        } else {
            detail.accountContactCount =
                try account.serverId.flatMap { id in
                    try contacts.map { try $0.repository.count(where: "AccountId", equals: id) }
                } ?? 0
        }
    }

    private mutating func loadAccountContacts(of account: LocalRecord) throws {
        guard let id = account.serverId, let contacts else {
            detail.accountContacts = []
            detail.accountContactCount = 0
            return
        }
        detail.accountContacts = try contacts.repository.records(where: "AccountId", equals: id, limit: Self.accountContactLimit)
        detail.accountContactCount = try contacts.repository.count(where: "AccountId", equals: id)
        detail.accountContactIndex = min(detail.accountContactIndex, max(detail.accountContacts.count - 1, 0))
    }
}
