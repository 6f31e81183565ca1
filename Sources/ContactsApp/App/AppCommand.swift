/// The tabs of the main screen.
public enum AppTab: String, Sendable, CaseIterable, Hashable {
    case contacts, accounts

    public var title: String { self == .contacts ? "Contacts" : "Accounts" }
    public var kind: RecordKind { self == .contacts ? .contact : .account }
}

/// What the user asked for, independent of the key that asked. The TUI's keymap table maps keys
/// to these; the app model carries them out.
public enum AppCommand: Sendable, Hashable {
    case showTab(AppTab), nextTab
    case moveUp, moveDown, pageUp, pageDown, moveToTop, moveToBottom
    case openDetail, back
    case startSearch, keepSearch, clearSearch
    case newRecord, editRecord, deleteRecord, undeleteRecord
    case sync, resolveConflict, toggleHelp, quit
    case confirmYes, confirmNo
    case nextField, previousField, save, cancelEdit
    case cursorLeft, cursorRight, cursorHome, cursorEnd, deleteBackward, deleteForward
}

/// Which keys are live: the keymap has one context per mode.
public enum AppMode: String, Sendable, Hashable, CaseIterable {
    case browsing, searching, editing, confirmingDelete, confirmingDiscard, confirmingQuit, help

    /// Whether typed characters go into a text field in this mode.
    public var takesText: Bool { self == .searching || self == .editing }
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
