import MobileSync

/// Every toast and question the app shows, in one place. A key a message names is read from the
/// keymap in use, so a key rebound in config.toml is the one the message names. A toast gets 76
/// columns at 80: what matters comes first, and the fixed texts fit in one line (a long value
/// wraps to a second, never more).
///
/// ```swift
/// let messages = Messages(keymap: AppKeymap.table)
/// messages.savedLocally   // "Saved locally; s syncs it"
/// ```
public struct Messages: Sendable {
    public let keymap: Keymap<AppCommand, AppMode>

    public init(keymap: Keymap<AppCommand, AppMode>) {
        self.keymap = keymap
    }

    /// The first key bound to `command` in `mode`, as the help screen writes it.
    public func key(_ command: AppCommand, in mode: AppMode = .browsing) -> String {
        keymap.keys(for: command, in: mode).first?.label ?? "?"
    }

    static func plural(_ count: Int, _ word: String) -> String { count == 1 ? "1 \(word)" : "\(count) \(word)s" }

    // MARK: Saving and editing

    public var savedLocally: String { "Saved locally; \(key(.sync)) syncs it" }
    /// With automatic sync on: the save goes up by itself.
    public var savedToSend: String { "Saved locally; it syncs within seconds" }
    public var nothingChanged: String { "Nothing changed" }
    public func savedOutsideSearch(_ search: String) -> String {
        let shown = search.count > 16 ? String(search.prefix(15)) + "…" : search
        return "Saved; shown though /\(shown) no longer matches it; \(key(.sync)) syncs it"
    }
    public func notSaved(problems: Int) -> String {
        "Not saved: \(problems == 1 ? "a field needs" : "some fields need") attention"
    }
    public func changedWhileEditing(_ label: String, now value: String) -> String {
        let change = value.isEmpty ? "emptied \(label)" : "changed \(label) to “\(value.count > 24 ? String(value.prefix(23)) + "…" : value)”"
        return "Not saved: a sync \(change); \(key(.save, in: .editing)) keeps yours"
    }
    public func undeleteBeforeEditing(_ kind: RecordKind) -> String {
        "Undelete this \(kind.singular) (\(key(.undeleteRecord))) before editing it"
    }
    public func readOnlyField(_ label: String) -> String { "\(label) is read-only for you in this org" }
    public func noValues(_ label: String) -> String { "The org's describe lists no values for \(label)" }
    public var discardQuestion: String { "Discard your unsaved changes?" }

    /// Why a soup that no named sync up sends is not editable here.
    public static func notSyncedUp(_ kind: RecordKind) -> String {
        "Not editable: no sync up in usersyncs.json sends the \(kind.soupName) soup"
    }

    public static let readOnlyStore =
        "Read-only store: nothing can change or sync; chmod u+w the file and folder"

    // MARK: Local changes

    public func deleteQuestion(name: String, cascade: Int) -> String {
        let withContacts =
            cascade == 0
            ? ""
            : " Salesforce deletes its \(Self.plural(cascade, "contact")) with it; \(cascade == 1 ? "it is" : "they are") marked deleted here too."
        return "Delete \(name)? It stays here, marked -, until the next sync deletes it on the server.\(withContacts)"
    }
    public func deleted(contacts: Int) -> String {
        "Deleted locally" + (contacts > 0 ? " with its \(Self.plural(contacts, "contact"))" : "")
            + "; \(key(.undeleteRecord)) undeletes until the next sync"
    }
    public func alreadyDeleted(_ kind: RecordKind) -> String {
        "This \(kind.singular) is already deleted; \(key(.undeleteRecord)) undeletes it"
    }
    public func onlyDeletedUndelete(_ kind: RecordKind) -> String { "Only a deleted \(kind.singular) can be undeleted" }
    public func undeleted(contacts: Int) -> String {
        "Undeleted" + (contacts > 0 ? " with its \(Self.plural(contacts, "contact"))" : "")
    }
    public func noChangesToRevert(_ kind: RecordKind) -> String { "This \(kind.singular) has no local changes to revert" }
    public func revertQuestion(name: String, createdHere: Bool) -> String {
        createdHere
            ? "Revert \(name)? It was created here and never synced, so it is removed."
            : "Revert \(name)? Your local changes are dropped and it goes back to the server's version."
    }
    public var reverted: String { "Reverted to the server's version" }
    public var removedNeverSynced: String { "Removed: it was never on the server" }

    // MARK: Lists and detail

    public func sorted(by label: String) -> String { "Sorted by \(label); \(key(.nextSort)) for the next order" }
    public func emptyFilter(_ title: String) -> String { "No \(title); \(key(.nextFilter)) shows the next filter" }
    public var contactWithoutAccount: String { "This contact has no account" }
    public var accountNotInStore: String { "Its account is not in this store" }
    public func copied(record name: String, fields: Int) -> String { "Copied \(name) (\(fields) fields) to the clipboard" }
    public func copied(value: String) -> String { "Copied \(value) to the clipboard" }
    public func nothingToCopy(name: String, kind: RecordKind) -> String {
        "Nothing to copy: no email, phone or website; \(key(.copyRecord)) copies the whole \(kind.singular)"
    }

    // MARK: Conflicts

