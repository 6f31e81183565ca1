import ForceJSON
import Foundation
import MobileSync
import SmartStore

/// One record read from a file, not yet checked: where it starts, which soup it goes to, its
/// fields as text, and what may match it to a stored record.
public struct ImportRow: Sendable {
    public let line: Int
    public let kind: RecordKind
    public var pairs: [(field: String, text: String)]
    /// A Salesforce or local id the file gives (a CSV's Id column, a vCard's UID).
    public var id: String?
    /// A contact's organisation by name (vCard ORG), linked when the store has that account.
    public var accountName: String?

    public init(line: Int, kind: RecordKind, pairs: [(field: String, text: String)], id: String? = nil, accountName: String? = nil) {
        self.line = line
        self.kind = kind
        self.pairs = pairs
        self.id = id
        self.accountName = accountName
    }
}

/// What an import would do, row by row, and every row it cannot take. Nothing is written until
/// `RecordImporter.apply`, and then all of it or nothing.
public struct ImportPlan: Sendable {
    public enum Change: Sendable, Equatable {
        case create(localId: String)
        /// `matchedBy`: "id" or "email", what found the stored record.
        case update(entryId: Int64, matchedBy: String)
        case unchanged(entryId: Int64, matchedBy: String)
    }

    public struct Action: Sendable {
        public let line: Int
        public let kind: RecordKind
        public let name: String
        public let change: Change
        public let values: JSONObject

        /// "create contact Ana García", "update contact Ana García (its email matches)".
        public var summary: String {
            switch change {
            case .create: "create \(kind.singular) \(name)"
            case let .update(_, matchedBy): "update \(kind.singular) \(name) (its \(matchedBy) matches)"
            case let .unchanged(_, matchedBy): "no change to \(kind.singular) \(name) (its \(matchedBy) matches; same values)"
            }
        }
    }

    public internal(set) var actions: [Action] = []
    public internal(set) var problems: [ImportProblem] = []
    /// What was left out or guessed, to say once (columns no field takes, unknown accounts).
    public internal(set) var notes: [String] = []

    public func count(_ wanted: (Change) -> Bool) -> Int { actions.filter { wanted($0.change) }.count }
}

/// Turns rows into local creates and updates recorded exactly as the edit form records them (the
/// form's rules, the SDK's local flags), all in one transaction. A row matches a stored record by
/// its id, else (contacts) by email, case ignored; then it updates the fields it gives and
/// leaves the others alone (an empty cell never clears a stored value).
public struct RecordImporter: Sendable {
    public let store: SmartStore
    public let schema: RecordSchema

    public init(store: SmartStore, schema: RecordSchema) {
        self.store = store
        self.schema = schema.readingDescriptionsOnce()
    }

