/// The one table of forceterm's keys. Key dispatch, the `?` screen and the messages that name a key
/// all read it (tig's habit), so a key rebound in config.toml shows everywhere.
public enum AppKeymap {
    public typealias Binding = KeyBinding<AppCommand, AppMode>

    public static let confirming: Set<AppMode> = [.confirmingDelete, .confirmingDiscard, .confirmingQuit, .confirmingRevert]
    /// Modes where tab, sync and quit keys work: the record tabs and Syncs, and the Inspector.
    public static let tabs: Set<AppMode> = [.browsing, .inspecting]
    /// Modes with a line of text and a cursor: the edit form's fields and the Inspector's prompt.
    public static let textLines: Set<AppMode> = [.editing, .typingQuery, .typingSubscription]
    /// Moving keys also scroll the `?` screen when it does not fit.
    public static let moving: Set<AppMode> = tabs.union([.help])

    public static let table = Keymap<AppCommand, AppMode>(
        // Lists and detail. The tabs by number: the help screen names the tabs this config has.
        (1...9).map { number -> Binding in
            Binding([.character(Character(String(number)))], .showTabNumber(number), in: tabs, help: "tab \(number)")
        } + [
            Binding([.tab], .nextTab, in: tabs, help: "next tab"),
            Binding([.up, .character("k")], .moveUp, in: moving, help: "move up (Inspector: previous page)"),
            Binding([.down, .character("j")], .moveDown, in: moving, help: "move down (Inspector: next page)"),
            Binding([.pageUp], .pageUp, in: moving, help: "page up; scroll a long detail"),
            Binding([.pageDown], .pageDown, in: moving, help: "page down; scroll a long detail"),
            Binding([.character("g"), .home], .moveToTop, in: [.browsing, .help], help: "first record (in this help: its top)"),
            Binding([.character("G"), .end], .moveToBottom, in: [.browsing, .help], help: "last record (in this help: its end)"),
            Binding([.enter], .openDetail, in: [.browsing], help: "detail; in it, the account / contact"),
            Binding([.escape, .backspace], .back, in: [.browsing], help: "back: close detail, clear search"),
            Binding([.character("/")], .startSearch, in: [.browsing], help: "search as you type"),
            Binding([.character("n")], .newRecord, in: [.browsing], help: "new record (in an account's detail: new contact there)"),
            Binding([.character("e")], .editRecord, in: [.browsing], help: "edit the selected record"),
            Binding([.character("d")], .deleteRecord, in: [.browsing], help: "delete (asks y/n), marked -; Syncs: unsubscribe"),
            Binding([.character("u")], .undeleteRecord, in: [.browsing], help: "undelete a locally deleted record"),
            Binding([.character("r")], .revertRecord, in: [.browsing], help: "revert my changes (asks y/n)"),
            Binding([.character("f")], .nextFilter, in: [.browsing], help: "only changed / errors / conflicts"),
            Binding([.character("o")], .nextSort, in: [.browsing], help: "sort: last name, first name, account, last modified"),
            Binding([.character("s")], .sync, in: tabs, help: "sync: up, then down"),
            Binding([.character("a")], .subscribe, in: [.browsing], help: "subscribe to what the search finds"),
            Binding([.character("b")], .toggleOffline, in: [.browsing], help: "take an account offline (again: stop)"),
            Binding([.character("c")], .resolveConflict, in: [.browsing], help: "resolve the selected conflict, duplicate or create in doubt"),
            Binding([.character("y")], .copyValue, in: [.browsing], help: "copy the email (else phone) to the clipboard (OSC 52)"),
            Binding([.character("Y")], .copyRecord, in: [.browsing], help: "copy the whole record as text"),
            Binding([.character("?")], .toggleHelp, in: [.browsing, .inspecting, .help], help: "this help"),
            Binding([.character("q"), .control("c")], .quit, in: tabs, help: "quit (asks if a sync is running)"),
            // Inspector tab (4).
            Binding([.enter, .character("/"), .character(":")], .editQuery, in: [.inspecting], help: "type a Smart SQL query"),
            Binding([.character("o")], .showSoups, in: [.inspecting], help: "list the soups"),
            Binding([.character("i")], .showIndices, in: [.inspecting], help: "list every soup's indices"),
            Binding([.enter], .runQuery, in: [.typingQuery], help: "run the query"),
            Binding([.escape, .control("c")], .stopEditingQuery, in: [.typingQuery], help: "stop typing; keep the results"),
            Binding([.backspace], .deleteBackward, in: [.typingQuery], help: "delete before the cursor"),
            // The subscription prompt (a).
            Binding([.enter], .submitPrompt, in: [.typingSubscription], help: "the condition, then the name: store and fetch"),
            Binding([.escape, .control("c")], .cancelPrompt, in: [.typingSubscription], help: "back to the condition; close"),
            Binding([.backspace], .deleteBackward, in: [.typingSubscription], help: "delete before the cursor"),
            // Search box.
            Binding([.enter], .keepSearch, in: [.searching], help: "keep the filter"),
            Binding([.escape, .control("c")], .clearSearch, in: [.searching], help: "clear the filter"),
            Binding([.backspace], .deleteBackward, in: [.searching], help: "delete a character"),
            Binding([.up], .moveUp, in: [.searching], help: "move up"),
            Binding([.down], .moveDown, in: [.searching], help: "move down"),
            // Edit form.
            Binding([.tab, .down], .nextField, in: [.editing], help: "next field"),
            Binding([.backTab, .up], .previousField, in: [.editing], help: "previous field"),
            Binding([.control("s"), .function(2)], .save, in: [.editing], help: "save locally"),
            Binding([.escape, .control("c")], .cancelEdit, in: [.editing], help: "cancel (asks if there are unsaved edits)"),
            Binding([.enter], .openLookup, in: [.editing], help: "pick a value; toggle a checkbox"),
            // The pickers (Enter on a lookup, a picklist or the record type).
            Binding([.enter], .keepSearch, in: [.pickingLookup], help: "pick the highlighted entry"),
            Binding([.escape, .control("c")], .clearSearch, in: [.pickingLookup], help: "back to the form, unchanged"),
            Binding([.control("u")], .clearLine, in: [.pickingLookup], help: "none (clear the field)"),
            Binding([.backspace], .deleteBackward, in: [.pickingLookup], help: "delete a character"),
            Binding([.up], .moveUp, in: [.pickingLookup], help: "move up"),
            Binding([.down], .moveDown, in: [.pickingLookup], help: "move down"),
            Binding([.left], .cursorLeft, in: textLines, help: "cursor left"),
            Binding([.right], .cursorRight, in: textLines, help: "cursor right"),
            Binding([.home, .control("a")], .cursorHome, in: textLines, help: "start of the line"),
            Binding([.end, .control("e")], .cursorEnd, in: textLines, help: "end of the line"),
            Binding([.backspace], .deleteBackward, in: [.editing], help: "delete before the cursor"),
            Binding([.deleteForward], .deleteForward, in: textLines, help: "delete at the cursor"),
            Binding([.control("u")], .clearLine, in: textLines, help: "clear the line"),
            // Questions.
            Binding([.character("y"), .character("Y")], .confirmYes, in: confirming, help: "yes"),
            Binding([.character("n"), .character("N"), .escape], .confirmNo, in: confirming, help: "no"),
            // Ctrl-C at a question: a second one at "quit anyway?" quits; at the others, no.
            Binding([.control("c")], .interrupt, in: [.confirmingDelete, .confirmingDiscard, .confirmingRevert, .confirmingQuit], help: "no; at \"quit anyway?\", quit"),
            Binding([.escape, .character("q"), .control("c")], .back, in: [.help], help: "close this help"),
            // The conflict dialog (c).
            Binding([.character("m")], .resolve(.keepMine), in: [.resolvingConflict], help: "keep mine for the field marked ▸ (or all)"),
            Binding([.character("t")], .resolve(.takeServer), in: [.resolvingConflict], help: "take the server's for it (or all)"),
            Binding([.character("M")], .resolveAll(.keepMine), in: [.resolvingConflict], help: "keep mine for every field both changed"),
            Binding([.character("T")], .resolveAll(.takeServer), in: [.resolvingConflict], help: "take the server's for every one"),
            Binding([.down, .character("j")], .moveDown, in: [.resolvingConflict], help: "mark the next field both changed"),
            Binding([.up, .character("k")], .moveUp, in: [.resolvingConflict], help: "mark the previous one"),
            Binding([.escape, .character("q"), .control("c")], .confirmNo, in: [.resolvingConflict], help: "decide later"),
            // A create the org did not take (c on a duplicate, or on a create in doubt).
            Binding([.character("a")], .decide(.saveAnyway), in: [.decidingCreate], help: "a duplicate: save it anyway"),
            Binding([.character("o")], .decide(.openExisting), in: [.decidingCreate], help: "a duplicate: open the record the org has"),
            Binding([.character("x")], .decide(.discard), in: [.decidingCreate], help: "a duplicate: discard mine"),
            Binding([.character("n")], .decide(.sendAgain), in: [.decidingCreate], help: "in doubt: none is it, create it anew"),
            Binding([.escape, .character("q"), .control("c")], .confirmNo, in: [.decidingCreate], help: "decide later"),
        ]
            + (1...9).map { number -> Binding in
                Binding([.character(Character(String(number)))], .decide(.adopt(number)), in: [.decidingCreate], help: "in doubt: the server's record \(number) is it")
            })