    public func savedLikelyDuplicate(of name: String, because reason: String) -> String {
        "Saved locally; it looks like \(name) here (\(reason)): the org's duplicate rule may refuse it"
    }
    public var savingDuplicateAnyway: String { "The next sync (\(key(.sync))) sends it again, saved although the org has records like it" }
    public func matchNotHeld(_ match: String) -> String { "The org's \(match) is not in this store (another sync may hold it)" }
    public func openedMatch(_ match: String) -> String { "This is \(match), the record the org has; yours is still there, refused" }
    public var discardedDuplicate: String { "Discarded yours; the org's record stays" }
    public func adoptedCandidate(_ candidate: String) -> String { "It is the server's \(candidate) now" }
    public var creatingAnew: String { "The next sync (\(key(.sync))) creates it anew" }

    /// The create-decision dialog's question and its keys.
    public func createDecision(_ dialog: CreateDecisionDialog, name: String) -> (question: String, choices: String) {
        switch dialog.kind {
        case let .duplicate(message, matches):
            let like =
                matches.isEmpty
                ? "records like it"
                : matches.prefix(3).map(\.label).joined(separator: ", ")
                    + (matches.count > 3 ? " and \(matches.count - 3) more" : "")
            return (
                "The org refused \(name) as a duplicate (\(message)): it has \(like).",
                "a = save anyway   o = open the org's   x = discard mine   Esc = later"
            )
        case let .inDoubt(reason, candidates):
            let listed = candidates.prefix(9).enumerated().map { "\($0 + 1) \($1.label)" }.joined(separator: "   ")
            return (
                "\(name)'s create may be on the server already: \(reason)." + (candidates.isEmpty ? "" : " It may be: \(listed)."),
                (candidates.isEmpty ? "" : "1-\(min(candidates.count, 9)) = that is it   ") + "n = create it anew   Esc = later"
            )
        }
    }

    public func noConflict(_ kind: RecordKind) -> String {
        "This \(kind.singular) has no conflict; \(key(.resolveConflict)) resolves one marked \(LocalState.conflict.marker)"
    }
    public func resolvedSome(_ choice: ConflictChoice, fields: String?, left: Int) -> String {
        "\(choice == .keepMine ? "Kept yours" : "Took the server's") for \(fields ?? "those fields"); \(left) left to decide"
    }
    public func resolved(_ choice: ConflictChoice, fields: String?) -> String {
        switch (choice, fields) {
        case let (.keepMine, label?): "Kept yours for \(label); \(key(.sync)) sends your changes"
        case let (.takeServer, label?): "Took the server's for \(label)"
        case (.keepMine, nil): "Kept your version; \(key(.sync)) sends it to the server"
        case (.takeServer, nil): "Took the server's version; your changes were dropped"
        }
    }

    // MARK: Sync

    public func tookServersKeepingOthers(_ fields: String) -> String {
        "Took the server's for \(fields); \(key(.sync)) sends your other changes"
    }

    public var quitQuestion: String { "A sync is running. Quit anyway? Local changes are kept." }
    public var syncAlreadyRunning: String { "A sync is already running" }
    public func queued(_ count: Int) -> String {
        count == 1 ? "1 local change stays queued" : "\(count) local changes stay queued"
    }
    public func offlineSkipped(queued count: Int) -> String { "Offline: sync skipped; \(queued(count))" }
    public func notSignedIn(queued count: Int) -> String {
        "Not signed in: run forceterm login, then \(key(.sync)); \(queued(count))"
    }
    /// The reason comes from the sync run, whose own words for the command line ("Local changes are
    /// kept in the store; run forceterm sync again.") are said first here, in short.
    public func syncFailed(_ reason: String) -> String {
        let cause = reason.components(separatedBy: ". Local changes are kept").first ?? reason
        return "Sync failed, local changes kept: \(cause)"
    }
    /// The org could not be reached: short enough for 80 columns, and saying nothing was lost.
    public func syncOffline(queued count: Int) -> String {
        "Offline: org unreachable; \(queued(count)) (\(key(.sync)) retries)"
    }

    /// The toast after a sync: what needs the user first (a narrow terminal cuts the end), then
    /// what was exchanged. Whether it is an error comes with it.
    public func syncFinished(_ summary: SyncSummary) -> Toast {
        var needs: [String] = []
        if summary.conflicts > 0 { needs.append("\(Self.plural(summary.conflicts, "conflict")) (\(key(.resolveConflict)))") }
        if summary.recordsWithErrors > 0 { needs.append("\(Self.plural(summary.recordsWithErrors, "error")) (\(key(.editRecord)))") }
        let message: String
        if !summary.failedSyncs.isEmpty {
            // What failed and what needs the user; the totals are on the Syncs tab.
            let failed = summary.failedSyncs.count == 1 ? summary.failedSyncs[0] : "\(summary.failedSyncs.count) syncs"
            message = "\(failed) failed (Syncs tab)" + (needs.isEmpty ? "; " + summary.exchangedBriefly : "; " + needs.joined(separator: ", "))
        } else if !needs.isEmpty {
            message = "Sync done: " + needs.joined(separator: ", ") + "; " + summary.exchangedBriefly
        } else {
            message = "Sync complete! " + summary.exchanged.prefix(1).uppercased() + summary.exchanged.dropFirst()
        }
        let hidden = summary.hiddenFields.isEmpty ? "" : "; the org hides \(summary.hiddenFields.joined(separator: ", ")) from you"
        return Toast(message + hidden, isError: !needs.isEmpty || !summary.failedSyncs.isEmpty)
    }
}
