import ContactsApp

/// The one table of forceterm's keys (design.md's key contract). Key dispatch and the `?` screen
/// both read it; the README points at `?`.
public enum AppKeymap {
    public typealias Binding = KeyBinding<AppCommand, AppMode>

    static let confirming: Set<AppMode> = [.confirmingDelete, .confirmingDiscard, .confirmingQuit]

    public static let table = Keymap<AppCommand, AppMode>([
        // Lists and detail.
        Binding([.character("1")], .showTab(.contacts), in: [.browsing], help: "Contacts tab"),
        Binding([.character("2")], .showTab(.accounts), in: [.browsing], help: "Accounts tab"),
        Binding([.tab], .nextTab, in: [.browsing], help: "next tab"),
        Binding([.up, .character("k")], .moveUp, in: [.browsing], help: "move up"),
        Binding([.down, .character("j")], .moveDown, in: [.browsing], help: "move down"),
        Binding([.pageUp], .pageUp, in: [.browsing], help: "page up"),
        Binding([.pageDown], .pageDown, in: [.browsing], help: "page down"),
        Binding([.character("g"), .home], .moveToTop, in: [.browsing], help: "first record"),
        Binding([.character("G"), .end], .moveToBottom, in: [.browsing], help: "last record"),
        Binding([.enter], .openDetail, in: [.browsing], help: "open detail; in an account, open its contact"),
        Binding([.escape, .backspace], .back, in: [.browsing], help: "close detail, or clear the search"),
        Binding([.character("/")], .startSearch, in: [.browsing], help: "search as you type"),
        Binding([.character("n")], .newRecord, in: [.browsing], help: "new record (in an account's detail: new contact there)"),
        Binding([.character("e")], .editRecord, in: [.browsing], help: "edit the selected record"),
        Binding([.character("d")], .deleteRecord, in: [.browsing], help: "delete (asks y/n); stays visible, marked -"),
        Binding([.character("u")], .undeleteRecord, in: [.browsing], help: "undelete a locally deleted record"),
        Binding([.character("s")], .sync, in: [.browsing], help: "sync: up, then down"),
        Binding([.character("c")], .resolveConflict, in: [.browsing], help: "resolve the selected conflict"),
        Binding([.character("?")], .toggleHelp, in: [.browsing, .help], help: "this help"),
        Binding([.character("q"), .control("c")], .quit, in: [.browsing], help: "quit (asks if a sync is running)"),
        // Search box.
        Binding([.enter], .keepSearch, in: [.searching], help: "keep the filter"),
        Binding([.escape], .clearSearch, in: [.searching], help: "clear the filter"),
        Binding([.backspace], .deleteBackward, in: [.searching], help: "delete a character"),
        Binding([.up], .moveUp, in: [.searching], help: "move up"),
        Binding([.down], .moveDown, in: [.searching], help: "move down"),
        // Edit form.
        Binding([.tab, .down], .nextField, in: [.editing], help: "next field"),
        Binding([.backTab, .up], .previousField, in: [.editing], help: "previous field"),
        Binding([.control("s"), .function(2)], .save, in: [.editing], help: "save locally"),
        Binding([.escape, .control("c")], .cancelEdit, in: [.editing], help: "cancel (asks if there are unsaved edits)"),
        Binding([.left], .cursorLeft, in: [.editing], help: "cursor left"),
        Binding([.right], .cursorRight, in: [.editing], help: "cursor right"),
        Binding([.home, .control("a")], .cursorHome, in: [.editing], help: "start of field"),
        Binding([.end, .control("e")], .cursorEnd, in: [.editing], help: "end of field"),
        Binding([.backspace], .deleteBackward, in: [.editing], help: "delete before the cursor"),
        Binding([.deleteForward], .deleteForward, in: [.editing], help: "delete at the cursor"),
        // Questions.
        Binding([.character("y"), .character("Y")], .confirmYes, in: confirming, help: "yes"),
        Binding([.character("n"), .character("N"), .escape], .confirmNo, in: confirming, help: "no"),
        Binding([.escape, .character("q")], .back, in: [.help], help: "close this help"),
    ])

    /// The help screen's sections, straight from the table.
    public static func helpSections(ascii: Bool) -> [HelpOverlay.Section] {
        [
            HelpOverlay.Section(title: "Lists and detail", lines: table.helpLines(for: .browsing, ascii: ascii)),
            HelpOverlay.Section(title: "Search (/)", lines: table.helpLines(for: .searching, ascii: ascii)),
            HelpOverlay.Section(title: "Edit form", lines: table.helpLines(for: .editing, ascii: ascii)),
            HelpOverlay.Section(title: "Questions", lines: table.helpLines(for: .confirmingDelete, ascii: ascii)),
        ]
    }
}