    public func plan(_ rows: [ImportRow], notes: [String] = []) throws -> ImportPlan {
        var plan = ImportPlan()
        plan.notes = notes
        var draft = RecordDraft(schema: schema, store: store)
        var emailIndex: [String: Int64]?
        var seenIds: [String: Int] = [:]
        var seenEmails: [String: Int] = [:]
        var issuedIds: Set<String> = []
        // Accounts first, so the file's contacts can point at the file's accounts.
        let ordered = rows.filter { $0.kind.role == .account } + rows.filter { $0.kind.role != .account }
        for row in ordered {
            let kind = row.kind
            func refuse(_ message: String) { plan.problems.append(ImportProblem(line: row.line, message: message)) }
            guard kind.isSyncedUp else {
                refuse(Messages.notSyncedUp(kind))
                continue
            }
            let repository = RecordRepository(store: store, kind: kind)
            let email = row.pairs.first { $0.field.caseInsensitiveCompare("Email") == .orderedSame }?.text.trimmingWhitespace.lowercased() ?? ""
            if let id = row.id, let earlier = seenIds[id] {
                refuse("the same id as line \(earlier) (\(id)); give each record once")
                continue
            }
            if kind.role == .contact, !email.isEmpty, let earlier = seenEmails[email] {
                refuse("the same email as line \(earlier) (\(email)); merge the two into one")
                continue
            }
            if let id = row.id { seenIds[id] = row.line }
            if kind.role == .contact, !email.isEmpty { seenEmails[email] = row.line }

            var existing: LocalRecord?
            var matchedBy = ""
            if let id = row.id {
                existing = try repository.record(id: id)
                matchedBy = "id"
                if existing == nil { plan.notes.append("line \(row.line): its id \(id) is not in this store; it is imported as a new \(kind.singular)") }
            }
            if existing == nil, kind.role == .contact, !email.isEmpty {
                if emailIndex == nil { emailIndex = try Self.emailIndex(repository) }
                if let entryId = emailIndex?[email] {
                    existing = try repository.record(entryId: entryId)
                    matchedBy = "email"
                }
            }
            if let existing, existing.isLocallyDeleted {
                refuse("it matches \(kind.displayName(of: existing)) by \(matchedBy), which is marked deleted here; undelete it (u in the terminal UI) or leave the row out")
                continue
            }
            var pairs = existing == nil ? row.pairs : row.pairs.filter { !$0.text.trimmingWhitespace.isEmpty }
            if let accountName = row.accountName, let accounts = schema.lookups(for: kind)["AccountId"],
               !pairs.contains(where: { $0.field == "AccountId" }) {
                if case .success = draft.resolve(accountName, in: accounts) {
                    pairs.append((field: "AccountId", text: accountName))
                } else {
                    plan.notes.append("line \(row.line): no \(accounts.singular) named \(accountName) in this store; the \(kind.singular) is imported without one")
                }
            }
            let values: JSONObject
            do {
                values = try draft.values(kind: kind, record: existing, texts: pairs)
            } catch let problems as RecordDraft.Problems {
                for problem in problems.problems { refuse(problem.message) }
                continue
            }
            var shown = values
            shown[SmartStore.soupEntryId] = .int(0)
            let name = (try? LocalRecord(document: shown)).map(kind.displayName) ?? ""
            if let existing {
                let changed = LocalEdit.updated(existing.document, fields: values) != nil
                plan.actions.append(ImportPlan.Action(
                    line: row.line, kind: kind, name: name,
                    change: changed ? .update(entryId: existing.entryId, matchedBy: matchedBy) : .unchanged(entryId: existing.entryId, matchedBy: matchedBy),
                    values: values))
            } else {
                var localId = LocalChanges.newLocalId()
                while !issuedIds.insert(localId).inserted { localId = LocalChanges.newLocalId() }
                if kind.role == .account, let accountName = values["Name"]?.stringValue {
                    draft.pendingNames[kind, default: [:]][accountName.lowercased()] = localId
                }
                plan.actions.append(ImportPlan.Action(line: row.line, kind: kind, name: name, change: .create(localId: localId), values: values))
            }
        }
        plan.actions.sort { $0.line < $1.line }
        plan.problems.sort { $0.line < $1.line }
        return plan
    }

    /// Writes every action of `plan` in one transaction. Refuses a plan with problems.
    public func apply(_ plan: ImportPlan) throws {
        guard plan.problems.isEmpty else { throw ConfigError("the import has \(plan.problems.count) bad rows; nothing was written") }
        try store.write { transaction in
            for action in plan.actions {
                let repository = RecordRepository(store: store, kind: action.kind)
                switch action.change {
                case let .create(localId): _ = try repository.create(fields: action.values, localId: localId, in: transaction)
                case let .update(entryId, _): _ = try repository.update(entryId: entryId, fields: action.values, in: transaction)
                case .unchanged: break
                }
            }
        }
    }

    /// Stored contacts by email, lowercased; read once per import.
    static func emailIndex(_ repository: RecordRepository) throws -> [String: Int64] {
        var index: [String: Int64] = [:]
        try repository.forEachRecord { record in
            let email = record.string("Email").trimmingWhitespace.lowercased()
            if !email.isEmpty, index[email] == nil { index[email] = record.entryId }
        }
        return index
    }
}
