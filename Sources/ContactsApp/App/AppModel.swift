import ForceJSON
import Foundation
import MobileSync
import SmartStore

/// The whole app's state, with no terminal in sight. It holds the tabs' lists and one state per
/// feature; each feature's commands live in its own file under `Features/` as an extension of
/// this type. The TUI renders it and feeds it commands; tests drive it the same way.
///
/// ```swift
/// var model = try AppModel(store: store, syncedFields: fields)
/// model.perform(.newRecord)
/// for character in "Chloé" { model.type(character) }
/// model.perform(.save)
/// ```
public struct AppModel: Sendable {
    public let store: SmartStore
    public let syncedFields: SyncedFields
    /// How each kind's records are edited (fields, lookups, the org's rules).
    public let schema: RecordSchema
    /// The soups with a record tab, in tab order (`RecordKind.tabs`).
    public let kinds: [RecordKind]
    public internal(set) var tab: AppTab
    /// One list per kind, in the same order.
    public internal(set) var lists: [RecordListViewModel]
    /// The list `list` means: the record tab shown, or the last one shown while on Syncs or the
    /// Inspector.
    var listIndex = 0
    /// Stands in for `list` when the config fills no soup; never read from the store.
    let noList: RecordListViewModel
    /// The dialog, form or prompt over the tab; nil while browsing the tab itself.
    public internal(set) var overlay: Overlay?
    /// The Syncs tab, also the source of the status line's last sync time.
    public internal(set) var syncs: SyncsViewModel
    public internal(set) var inspector: InspectorViewModel
    /// The detail pane: open or not, scrolled how far, an account's contacts.
    public internal(set) var detail = DetailState()
    /// Where back returns to, most recent last (tig's view history): the records whose Enter
    /// opened the one shown.
    public internal(set) var backStack: [Place] = []
    public internal(set) var toast: Toast? { didSet { toastGeneration &+= 1 } }
    /// Changes whenever a toast is shown or dismissed, so a repeated message counts as new.
    public private(set) var toastGeneration: UInt64 = 0
    public internal(set) var localChangeCount = 0
    /// How many records of the shown list each filter keeps (local changes, errors, conflicts).
    public internal(set) var filterCounts: [RecordFilter: Int] = [:]
    public internal(set) var shouldQuit = false
    /// How far the `?` screen's keys scroll at the screen's size (told by the screen).
    public internal(set) var helpScrollLimit = 80
    /// Said on the terminal once the TUI has closed: how the sync the user quit during ended.
    public internal(set) var farewell: String?
    /// Set by `--offline`: sync says so at once and keeps every change queued.
    public let offline: Bool
    /// The store could only be opened for reading (its file or directory is not writable): the
    /// records show, and every change and sync is refused with the reason.
    public let readOnly: Bool
    public let sync: SyncController?
    /// Times on screen (last sync, a sync's runs) are shown in this zone.
    public let timeZone: TimeZone
    /// The terminal's locale is not UTF-8, so names are drawn in ASCII: said on the status line for
    /// as long as the TUI runs (a toast would give way to the first sync's).
    public var notUTF8 = false
    /// The wall clock, read only to pace refreshes for other processes' writes; tests set their own.
    public var clock: AppClock = .system
    /// The keys in use; the messages name keys from it.
    public var keymap = AppKeymap.table { didSet { messages = Messages(keymap: keymap) } }
    /// Every toast's and question's words.
    public private(set) var messages = Messages(keymap: AppKeymap.table)
    /// The org's describes, kept by the config's metadata syncs; nil: built-in rules, no note.
    public let descriptions: ObjectDescriptions?
    /// The org's describes of the tabs' sObjects, read at start and after each sync (not per frame:
    /// a real org's describe is hundreds of kilobytes).
    var described: [String: ObjectDescription] = [:]
    /// The store as last seen on disk, and when another process's writes were last read.
    var seenChanges: SmartStore.ChangeStamp?
    var lastOtherWritersRefresh = Date.distantPast
    /// The store as the automatic syncs last looked (a write since is a save to send), and when
    /// they last looked for a missing session.
    var automaticSyncStamp: SmartStore.ChangeStamp?
    var lastSessionCheck = Date.distantPast
    /// Subscriptions asked while a sync ran, made once it ends (`makeQueuedSubscriptionChanges`).
    var queuedSubscriptionChanges: [SubscriptionChange] = []
    /// Subscriptions the running sync fetches for the first time: its toast says what they hold.
    var fetchedSubscriptions: [String] = []
    /// Text for the terminal's clipboard, waiting for the TUI to send it (`takeClipboardText`).
    public internal(set) var clipboardText: String?
    /// The field each soup's list shows in its second column, when the user chose one
    /// (config.toml's [list]); else the kind's own (title, industry).
    public internal(set) var listColumns: [String: String] = [:]

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
        let accountsSoup = kinds.first { $0.role == .account }?.soupName
        lists = try kinds.map { kind in
            var repository = RecordRepository(store: store, kind: kind)
            // A contact is found by its account's name too ("acme" lists Acme's people).
            if kind.role == .contact { repository.accountsForSearch = accountsSoup }
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
        warmSearchPages()
    }

    /// The tabs, left to right.
    public var tabs: [AppTab] { kinds.map(AppTab.records) + [.syncs, .inspector] }

    /// The record list of the record tab shown (the last one shown, behind Syncs and Inspector).
    public var list: RecordListViewModel { lists.indices.contains(listIndex) ? lists[listIndex] : noList }

