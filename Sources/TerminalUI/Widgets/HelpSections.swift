import ContactsApp

/// The `?` screen's sections, read from the keymap.
extension AppKeymap {
    static let tabHelp = [
        "Contacts": "Contacts tab", "Accounts": "Accounts tab", "Syncs": "Syncs tab: each named sync",
        "Inspector": "Inspector tab: Smart SQL, soups, indices",
    ]

    /// The help screen's sections, straight from the table. Keys that work alike in the edit form
    /// and at the Inspector's prompt are listed once, in their own section.
    /// `tabs` are the tab bar's titles: the number keys are listed once per tab, with its name.
    public static func helpSections(
        ascii: Bool, tabs: [String] = ["Contacts", "Accounts", "Syncs", "Inspector"],
        keymap table: Keymap<AppCommand, AppMode> = table
    ) -> [HelpOverlay.Section] {
        let numbered = Set((1...9).map { "tab \($0)" })
        let tabLines = tabs.prefix(9).enumerated().map { index, title in
            (keys: "\(index + 1)", help: Self.tabHelp[title] ?? "\(title) tab")
        }
        var browsing = table.helpLines(for: .browsing, ascii: ascii).filter { !numbered.contains($0.help) }
        browsing.insert(contentsOf: tabLines, at: 0)
        let editing = table.helpLines(for: .editing, ascii: ascii)
        let typingQuery = table.helpLines(for: .typingQuery, ascii: ascii)
        func isShared(_ line: (keys: String, help: String)) -> Bool {
            editing.contains { $0 == line } && typingQuery.contains { $0 == line }
        }
        return [
            HelpOverlay.Section(title: "Lists and detail", lines: browsing),
            HelpOverlay.Section(title: "Search (/)", lines: table.helpLines(for: .searching, ascii: ascii)),
            HelpOverlay.Section(title: "Edit form", lines: editing.filter { !isShared($0) }),
            HelpOverlay.Section(
                title: "Inspector (\(tabs.count))",
                lines: table.helpLines(for: .inspecting, ascii: ascii).filter { line in
                    !browsing.contains { $0.keys == line.keys } && !numbered.contains(line.help)
                } + typingQuery.filter { !isShared($0) }),
            HelpOverlay.Section(
                title: "Subscription prompt (a)",
                lines: table.helpLines(for: .typingSubscription, ascii: ascii).filter { line in !editing.contains { $0 == line } }),
            HelpOverlay.Section(title: "Typing (form, SQL prompt)", lines: editing.filter(isShared)),
            HelpOverlay.Section(title: "Questions", lines: table.helpLines(for: .confirmingDelete, ascii: ascii)),
            HelpOverlay.Section(title: "Conflict (c)", lines: table.helpLines(for: .resolvingConflict, ascii: ascii)),
            HelpOverlay.Section(title: "Duplicate, or create in doubt (c)", lines: decisionLines(table, ascii: ascii)),
        ]
    }

    /// The create-decision keys, the nine numbered ones said once.
    static func decisionLines(_ table: Keymap<AppCommand, AppMode>, ascii: Bool) -> [(keys: String, help: String)] {
        let lines = table.helpLines(for: .decidingCreate, ascii: ascii)
        let numbered = lines.filter { $0.help.hasPrefix("in doubt: the server's record ") }
        var kept = lines.filter { !$0.help.hasPrefix("in doubt: the server's record ") }
        if !numbered.isEmpty { kept.insert((keys: "1-\(numbered.count)", help: "in doubt: the server's record of that number is it"), at: 0) }
        return kept
    }
}