    /// The commands a user may bind other keys to in config.toml's [keys], by name.
    public static let commandNames: [(name: String, command: AppCommand)] = [
        ("next-tab", .nextTab), ("up", .moveUp), ("down", .moveDown), ("page-up", .pageUp), ("page-down", .pageDown),
        ("top", .moveToTop), ("bottom", .moveToBottom), ("open", .openDetail), ("back", .back), ("search", .startSearch),
        ("new", .newRecord), ("edit", .editRecord), ("delete", .deleteRecord), ("undelete", .undeleteRecord),
        ("revert", .revertRecord), ("filter", .nextFilter), ("sort", .nextSort), ("sync", .sync), ("resolve", .resolveConflict),
        ("copy", .copyValue), ("copy-record", .copyRecord), ("help", .toggleHelp), ("quit", .quit), ("save", .save),
        ("subscribe", .subscribe), ("offline", .toggleOffline),
    ]

    /// The table with the user's keys for some commands (config.toml's [keys]): each named
    /// command's keys replaced wherever it is bound, so the `?` screen shows them. Throws when a
    /// name is unknown or a key would then do two things in one place.
    public static func table(rebinding keys: [String: [Key]]) throws(KeymapError) -> Keymap<AppCommand, AppMode> {
        var replaced: [AppCommand: [Key]] = [:]
        for (name, newKeys) in keys {
            guard let command = commandNames.first(where: { $0.name == name })?.command else {
                throw KeymapError(name: name, reason: "is not a command; the commands are " + commandNames.map(\.name).joined(separator: ", "))
            }
            replaced[command] = newKeys
        }
        let bindings = table.bindings.map { binding in
            replaced[binding.action].map { Binding($0, binding.action, in: binding.contexts, help: binding.help) } ?? binding
        }
        let keymap = Keymap(bindings)
        if let (mode, key) = keymap.conflicts.first {
            let actions = bindings.filter { $0.contexts.contains(mode) && $0.keys.contains(key) }.map(\.action)
            let names = actions.map { action in commandNames.first { $0.command == action }?.name ?? "\(action)" }
            throw KeymapError(
                name: names.first { keys[$0] != nil } ?? names.joined(separator: ", "),
                reason: "would share \(key.label) with \(names.filter { keys[$0] == nil }.first ?? "another command"); give it another key")
        }
        return keymap
    }
}

/// A [keys] entry of config.toml that cannot be used.
public struct KeymapError: Error, Equatable, CustomStringConvertible {
    public let name: String
    public let reason: String
    public var description: String { "\(name) \(reason)" }
}
