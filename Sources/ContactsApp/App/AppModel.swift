import ForceJSON
import Foundation
import MobileSync
import SmartStore

/// The whole app's state and what each command does to it, with no terminal in sight: tabs, a
/// list per soup of records, the detail, the edit form and its prompts, toasts, and the sync. The
/// TUI renders it and feeds it commands; tests drive it the same way.
public struct AppModel: Sendable {
    public let store: SmartStore
    public let syncedFields: SyncedFields
    /// How each kind's records are edited (fields, lookups, the org's rules).
    public let schema: RecordSchema
    /// The soups with a record tab, in tab order (`RecordKind.tabs`).
    public let kinds: [RecordKind]
    public private(set) var tab: AppTab
    /// One list per kind, in the same order.
    public private(set) var lists: [RecordListViewModel]
    /// The list `list` means: the record tab shown, or the last one shown while on Syncs or the
    /// Inspector.
    private var listIndex = 0
    /// Stands in for `list` when the config fills no soup; never read from the store.
    private let noList: RecordListViewModel
    public private(set) var mode: AppMode = .browsing
    /// Rows of the `?` screen's keys scrolled past, when they do not fit the terminal.
    public private(set) var helpScroll = 0
    static let helpScrollLimit = 80
    /// The Syncs tab, also the source of the status line's last sync time.
    public private(set) var syncs: SyncsViewModel
    public private(set) var inspector: InspectorViewModel
    /// The detail pane has focus: on a narrow screen it replaces the list; for an account, ↑/↓
    /// move through its contacts and Enter opens one.
    public private(set) var detailOpen = false
    public private(set) var accountContacts: [LocalRecord] = []
    public private(set) var accountContactCount = 0
    public private(set) var accountContactIndex = 0
    /// Content rows of the detail pane scrolled past (`DetailViewport`), kept for one record.
    public private(set) var detailScroll = 0
    /// The detail pane as last drawn, and whose it was: another record starts at the top.
    private var detailViewport = DetailViewport.empty
    private var detailScrollOwner: Int64?
    /// The highlighted row last brought into view, so scrolling away from it with PgDn sticks.
    private var revealedDetailRow: Int?
    public private(set) var form: RecordForm?
    public private(set) var toast: Toast? { didSet { toastGeneration &+= 1 } }
    /// Changes whenever a toast is shown or dismissed, so a repeated message counts as new.
    public private(set) var toastGeneration: UInt64 = 0
    public private(set) var localChangeCount = 0
    /// How many records of the shown list each filter keeps (local changes, errors, conflicts).
    public private(set) var filterCounts: [RecordFilter: Int] = [:]
    public private(set) var shouldQuit = false
    /// Set by `--offline`: sync says so at once and keeps every change queued.
    public let offline: Bool
    /// The store could only be opened for reading (its file or directory is not writable): the
    /// records show, and every change and sync is refused with the reason.
    public let readOnly: Bool
    public let sync: SyncController?
    /// Times on screen (last sync, a sync's runs) are shown in this zone.
    public let timeZone: TimeZone
    /// How many of an account's contacts the detail lists.
    public static let accountContactLimit = 200

    /// `kinds` are the record tabs (default: forceterm's own contacts and accounts soups); with
    /// none, the app opens on Syncs and the Inspector alone.
    public init(
        store: SmartStore, syncedFields: SyncedFields, kinds: [RecordKind] = [.contact, .account], sync: SyncController? = nil,
        offline: Bool = false, timeZone: TimeZone = .current, descriptions: ObjectDescriptions? = nil
    ) throws {
        readOnly = store.isReadOnly
        self.store = store
        self.descriptions = descriptions
        self.timeZone = timeZone
        self.syncedFields = syncedFields
        schema = RecordSchema(kinds: kinds, syncedFields: syncedFields, descriptions: descriptions)
        self.sync = sync
        self.offline = offline
        self.kinds = kinds
        lists = try kinds.map { kind in
            let repository = RecordRepository(store: store, kind: kind)
            if !store.isReadOnly { try repository.prepareListIndexes() }
            return RecordListViewModel(repository: repository)
        }
        noList = RecordListViewModel(repository: RecordRepository(store: store, kind: RecordKind(soupName: "", sObjectType: "")))
        tab = kinds.first.map(AppTab.records) ?? .syncs
        syncs = SyncsViewModel(store: store)
        inspector = InspectorViewModel(store: store)
        syncs.refresh()
        // After this model's own index writes, before its first read: another process's write from
        // here on shows on a later tick.
        seenChanges = store.changeStamp()
        for index in lists.indices { try lists[index].refresh() }
        try countLocalChanges()
        try countFilters()
        readDescriptions()
    }

    /// The tabs, left to right.
    public var tabs: [AppTab] { kinds.map(AppTab.records) + [.syncs, .inspector] }

    /// The record list of the record tab shown (the last one shown, behind Syncs and Inspector).
    public var list: RecordListViewModel { lists.indices.contains(listIndex) ? lists[listIndex] : noList }

    /// The list of contacts and the list of accounts, when the config fills such soups.
    public var contacts: RecordListViewModel? { lists.first { $0.kind.role == .contact } }
    public var accounts: RecordListViewModel? { lists.first { $0.kind.role == .account } }

    /// The mode a finished dialog returns to: the Inspector has its own keys.
    public var homeMode: AppMode { tab == .inspector ? .inspecting : .browsing }
    public var selected: LocalRecord? { list.selected }