    /// The list of contacts and the list of accounts, when the config fills such soups.
    public var contacts: RecordListViewModel? { lists.first { $0.kind.role == .contact } }
    public var accounts: RecordListViewModel? { lists.first { $0.kind.role == .account } }

    /// Which keys are live: the overlay's, else the tab's own.
    public var mode: AppMode { overlay?.mode ?? homeMode }
    /// The mode a finished dialog returns to: the Inspector has its own keys.
    public var homeMode: AppMode { tab == .inspector ? .inspecting : .browsing }
    public var selected: LocalRecord? { list.selected }

    /// Shows `message` in the toast line, e.g. what changed in the config since the last start.
    public mutating func announce(_ message: String, isError: Bool = false) {
        toast = Toast(message, isError: isError)
    }

    public mutating func dismissToast() { toast = nil }

    // MARK: Commands

    /// Carries out `command`. Store errors become an error toast; nothing is half-saved because every
    /// write is one transaction.
    public mutating func perform(_ command: AppCommand) {
        let before = syncsAutomatically ? store.changeStamp() : nil
        defer { if let before { noteOwnWrite(since: before) } }
        do {
            try dispatch(command)
        } catch {
            toast = Toast("\(error)", isError: true)
            try? refreshAll()
        }
    }

    /// Text typed into the search box, the focused form field, a picker or the Inspector's prompt.
    public mutating func type(_ character: Character) {
        do {
            switch overlay {
            case .searching: try typeSearch(character)
            case .form: try typeIntoForm(character)
            case .typingQuery: inspector.type(character)
            case let .subscribing(prompt): typeIntoSubscription(prompt, character)
            default: break
            }
        } catch {
            toast = Toast("\(error)", isError: true)
        }
    }

    private mutating func dispatch(_ command: AppCommand) throws {
        switch overlay {
        case nil where tab == .syncs: try browseSyncs(command)
        case nil where tab == .inspector: try inspecting(command)
        case nil: try browse(command)
        case .searching: try searching(command)
        case .typingQuery: typingQuery(command)
        case let .subscribing(prompt): typingSubscription(prompt, command)
        case let .help(scroll): help(command, scroll: scroll)
        case let .question(question): try answer(question, command)
        case let .form(session): try editing(session, command)
        case let .conflict(dialog): try resolving(dialog, command)
        case let .decision(dialog): try deciding(dialog, command)
        }
    }

    /// The keys every tab shares: tabs, sync, help, quit.
    mutating func common(_ command: AppCommand) throws {
        switch command {
        case let .showTab(newTab): try switchTab(to: newTab)
        case let .showTabNumber(number):
            guard tabs.indices.contains(number - 1) else { return }
            try switchTab(to: tabs[number - 1])
        case .nextTab:
            let index = tabs.firstIndex(of: tab) ?? 0
            try switchTab(to: tabs[(index + 1) % tabs.count])
        case .sync: startSync()
        case .toggleHelp: overlay = .help(scroll: 0)
        case .quit:
            if sync?.isRunning == true {
                overlay = .question(Question(subject: .quit, text: messages.quitQuestion))
            } else {
                shouldQuit = true
            }
        default:
            break
        }
    }

    /// The answer to a yes / no question.
    private mutating func answer(_ question: Question, _ command: AppCommand) throws {
        overlay = nil
        guard command == .confirmYes || (command == .interrupt && question.subject == .quit) else { return }
        // The record the question named, wherever the selection is now (gone: nothing to do).
        let record = try question.entryId.flatMap { try list.repository.record(entryId: $0) }
        switch question.subject {
        case .delete: if let record { try delete(record) }
        case .revert: if let record { try revert(record) }
        case .quit: shouldQuit = true
        case let .unsubscribe(name):
            if let refusal = change(.remove(name: name)) { toast = Toast(refusal, isError: true) }
        }
    }

    mutating func switchTab(to newTab: AppTab) throws {
        guard tabs.contains(newTab) else { return }
        backStack = []
        tab = newTab
        if let kind = newTab.kind, let index = kinds.firstIndex(of: kind) { listIndex = index }
        try countFilters()
        detail.isOpen = false
        overlay = nil
        if tab == .syncs { syncs.refresh() }
        try loadSelectedAccountContacts()
    }

    /// The text a `y` / `Y` asked to copy, handed over once.
    public mutating func takeClipboardText() -> String? {
        defer { clipboardText = nil }
        return clipboardText
    }

    // MARK: Refreshing

    mutating func updateList(_ change: (inout RecordListViewModel) throws -> Void) throws {
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
        warmSearchPages()
    }

    /// An encrypted store's search pages, read ahead after each refresh (a commit empties the
    /// readers' caches), so the first keystrokes of a search do not decrypt them.
    private func warmSearchPages() {
        store.warmFullTextPagesInBackground(soups: kinds.map(\.soupName))
    }

    mutating func countFilters() throws {
        filterCounts = lists.indices.contains(listIndex) ? try list.repository.counts(of: [.pending, .errors, .conflicts]) : [:]
    }

    private mutating func countLocalChanges() throws {
        localChangeCount = try lists.reduce(0) { $0 + (try $1.repository.localChangeCount()) }
        syncs.refreshOutbox(kinds: kinds, any: localChangeCount > 0)
    }
}

/// A record one can go back to: the list it is in and its entry.
public struct Place: Sendable, Equatable {
    public let listIndex: Int
    public let entryId: Int64
}
