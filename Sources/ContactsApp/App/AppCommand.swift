import MobileSync

/// The tabs of the main screen: one per soup of records (`AppModel.kinds`), then Syncs and the
/// Inspector.
public enum AppTab: Sendable, Hashable {
    case records(RecordKind)
    case syncs, inspector

    /// forceterm's own contacts and accounts soups.
    public static let contacts = AppTab.records(.contact)
    public static let accounts = AppTab.records(.account)

    public var title: String {
        switch self {
        case let .records(kind): kind.tabTitle
        case .syncs: "Syncs"
        case .inspector: "Inspector"
        }
    }

    /// The records the tab lists; `nil` for Syncs and Inspector.
    public var kind: RecordKind? {
        if case let .records(kind) = self { return kind }
        return nil
    }
}

/// What the user asked for, independent of the key that asked. The TUI's keymap table maps keys
/// to these; the app model carries them out.
public enum AppCommand: Sendable, Hashable {
    /// `showTabNumber(n)`: the n-th tab on the tab bar, counting from 1 (the keys 1 to 9).
    case showTab(AppTab), showTabNumber(Int), nextTab
    case moveUp, moveDown, pageUp, pageDown, moveToTop, moveToBottom
    case openDetail, back
    case startSearch, keepSearch, clearSearch
    case newRecord, editRecord, deleteRecord, undeleteRecord
    /// Every local change of the selected record back to the server's version (asks first).
    case revertRecord
    /// The list's next filter: all, with local changes, with errors, in conflict.
    case nextFilter
    /// The list's next order: last name, first name, account, last modified (`ListSort`).
    case nextSort
    case sync, resolveConflict, toggleHelp, quit
    /// The selected record's email (else its phone or website), or the whole record as text,
    /// onto the terminal's clipboard (OSC 52, which reaches the local clipboard over SSH).
    case copyValue, copyRecord
    /// The answer in the conflict dialog: for the highlighted field (every conflicting field when
    /// there is one), or for all of them.
    case resolve(ConflictChoice), resolveAll(ConflictChoice)
    /// The answer in the create-decision dialog (`c` on a duplicate or a create in doubt).
    case decide(CreateChoice)
    case confirmYes, confirmNo
    /// Ctrl-C at a question, never rebound: at "quit anyway?" it quits, at others it answers no.
    case interrupt
    case nextField, previousField, save, cancelEdit
    /// In the form, on a lookup field (Account): pick its record from a list.
    case openLookup
    /// Inspector: edit the query, run it, page, and the soups / indices lists.
    case editQuery, runQuery, stopEditingQuery, showSoups, showIndices
    case cursorLeft, cursorRight, cursorHome, cursorEnd, deleteBackward, deleteForward
    /// Empties the focused field or the Inspector's prompt.
    case clearLine
    /// A subscription from the list's search (`a`), and an account offline or back (`b`).
    case subscribe, toggleOffline
    /// The subscription prompt: the next step (Enter), or back (Esc).
    case submitPrompt, cancelPrompt
}

/// What to do with a create the org did not take as it was.
public enum CreateChoice: Sendable, Hashable {
    /// A duplicate: send it again, telling the org to save it anyway.
    case saveAnyway
    /// A duplicate: open the record the org matched, when it is held here.
    case openExisting
    /// A duplicate: drop this create (the existing record stays).
    case discard
    /// In doubt: the n-th candidate (from 1) is this record.
    case adopt(Int)
    /// In doubt: none of the candidates is it; create it anew.
    case sendAgain
}

/// Which keys are live: the keymap has one context per mode.
public enum AppMode: String, Sendable, Hashable, CaseIterable {
    case browsing, searching, editing, confirmingDelete, confirmingDiscard, confirmingQuit, confirmingRevert, help
    /// Picking a lookup field's record (the form's Account) from a list, searching as one types.
    case pickingLookup
    /// The conflict dialog: keep mine or take the server's.
    case resolvingConflict
    /// A create the org refused as a duplicate, or in doubt: save anyway, take a server record, or drop it.
    case decidingCreate
    /// The Inspector tab, its prompt not focused.
    case inspecting
    /// Typing a Smart SQL query at the Inspector's prompt.
    case typingQuery
    /// Typing a subscription's condition or name (`a`).
    case typingSubscription

    /// Whether typed characters go into a text field in this mode.
    public var takesText: Bool { self == .searching || self == .editing || self == .typingQuery || self == .pickingLookup || self == .typingSubscription }
}

/// A short message over the status line.
public struct Toast: Sendable, Equatable {
    public let message: String
    public let isError: Bool

    public init(_ message: String, isError: Bool = false) {
        self.message = message
        self.isError = isError
    }
}

/// One fact of the status line: its full wording, then shorter ones for a narrow terminal, shortest
/// last; an empty wording means the fact may be left out.
public struct StatusFact: Sendable, Equatable {
    public let wordings: [String]

    public init(_ full: String, _ shorter: [String] = []) {
        wordings = [full] + shorter
    }

    public var full: String { wordings[0] }
}