    /// The list a lookup field's record is picked from, while the picker is open.
    public private(set) var lookupPicker: LookupPicker?
    /// The values a picklist (or the record type) is picked from, while that picker is open.
    public private(set) var choicePicker: ChoicePicker?
    /// The org's describes, kept by the config's metadata syncs; nil: built-in rules, no note.
    public let descriptions: ObjectDescriptions?

    /// The org's describes of the tabs' sObjects, read at start and after each sync (not per frame:
    /// a real org's describe is hundreds of kilobytes).
    private var described: [String: ObjectDescription] = [:]

    /// What the screens call `field` of `kind`: the org's label when its describe is kept, else
    /// forceterm's own.
    public func label(of field: String, in kind: RecordKind) -> String {
        if field == "RecordTypeId", described[kind.sObjectType] != nil { return "Record Type" }
        return described[kind.sObjectType]?.field(field)?.label ?? FieldRule.rule(for: field, of: kind).label
    }

    /// A stored value as the detail shows it: a record type by its label, else the value.
    public func displayValue(of field: String, in record: LocalRecord, kind: RecordKind) -> String {
        let value = record.string(field)
        if field == "RecordTypeId", let label = described[kind.sObjectType]?.recordTypeLabel(value) { return label }
        return value
    }

    private mutating func readDescriptions() {
        guard let descriptions else { return }
        var found: [String: ObjectDescription] = [:]
        for kind in kinds where found[kind.sObjectType] == nil {
            found[kind.sObjectType] = descriptions.description(of: kind.sObjectType)
        }
        described = found
    }

    /// What a choice field shows: the record type's label, else the value.
    public func choiceDisplay(_ field: FormField) -> String {
        guard field.rule.format == .recordType, let form else { return field.value }
        return form.description?.recordTypeLabel(field.value) ?? field.value
    }

    /// The lookup fields of `kind`'s form (a contact's AccountId → the accounts).
    public func lookups(for kind: RecordKind) -> [String: RecordKind] { schema.lookups(for: kind) }

    /// What a lookup field shows: the name of the record its id points at, else the id and why.
    public func lookupDisplay(_ field: FormField) -> String {
        guard let kind = field.lookup, !field.value.isEmpty else { return field.value }
        guard let list = lists.first(where: { $0.kind == kind }), let record = try? list.repository.record(id: field.value) else {
            return "\(field.value) (not in this store)"
        }
        let name = kind.displayName(of: record)
        return name.isEmpty ? field.value : name
    }

    /// The fields the form edits for `kind`: usersyncs.json's, or built-in ones if it names none.
    public func fieldNames(for kind: RecordKind) -> [String] { schema.fieldNames(for: kind) }

    /// The account a contact belongs to, for the detail pane.
    public func account(of contact: LocalRecord) -> LocalRecord? {
        account(id: contact.string("AccountId"))
    }

    /// The account with this id (server or local), when the config has an accounts soup holding it.
    public func account(id: String) -> LocalRecord? {
        guard !id.isEmpty, let accounts else { return nil }
        return try? accounts.repository.record(id: id)
    }

    /// Shows `message` in the toast line, e.g. what changed in the config since the last start.
    public mutating func announce(_ message: String, isError: Bool = false) {
        toast = Toast(message, isError: isError)
    }

    // MARK: Commands

    /// Carries out `command`. Store errors become an error toast; nothing is half-saved because every
    /// write is one transaction.
    public mutating func perform(_ command: AppCommand) {
        do {
            try dispatch(command)
        } catch {
            toast = Toast("\(error)", isError: true)
            try? refreshAll()
        }
    }

    /// Text typed into the search box or the focused form field.
    public mutating func type(_ character: Character) {
        switch mode {
        case .searching:
            let text = list.search + String(character)
            do {
                try updateList { try $0.setSearch(text) }
            } catch {
                toast = Toast("\(error)", isError: true)
            }
        case .editing:
            form?.insert(character)
        case .typingQuery:
            inspector.type(character)
        case .pickingLookup where choicePicker != nil:
            choicePicker?.type(character)
        case .pickingLookup:
            guard var picker = lookupPicker else { return }
            do {
                try picker.list.setSearch(picker.list.search + String(character))
            } catch {
                toast = Toast("\(error)", isError: true)
            }
            lookupPicker = picker
        default:
            break
        }
    }

    /// The list pane's height changed (resize); the visible window is reloaded to fit.
    public mutating func setListHeight(_ height: Int) {
        inspector.setPageSize(max(height - 5, 1))
        do {
            for index in lists.indices { try lists[index].setViewportHeight(height) }
        } catch {
            toast = Toast("\(error)", isError: true)
        }
    }

    /// The detail pane as the screen is about to draw it (nil: none shown). A record other than the
    /// last one drawn starts at the top; a newly highlighted contact is scrolled into view.
    public mutating func fitDetail(_ viewport: DetailViewport?, record entryId: Int64?) {
        guard let viewport else {
            detailViewport = .empty
            detailScroll = 0
            detailScrollOwner = nil
            revealedDetailRow = nil
            return
        }
        if entryId != detailScrollOwner {
            detailScroll = 0
            detailScrollOwner = entryId
            revealedDetailRow = nil
        }
        detailViewport = viewport
        if let row = viewport.selectedRow, row != revealedDetailRow {
            detailScroll = viewport.revealing(row, from: detailScroll)
            revealedDetailRow = row
        }
        detailScroll = viewport.clamped(detailScroll)
    }

    /// PgUp / PgDn with the detail open scroll it, when it does not fit.
    private mutating func scrollDetail(pages: Int) -> Bool {
        guard detailOpen, detailViewport.scrollLimit > 0 else { return false }
        detailScroll = detailViewport.clamped(detailScroll + pages * detailViewport.pageRows)
        return true
    }

