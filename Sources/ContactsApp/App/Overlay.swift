/// What sits over the tab being shown, carrying its own state: a dialog cannot be open without
/// what it needs, and closing it drops that state with it. `nil` on `AppModel.overlay` is the tab
/// itself (browsing a list, or the Inspector's results).
public enum Overlay: Sendable {
    /// The list's search box has the keys.
    case searching
    /// The `?` screen, scrolled by this many rows.
    case help(scroll: Int)
    /// A yes / no question about the selected record or the app.
    case question(Question)
    /// The edit form, with whatever it opened over itself.
    case form(FormSession)
    /// The conflict dialog for the selected record.
    case conflict(ConflictDialog)
    /// A create the org did not take as it was: refused as a duplicate, or in doubt after a lost answer.
    case decision(CreateDecisionDialog)
    /// The Inspector's prompt has the keys.
    case typingQuery
    /// The subscription prompt (`a`): a condition, then a name.
    case subscribing(SubscriptionPrompt)

    /// The keymap's context for this overlay.
    var mode: AppMode {
        switch self {
        case .searching: .searching
        case .help: .help
        case let .question(question): question.mode
        case let .form(session): session.mode
        case .conflict: .resolvingConflict
        case .decision: .decidingCreate
        case .typingQuery: .typingQuery
        case .subscribing: .typingSubscription
        }
    }
}

/// A yes / no question, with its words and its record fixed when it was asked: a sync that ends
/// while it is open may move the selection, and the answer still acts on the record it named.
public struct Question: Sendable, Equatable {
    public enum Subject: Sendable, Equatable {
        /// Deleting the selected record (and an account's contacts with it).
        case delete
        /// Dropping the selected record's local changes.
        case revert
        /// Quitting while a sync runs.
        case quit
        /// Removing the subscription of that name (`d` on Syncs, `b` on an offline account).
        case unsubscribe(name: String)
    }

    public let subject: Subject
    public let text: String
    /// The record a delete or revert is about (its entry in the shown list's soup).
    public let entryId: Int64?

    public init(subject: Subject, text: String, entryId: Int64? = nil) {
        self.subject = subject
        self.text = text
        self.entryId = entryId
    }

    var mode: AppMode {
        switch subject {
        case .delete, .unsubscribe: .confirmingDelete
        case .revert: .confirmingRevert
        case .quit: .confirmingQuit
        }
    }
}

/// The edit form and what it has opened over itself: a picker for a lookup or a choice field, or
/// the question whether to discard unsaved edits.
public struct FormSession: Sendable {
    public enum Prompt: Sendable {
        case lookup(LookupPicker)
        case choice(ChoicePicker)
        case discard
    }

    public var form: RecordForm
    public var prompt: Prompt?

    var mode: AppMode {
        switch prompt {
        case nil: .editing
        case .lookup, .choice: .pickingLookup
        case .discard: .confirmingDiscard
        }
    }
}

/// The conflict dialog: which of the conflicting fields `m` / `t` settle next.
public struct ConflictDialog: Sendable, Equatable {
    public var fieldIndex = 0
}