    /// Online / offline as the last request found it, or why there is no sync at all.
    public var connectionText: String {
        if readOnly { return "read-only store" }
        if offline { return "offline (--offline)" }
        guard let sync else { return "not signed in — forceterm login" }
        switch sync.sessionState {
        case .signedOut: return "not signed in — forceterm login"
        case .expired: return "session expired — forceterm login"
        case .signedIn: break
        }
        switch sync.connection {
        case .unknown: return "signed in"
        case .online: return "online"
        case .offline: return "offline"
        }
    }

    /// The status line's facts, left to right: connection, pending changes, last sync, API usage;
    /// each with shorter wordings for a narrow terminal.
    public var statusFacts: [StatusFact] {
        var facts = [
            StatusFact(connectionText, sync.map { $0.sessionState == .signedIn ? [] : [$0.sessionState == .expired ? "session expired" : "not signed in"] }
                ?? ["not signed in"]),
            localChangeCount == 1 ? StatusFact("1 local change", ["1 pending"])
                : StatusFact("\(localChangeCount) local changes", ["\(localChangeCount) pending"]),
        ]
        if let last = syncs.lastSuccessfulRun {
            let time = SyncText.time(last, timeZone: timeZone)
            // "2025-03-04 10:00:00" → "03-04 10:00" → "03-04".
            let monthDay = String(time.dropFirst(5).prefix(5))
            facts.append(StatusFact("last sync \(time)", ["synced \(monthDay) \(time.dropFirst(11).prefix(5))", "synced \(monthDay)"]))
        } else {
            facts.append(StatusFact("never synced"))
        }
        if let usage = sync?.apiUsage { facts.append(StatusFact("API \(usage.used)/\(usage.limit)", [""])) }
        return facts
    }

    /// The status line's facts in their full wording.
    public var statusParts: [String] { statusFacts.map(\.full) }

    /// Called on every tick of the event loop: follows a running sync's states and picks up a
    /// finished sync.
    /// Returns whether the screen changed: another process's writes were picked up, or a sync ended.
    @discardableResult
    public mutating func tick() -> Bool {
        if sync?.isRunning == true { syncs.refresh() }
        guard let result = sync?.takeFinished() else {
            return noticeOtherWriters()
        }
        try? refreshAll()
        readDescriptions()
        switch result {
        case let .success(summary):
            // What needs the user comes first: a narrow terminal cuts the end of the line.
            var needs: [String] = []
            if summary.conflicts > 0 { needs.append("\(summary.conflicts) in conflict (c resolves)") }
            if summary.recordsWithErrors > 0 { needs.append("\(summary.recordsWithErrors) with errors (e fixes)") }
            var message: String
            if !summary.failedSyncs.isEmpty {
                message = "Sync finished, but \(summary.failedSyncs.joined(separator: ", ")) failed (the Syncs tab says why); "
                    + (needs.isEmpty ? "" : needs.joined(separator: ", ") + "; ") + summary.exchanged
            } else if !needs.isEmpty {
                message = "Sync done: " + needs.joined(separator: ", ") + "; " + summary.exchanged
            } else {
                message = "Sync complete! " + summary.exchanged.prefix(1).uppercased() + summary.exchanged.dropFirst()
            }
            toast = Toast(message, isError: !needs.isEmpty || !summary.failedSyncs.isEmpty)
        case let .failure(failure):
            toast = Toast("Sync failed: \(failure.reason)", isError: true)
        }
        return true
    }

    public mutating func dismissToast() { toast = nil }

    /// The store as last seen on disk (`SmartStore.changeStamp`), and when another process's
    /// writes were last read: a sync in another terminal writes a page every few milliseconds,
    /// and a 100k list is not re-read on every tick for it.
    private var seenChanges: SmartStore.ChangeStamp?
    private var lastOtherWritersRefresh = Date.distantPast
    static let otherWritersRefreshInterval: TimeInterval = 1

    /// Shows what another process committed (an import, a sync in another terminal) within a
    /// tick, while browsing; not while a sync of this process writes, which refreshes at its end,
    /// nor under a form or a dialog, which would lose their place. Returns whether it refreshed.
    @discardableResult
    public mutating func noticeOtherWriters() -> Bool {
        let stamp = store.changeStamp()
        guard stamp != seenChanges, sync?.isRunning != true, mode == .browsing || mode == .inspecting,
              Date().timeIntervalSince(lastOtherWritersRefresh) >= Self.otherWritersRefreshInterval else { return false }
        seenChanges = stamp
        lastOtherWritersRefresh = Date()
        do {
            try refreshAll()
            readDescriptions()
            return true
        } catch {
            return false
        }
    }

    private mutating func dispatch(_ command: AppCommand) throws {
        switch mode {
        case .pickingLookup: try pickingLookup(command)
        case .browsing where tab == .syncs: try browseSyncs(command)
        case .browsing: try browse(command)
        case .inspecting: try inspecting(command)
        case .typingQuery: typingQuery(command)
        case .searching: try searching(command)
        case .editing: try editing(command)
        case .confirmingDelete:
            mode = .browsing
            if command == .confirmYes, let record = selected {
                _ = try list.repository.delete(entryId: record.entryId)
                let contacts = try cascade(from: record) { try $0.delete(entryId: $1) }
                toast = Toast("Deleted locally" + (contacts > 0 ? " with its \(contacts) contact\(contacts == 1 ? "" : "s")" : "")
                              + "; u undeletes until the next sync")
                try refreshAll()
            }
        case .confirmingDiscard:
            if command == .confirmYes {
                form = nil
                mode = .browsing
            } else {
                mode = .editing
            }
        case .confirmingQuit:
            mode = homeMode
            if command == .confirmYes { shouldQuit = true }
        case .confirmingRevert:
            mode = .browsing
            if command == .confirmYes, let record = selected { try revert(record) }
        case .help:
            switch command {
            case .toggleHelp, .back, .quit: mode = homeMode
            case .moveDown: helpScroll = min(helpScroll + 1, Self.helpScrollLimit)
            case .moveUp: helpScroll = max(helpScroll - 1, 0)
            case .pageDown: helpScroll = min(helpScroll + 10, Self.helpScrollLimit)
            case .pageUp: helpScroll = max(helpScroll - 10, 0)
            default: break
            }
        case .resolvingConflict:
            let fields = conflictComparison?.conflictingFields ?? []
            switch command {
            case .moveDown: conflictFieldIndex = min(conflictFieldIndex + 1, max(fields.count - 1, 0))
            case .moveUp: conflictFieldIndex = max(conflictFieldIndex - 1, 0)
            case let .resolve(choice) where fields.count > 1 && conflictComparison?.deletedOnServer == false
                && conflictComparison?.deletedHere == false:
                try resolveConflict(choice, fields: [fields[min(conflictFieldIndex, fields.count - 1)]])
            case let .resolve(choice), let .resolveAll(choice):
                try resolveConflict(choice, fields: nil)
            default:
                mode = .browsing
            }
        }
    }

    private mutating func browse(_ command: AppCommand) throws {
        if readOnly, Self.changesTheStore(command) {
            toast = Toast(Self.readOnlyMessage, isError: true)
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
        case .back:
            if detailOpen, let (index, entryId) = returnTo {
                // Back from the account a contact's Enter opened: to that contact.
                returnTo = nil
                tab = .records(lists[index].kind)
                listIndex = index
                try lists[index].select(entryId: entryId)
                try countFilters()
            } else if detailOpen {
                detailOpen = false
            } else if !list.search.isEmpty {
                try updateList { try $0.setSearch("") }
            }
        case .startSearch:
            detailOpen = false
            mode = .searching
            try updateList { try $0.prepareSearch() }
        case .newRecord: startNewRecord()
        case .editRecord: startEditing()
        case .deleteRecord:
            guard let record = selected else { return }
            if !list.kind.isSyncedUp {
                toast = Toast(Self.notSyncedUp(list.kind))
            } else if record.isLocallyDeleted {
                toast = Toast("This \(list.kind.singular) is already deleted; u undeletes it")
            } else {
                mode = .confirmingDelete
            }
        case .undeleteRecord:
            guard let record = selected else { return }
            guard record.isLocallyDeleted else {
                toast = Toast("Only a deleted \(list.kind.singular) can be undeleted")
                return
            }
            _ = try list.repository.undelete(entryId: record.entryId)
            let contacts = try cascade(from: record) { try $0.undelete(entryId: $1) }
            toast = Toast("Undeleted" + (contacts > 0 ? " with its \(contacts) contact\(contacts == 1 ? "" : "s")" : ""))
            try refreshAll()
        case .nextSort:
            let next = list.repository.sort.next(for: list.kind)
            let accountsSoup = accounts?.kind.soupName
            try updateList { try $0.setSort(next, accountsSoup: accountsSoup) }
            toast = Toast("Sorted by \(list.repository.sort.label(for: list.kind)); o for the next order")
        case .nextFilter:
            let next = list.filter.next
            try updateList { try $0.setFilter(next) }
            try countFilters()
            if list.totalCount == 0, next != .all { toast = Toast("No \(next.title(list.kind.plural)); f shows the next filter") }
        case .revertRecord:
            guard let record = selected else { return }
            if !record.hasLocalChanges {
                toast = Toast("This \(list.kind.singular) has no local changes to revert")
            } else {
                mode = .confirmingRevert
            }
        case .copyValue, .copyRecord:
            copy(whole: command == .copyRecord)
        case .resolveConflict:
            guard let record = selected else { return }
            if record.hasConflict {
                mode = .resolvingConflict
                conflictFieldIndex = 0
            } else {
                toast = Toast("This \(list.kind.singular) has no conflict; c resolves one marked \(LocalState.conflict.marker)")
            }
        default:
            try common(command)
        }
    }

    /// The keys every tab shares: tabs, sync, help, quit.
    private mutating func common(_ command: AppCommand) throws {
        switch command {
        case let .showTab(newTab): try switchTab(to: newTab)
        case let .showTabNumber(number):
            guard tabs.indices.contains(number - 1) else { return }
            try switchTab(to: tabs[number - 1])
        case .nextTab:
            let index = tabs.firstIndex(of: tab) ?? 0
            try switchTab(to: tabs[(index + 1) % tabs.count])
        case .sync: startSync()
        case .toggleHelp:
            mode = .help
            helpScroll = 0
        case .quit:
            if sync?.isRunning == true { mode = .confirmingQuit } else { shouldQuit = true }
        default:
            break
        }
    }

    private mutating func browseSyncs(_ command: AppCommand) throws {
        switch command {
        case .moveUp: syncs.move(by: -1)
        case .moveDown: syncs.move(by: 1)
        case .moveToTop, .pageUp: syncs.move(by: -syncs.syncs.count)
        case .moveToBottom, .pageDown: syncs.move(by: syncs.syncs.count)
        default: try common(command)
        }
    }

    private mutating func inspecting(_ command: AppCommand) throws {
        switch command {
        case .editQuery: mode = .typingQuery
        case .moveDown, .pageDown: inspector.nextPage()
        case .moveUp, .pageUp: inspector.previousPage()
        case .showSoups: inspector.showSoups()
        case .showIndices: inspector.showIndices()
        default: try common(command)
        }
    }

    private mutating func typingQuery(_ command: AppCommand) {
        switch command {
        case .runQuery:
            inspector.run()
            mode = .inspecting
        case .stopEditingQuery: mode = .inspecting
        case .deleteBackward: inspector.prompt.deleteBackward()
        case .deleteForward: inspector.prompt.deleteForward()
        case .cursorLeft: inspector.prompt.moveCursor(by: -1)
        case .cursorRight: inspector.prompt.moveCursor(by: 1)
        case .cursorHome: inspector.prompt.moveToStart()
        case .cursorEnd: inspector.prompt.moveToEnd()
        case .clearLine: inspector.prompt.clear()
        default: break
        }
    }

    private mutating func searching(_ command: AppCommand) throws {
        switch command {
        case .keepSearch:
            mode = .browsing
        case .clearSearch:
            mode = .browsing
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

    public static let lookupPickerHeight = 8

    private mutating func pickingLookup(_ command: AppCommand) throws {
        if choicePicker != nil { return pickingChoice(command) }
        guard var picker = lookupPicker else {
            mode = .editing
            return
        }
        switch command {
        case .moveUp: try picker.list.move(by: -1)
        case .moveDown: try picker.list.move(by: 1)
        case .deleteBackward: try picker.list.setSearch(String(picker.list.search.dropLast()))
        case .keepSearch:
            if let chosen = picker.list.selected { form?.setLookup(picker.field, to: chosen.serverId ?? "") }
            lookupPicker = nil
            mode = .editing
            return
        case .clearLine:
            form?.setLookup(picker.field, to: "")
            lookupPicker = nil
            mode = .editing
            return
        case .clearSearch:
            lookupPicker = nil
            mode = .editing
            return
        default:
            break
        }
        lookupPicker = picker
    }

    private mutating func editing(_ command: AppCommand) throws {
        switch command {
        case .nextField: form?.focusNext()
        case .previousField: form?.focusPrevious()
        case .cursorLeft: form?.moveCursor(by: -1)
        case .cursorRight: form?.moveCursor(by: 1)
        case .cursorHome: form?.moveCursorToStart()
        case .cursorEnd: form?.moveCursorToEnd()
        case .deleteBackward: form?.deleteBackward()
        case .deleteForward: form?.deleteForward()
        case .clearLine: form?.clearFocused()
        case .save: try saveForm()
        case .openLookup:
            if let field = form?.focused, field.rule.format == .checkbox {
                form?.insert(" ")
                return
            }
            if let field = form?.focused, field.rule.isChoice, let form {
                guard field.rule.editable else {
                    toast = Toast("\(field.rule.label) is read-only for you in this org")
                    return
                }
                let options = form.choices(for: field)
                guard !options.isEmpty else {
                    toast = Toast("The org's describe lists no values for \(field.rule.label)")
                    return
                }
                choicePicker = ChoicePicker(field: field, options: options)
                mode = .pickingLookup
                return
            }
            guard let field = form?.focused, let kind = field.lookup, let target = lists.first(where: { $0.kind == kind }) else { return }
            var picker = LookupPicker(field: field.name, list: RecordListViewModel(repository: target.repository))
            try picker.list.setViewportHeight(Self.lookupPickerHeight)
            try picker.list.refresh()
            if !field.value.isEmpty, let current = try target.repository.record(id: field.value) { try picker.list.select(entryId: current.entryId) }
            lookupPicker = picker
            mode = .pickingLookup
        case .cancelEdit:
            if form?.isDirty == true {
                mode = .confirmingDiscard
            } else {
                form = nil
                mode = .browsing
            }
        default:
            break
        }
    }

    private mutating func pickingChoice(_ command: AppCommand) {
        guard var picker = choicePicker else { return }
        switch command {
        case .moveUp: picker.move(by: -1)
        case .moveDown: picker.move(by: 1)
        case .deleteBackward: picker.deleteBackward()
        case .keepSearch:
            if let value = picker.picked { form?.setChoice(picker.field, to: value) }
            choicePicker = nil
            mode = .editing
            return
        case .clearLine:
            if picker.format != .recordType { form?.setChoice(picker.field, to: "") }
            choicePicker = nil
            mode = .editing
            return
        case .clearSearch:
            choicePicker = nil
            mode = .editing
            return
        default:
            break
        }
        choicePicker = picker
    }

    // MARK: Actions

    private mutating func switchTab(to newTab: AppTab) throws {
        guard tabs.contains(newTab) else { return }
        returnTo = nil
        tab = newTab
        if let kind = newTab.kind, let index = kinds.firstIndex(of: kind) { listIndex = index }
        try countFilters()
        detailOpen = false
        mode = homeMode
        if tab == .syncs { syncs.refresh() }
        try loadSelectedAccountContacts()
    }

    private mutating func moveSelection(_ delta: Int) throws {
        if detailOpen, tab.kind?.role == .account {
            accountContactIndex = min(max(accountContactIndex + delta, 0), max(accountContacts.count - 1, 0))
        } else {
            try updateList { try $0.move(by: delta) }
        }
    }

    private mutating func openDetail() throws {
        guard let record = selected else { return }
        returnTo = nil
        if tab.kind?.role == .contact, detailOpen {
            // Enter in a contact's detail opens its account; back returns here.
            guard let account = account(of: record), let accountIndex = lists.firstIndex(where: { $0.kind.role == .account }) else {
                toast = Toast(record.string("AccountId").isEmpty ? "This contact has no account" : "Its account is not in this store")
                return
            }
            let from = (listIndex, record.entryId)
            tab = .records(lists[accountIndex].kind)
            listIndex = accountIndex
            try lists[accountIndex].setSearch("")
            try lists[accountIndex].setFilter(.all)
            try lists[accountIndex].select(entryId: account.entryId)
            try loadAccountContacts(of: account)
            try countFilters()
            returnTo = from
            return
        }
        if tab.kind?.role == .account, detailOpen {
            // Enter on one of the account's contacts opens it in the Contacts tab.
            guard accountContacts.indices.contains(accountContactIndex),
                  let contactIndex = lists.firstIndex(where: { $0.kind.role == .contact }) else { return }
            let contact = accountContacts[accountContactIndex]
            tab = .records(lists[contactIndex].kind)
            listIndex = contactIndex
            try lists[contactIndex].setSearch("")
            try lists[contactIndex].select(entryId: contact.entryId)
            detailOpen = true
            return
        }
        detailOpen = true
        if tab.kind?.role == .account { try loadAccountContacts(of: record) }
    }

    /// Text for the terminal's clipboard, waiting for the TUI to send it (`takeClipboardText`).
    public private(set) var clipboardText: String?

    /// The text a `y` / `Y` asked to copy, handed over once.
    public mutating func takeClipboardText() -> String? {
        defer { clipboardText = nil }
        return clipboardText
    }

    /// What `y` copies of a record, in order of preference: how one reaches the person or company.
    static let copiedFields = ["Email", "MobilePhone", "Phone", "HomePhone", "Website"]

    /// `y`: the selected record's email (else phone, else website); `Y`: its fields as lines of
    /// `Label: value`. In an account's detail, the contact highlighted there.
    private mutating func copy(whole: Bool) {
        var kind = list.kind
        var record = selected
        if detailOpen, kind.role == .account, accountContacts.indices.contains(accountContactIndex),
           let contacts = kinds.first(where: { $0.role == .contact }) {
            kind = contacts
            record = accountContacts[accountContactIndex]
        }
        guard let record else { return }
        let name = kind.displayName(of: record)
        if whole {
            let lines = [name] + fieldNames(for: kind).compactMap { field -> String? in
                let value = field == "AccountId" ? (account(of: record)?.string("Name") ?? "") : displayValue(of: field, in: record, kind: kind)
                return value.isEmpty ? nil : "\(label(of: field, in: kind)): \(value)"
            }
            clipboardText = lines.joined(separator: "\n")
            toast = Toast("Copied \(name) (\(lines.count - 1) fields) to the clipboard")
            return
        }
        guard let field = Self.copiedFields.first(where: { !record.string($0).isEmpty }) else {
            toast = Toast("Nothing to copy: \(name) has no email, phone or website; Y copies the whole \(kind.singular)", isError: true)
            return
        }
        clipboardText = record.string(field)
        toast = Toast("Copied \(record.string(field)) to the clipboard")
    }

    /// The selected record's conflict, field by field, when it has one.
    public var conflictComparison: ConflictComparison? {
        guard let record = selected else { return nil }
        return ConflictComparison(record: record, fields: fieldNames(for: list.kind))
    }

    /// The contact (list, entry) whose Enter opened the account shown, for back to return to.
    private var returnTo: (Int, Int64)?

    /// In the conflict dialog, which of the conflicting fields `m` / `t` settle.
    public private(set) var conflictFieldIndex = 0

    /// The conflicting field `m` / `t` settle now; nil when they settle the whole conflict.
    public var highlightedConflictField: String? {
        guard mode == .resolvingConflict, let comparison = conflictComparison, !comparison.deletedOnServer, !comparison.deletedHere else {
            return nil
        }
        let fields = comparison.conflictingFields
        return fields.count > 1 ? fields[min(conflictFieldIndex, fields.count - 1)] : nil
    }

    /// Settles `fields` of the selected record's conflict (all of them when nil) through
    /// MobileSync's resolver, in one transaction; the dialog stays open while fields are left.
    private mutating func resolveConflict(_ choice: ConflictChoice, fields: [String]?) throws {
        guard let record = selected, record.hasConflict else {
            mode = .browsing
            return
        }
        try ConflictResolver(store: store, soupName: list.kind.soupName).resolve(entryId: record.entryId, fields: fields, choice: choice)
        try refreshAll()
        let label = fields.map { $0.map { self.label(of: $0, in: list.kind) }.joined(separator: ", ") }
        if selected?.hasConflict == true {
            let left = conflictComparison?.conflictingFields.count ?? 0
            conflictFieldIndex = min(conflictFieldIndex, max(left - 1, 0))
            toast = Toast("\(choice == .keepMine ? "Kept yours" : "Took the server's") for \(label ?? "those fields"); \(left) left to decide")
            return
        }
        mode = .browsing
        switch (choice, label) {
        case let (.keepMine, label?): toast = Toast("Kept yours for \(label); s sends your changes")
        case let (.takeServer, label?): toast = Toast("Took the server's for \(label)")
        case (.keepMine, nil): toast = Toast("Kept your version; s sends it to the server")
        case (.takeServer, nil): toast = Toast("Took the server's version; your changes were dropped")
        }
    }

    /// The contacts Salesforce deletes with `account` (it deletes an account's contacts with it):
    /// their number, for the delete question. 0 for anything but an account on the server.
    public func cascadeCount(of record: LocalRecord) -> Int {
        guard list.kind.role == .account, let id = record.serverId, !LocalField.isLocalId(id), let contacts else { return 0 }
        return (try? contacts.repository.count(where: "AccountId", equals: id)) ?? 0
    }

    /// Applies `change` to the contacts of `record` when it is an account (deleting or undeleting
    /// them with it, as Salesforce deletes them with it); returns how many.
    private func cascade(from record: LocalRecord, _ change: (RecordRepository, Int64) throws -> LocalRecord) throws -> Int {
        guard list.kind.role == .account, let id = record.serverId, !LocalField.isLocalId(id), let contacts else { return 0 }
        let affected = try contacts.repository.records(where: "AccountId", equals: id, limit: 100_000)
            .filter { record.isLocallyDeleted ? $0.isLocallyDeleted : !$0.isLocallyDeleted }
        for contact in affected { _ = try change(contacts.repository, contact.entryId) }
        return affected.count
    }

    /// What the revert question says will happen to the selected record.
    public var revertQuestion: String {
        guard let record = selected else { return "" }
        let name = list.kind.displayName(of: record)
        if record.isLocallyCreated { return "Revert \(name)? It was created here and never synced, so it is removed." }
        return "Revert \(name)? Your local changes are dropped and it goes back to the server's version."
    }

    /// Every local change of `record` back to its base (the server's version as last synced), in
    /// one transaction, through MobileSync's reverter; a record created here is removed.
    private mutating func revert(_ record: LocalRecord) throws {
        switch try LocalChangeReverter(store: store, soupName: list.kind.soupName).revert(entryId: record.entryId) {
        case .reverted: toast = Toast("Reverted to the server's version")
        case .removed: toast = Toast("Removed: it was never on the server")
        }
        try refreshAll()
    }

    /// Keeps the selected account's contacts current: the first of them and their count while its
    /// detail is open, the count alone otherwise (the side-by-side detail shows it).
    private mutating func loadSelectedAccountContacts() throws {
        guard tab.kind?.role == .account, let account = selected else { return }
        if detailOpen {
            try loadAccountContacts(of: account)
        } else {
            accountContactCount = try account.serverId.flatMap { id in try contacts.map { try $0.repository.count(where: "AccountId", equals: id) } } ?? 0
        }
    }

    private mutating func loadAccountContacts(of account: LocalRecord) throws {
        guard let id = account.serverId, let contacts else {
            accountContacts = []
            accountContactCount = 0
            return
        }
        accountContacts = try contacts.repository.records(where: "AccountId", equals: id, limit: Self.accountContactLimit)
        accountContactCount = try contacts.repository.count(where: "AccountId", equals: id)
        accountContactIndex = min(accountContactIndex, max(accountContacts.count - 1, 0))
    }

    private mutating func startNewRecord() {
        if tab.kind?.role == .account, detailOpen, let account = selected, let contactKind = contacts?.kind {
            // A new contact under the account, even one created offline (its local_ id is the link).
            guard contactKind.isSyncedUp else {
                toast = Toast(Self.notSyncedUp(contactKind))
                return
            }
            let name = account.string("Name")
            form = schema.form(
                kind: contactKind, purpose: .create(preset: ["AccountId": .string(account.serverId ?? "")]),
                title: "New contact at \(name)", record: nil)
        } else {
            guard list.kind.isSyncedUp else {
                toast = Toast(Self.notSyncedUp(list.kind))
                return
            }
            form = schema.form(kind: list.kind, purpose: .create(preset: [:]), title: "New \(list.kind.singular)", record: nil)
        }
        mode = .editing
    }

    private mutating func startEditing() {
        guard let record = selected else { return }
        guard list.kind.isSyncedUp else {
            toast = Toast(Self.notSyncedUp(list.kind))
            return
        }
        guard !record.isLocallyDeleted else {
            toast = Toast("Undelete this \(list.kind.singular) (u) before editing it")
            return
        }
        let name = list.kind.displayName(of: record)
        form = schema.form(kind: list.kind, purpose: .edit(entryId: record.entryId), title: "Edit \(name)", record: record)
        form?.mark(RecordSyncError.errors(of: record))
        mode = .editing
    }

    private mutating func saveForm() throws {
        guard var current = form else { return }
        let wasDirty = current.isDirty
        guard current.validate() else {
            form = current
            toast = Toast("Not saved: \(current.problems.count == 1 ? "a field needs" : "some fields need") attention", isError: true)
            return
        }
        let repository = RecordRepository(store: store, kind: current.kind)
        let saved: LocalRecord
        switch current.purpose {
        case .create:
            saved = try repository.create(fields: current.values)
            toast = Toast("Saved locally; s syncs it")
        case let .edit(entryId):
            saved = try repository.update(entryId: entryId, fields: current.values)
            toast = Toast(wasDirty ? "Saved locally; s syncs it" : "Nothing changed")
        }
        form = nil
        mode = .browsing
        try refreshAll()
        if current.kind == tab.kind, current.kind.role == .contact {
            try updateList { try $0.setSearch("") }
            try updateList { try $0.select(entryId: saved.entryId) }
        } else if current.kind == tab.kind {
            try updateList { try $0.select(entryId: saved.entryId) }
        }
    }

    /// "1 local change stays queued" / "3 local changes stay queued".
    private var queuedChanges: String {
        localChangeCount == 1 ? "1 local change stays queued" : "\(localChangeCount) local changes stay queued"
    }

    private mutating func startSync() {
        if readOnly {
            toast = Toast(Self.readOnlyMessage, isError: true)
            return
        }
        if offline {
            toast = Toast("Offline: sync skipped; \(queuedChanges)", isError: true)
            return
        }
        guard let sync, sync.isRunning || sync.checkSession() != .signedOut else {
            toast = Toast(
                "Not signed in: run forceterm login, then press s again; \(queuedChanges)",
                isError: true)
            return
        }
        if sync.start() {
            // "Saved locally; s syncs it" and the like are out of date once the sync runs.
            toast = nil
        } else {
            toast = Toast("A sync is already running")
        }
    }

    // MARK: Refreshing

    private mutating func updateList(_ change: (inout RecordListViewModel) throws -> Void) throws {
        guard lists.indices.contains(listIndex) else { return }
        try change(&lists[listIndex])
        try loadSelectedAccountContacts()
    }

    /// Re-reads every list (selection kept on the same records), the open account's contacts and
    /// the pending-change count.
    public mutating func refreshAll() throws {
        // Everything committed so far is read below, this model's own writes included.
        seenChanges = store.changeStamp()
        for index in lists.indices { try lists[index].refresh() }
        syncs.refresh()
        try loadSelectedAccountContacts()
        try countLocalChanges()
        try countFilters()
    }

    private mutating func countFilters() throws {
        filterCounts = lists.indices.contains(listIndex) ? try list.repository.counts(of: [.pending, .errors, .conflicts]) : [:]
    }

    private mutating func countLocalChanges() throws {
        localChangeCount = try lists.reduce(0) { $0 + (try $1.repository.localChangeCount()) }
    }

    /// The field each soup's list shows in its second column, when the user chose one
    /// (config.toml's [list]); else the kind's own (title, industry).
    public private(set) var listColumns: [String: String] = [:]

    /// The user's list settings (config.toml), applied at start: the order every list opens in,
    /// at its top (where the kind offers that order), and second columns by soup.
    public mutating func applyListSettings(sort: ListSort?, columns: [String: String]) throws {
        listColumns = columns
        guard let sort else { return }
        let accountsSoup = accounts?.kind.soupName
        for index in lists.indices where ListSort.choices(for: lists[index].kind).contains(sort) {
            try lists[index].setSort(sort, accountsSoup: accountsSoup)
            // At start nothing was chosen yet: the list opens at its top, not on the record the
            // default order put first.
            try lists[index].moveToTop()
        }
    }

    /// The commands a read-only store refuses.
    static func changesTheStore(_ command: AppCommand) -> Bool {
        switch command {
        case .newRecord, .editRecord, .deleteRecord, .undeleteRecord, .revertRecord, .resolveConflict, .sync: true
        default: false
        }
    }

    static let readOnlyMessage = "Read-only store (not writable by you): nothing can be changed or synced; chmod u+w the file and its folder"

    /// Why a soup that no named sync up sends is not editable here.
    public static func notSyncedUp(_ kind: RecordKind) -> String {
        "No sync up in usersyncs.json sends the \(kind.soupName) soup, so changes here would never reach Salesforce; add one to edit \(kind.plural)"
    }
}

/// The list a lookup field's record is picked from: the target soup's records, searched as one
/// types, locally created ones included (their `local_` id is what the field keeps until sync).
public struct LookupPicker: Sendable {
    public let field: String
    public var list: RecordListViewModel
}

/// The values a picklist, multi-select picklist or record type field is picked from: filtered as
/// one types; in a multi-select one Space marks values and Enter keeps the marked ones.
public struct ChoicePicker: Sendable, Equatable {
    public struct Option: Sendable, Equatable {
        public let value: String
        public let label: String
    }

    public let field: String
    public let label: String
    public let format: FieldRule.Format
    public let options: [Option]
    public private(set) var filter = ""
    public private(set) var selectedIndex = 0
    /// The values marked in a multi-select picklist.
    public private(set) var marked: Set<String>

    init(field: FormField, options: [(value: String, label: String)]) {
        self.field = field.name
        label = field.rule.label
        format = field.rule.format
        self.options = options.map { Option(value: $0.value, label: $0.label) }
        let current = field.value.split(separator: ";").map { String($0).trimmingWhitespace }
        marked = Set(current)
        selectedIndex = self.options.firstIndex { current.contains($0.value) } ?? 0
    }

    public var isMultiple: Bool { if case .multiPicklist = format { true } else { false } }

    /// The options that match what was typed (folded, anywhere in the label).
    public var visible: [Option] {
        guard !filter.isEmpty else { return options }
        let folded = TextCollation.fold(filter)
        return options.filter { TextCollation.fold($0.label).contains(folded) }
    }

    mutating func move(by delta: Int) {
        let count = visible.count
        guard count > 0 else { return }
        selectedIndex = min(max(selectedIndex + delta, 0), count - 1)
    }

    mutating func type(_ character: Character) {
        if isMultiple && character == " " {
            guard visible.indices.contains(selectedIndex) else { return }
            let value = visible[selectedIndex].value
            if marked.contains(value) { marked.remove(value) } else { marked.insert(value) }
            return
        }
        filter.append(character)
        selectedIndex = 0
    }

    mutating func deleteBackward() {
        guard !filter.isEmpty else { return }
        filter.removeLast()
        selectedIndex = 0
    }

    /// What Enter sets: the highlighted option, or the marked values in the org's order.
    var picked: String? {
        if isMultiple { return options.filter { marked.contains($0.value) }.map(\.value).joined(separator: ";") }
        return visible.indices.contains(selectedIndex) ? visible[selectedIndex].value : nil
    }
}
