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
    /// A contact's company by name (vCard ORG, a Company column): linked to the account of
    /// that name, or to one the import creates (`AccountLinking`).
    public var accountName: String?
    /// A contact's account by id (X-SALESFORCE-ACCOUNTID, an AccountId column): the store's, or
    /// one the same file holds.
    public var accountId: String?
    /// What placing the row's values left in the note field or dropped.
    public var report: PlacementReport
    /// Why the row cannot be read as it stands (more cells than the header), if it cannot.
    public var problem: String?
    /// The record as the file has it, to write back unchanged when it is rejected.
    public var original: Original?

    public enum Original: Sendable {
        case csv(cells: [String])
        case vcard(lines: [String])
        case json(JSONObject)
    }

    public init(
        line: Int, kind: RecordKind, pairs: [(field: String, text: String)], id: String? = nil, accountName: String? = nil,
        accountId: String? = nil, report: PlacementReport = PlacementReport(), problem: String? = nil
    ) {
        self.line = line
        self.kind = kind
        self.pairs = pairs
        self.id = id
        self.accountName = accountName
        self.accountId = accountId
        self.report = report
        self.problem = problem
    }
}

/// What an import does with a contact's company that no account of the store is named after,
/// as Salesforce's Data Import Wizard offers it.
public enum AccountLinking: String, CaseIterable, Sendable {
    /// Make the account (a local create the next sync sends) and link the contact to it.
    case create
    /// Link only to accounts the store or the file has; otherwise import the contact without one.
    case match
    /// Leave companies out.
    case ignore
}

/// What an import would do, row by row, and every row it cannot take. Nothing is written until
/// `RecordImporter.apply`, and then all of it or nothing.
public struct ImportPlan: Sendable {
    public enum Change: Sendable, Equatable {
        case create(localId: String)
        /// `matchedBy`: "id" or "email", what found the stored record.
        case update(entryId: Int64, matchedBy: String)
        case unchanged(entryId: Int64, matchedBy: String)
        /// A record of the org (a valid Salesforce id) this store has not synced down yet: kept
        /// as a copy with that id and no local change, so nothing is sent and the next sync down
        /// refreshes it; never a second record on the server.
        case copy(id: String)
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
            case let .copy(id): "store \(kind.singular) \(name) as a copy of the org's record \(id) (not synced here yet)"
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

    public func plan(_ rows: [ImportRow], notes: [String] = [], accounts linking: AccountLinking = .create) throws -> ImportPlan {
        var plan = ImportPlan()
        plan.notes = notes
        var draft = RecordDraft(schema: schema, store: store)
        var companies = try CompanyLinker(store: store, schema: schema, linking: linking)
        var report = PlacementReport()
        var emailIndex: [String: Int64]?
        var seenIds: [String: Int] = [:]
        var seenEmails: [String: Int] = [:]
        var issuedIds: Set<String> = []
        var keptAccounts = 0
        var nameIndex: [String: String]?
        var likelyDuplicates: [String] = []
        // Accounts first, so the file's contacts can point at the file's accounts.
        let numbered = Array(rows.enumerated())
        let ordered = numbered.filter { $0.element.kind.role == .account } + numbered.filter { $0.element.kind.role != .account }
        for (index, row) in ordered {
            let kind = row.kind
            func refuse(_ message: String) { plan.problems.append(ImportProblem(line: row.line, message: message, record: index)) }
            if let problem = row.problem {
                refuse(problem)
                continue
            }
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
            }
            if existing == nil, kind.role == .account, let name = row.pairs.first(where: { $0.field == "Name" })?.text,
                let id = companies.storedAccount(named: name)
            {
                existing = try repository.record(id: id)
                matchedBy = "name"
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
            if let existing { pairs = Self.keepingStoredNote(pairs, of: existing) }
            var newAccount: ImportPlan.Action?
            // A stored contact keeps its account unless the file names one by id: a company
            // spelled another way ("ACME Corp." for "Acme Corporation") does not move it.
            let keepsAccount = existing.map { !$0.string("AccountId").isEmpty } == true && row.accountId == nil
            if keepsAccount, row.accountName != nil { keptAccounts += 1 }
            if kind.role == .contact, !keepsAccount, !pairs.contains(where: { $0.field == "AccountId" }) {
                switch companies.link(row, draft: &draft, issued: issuedIds) {
                case let .linked(id): pairs.append((field: "AccountId", text: id))
                case let .create(action):
                    newAccount = action
                    pairs.append((field: "AccountId", text: action.localId ?? ""))
                case .none: break
                case let .refused(message):
                    refuse(message)
                    continue
                }
            }
            let values: JSONObject
            do {
                values = try draft.values(kind: kind, record: existing, texts: pairs)
            } catch let problems as RecordDraft.Problems {
                for problem in problems.problems { refuse(problem.message) }
                if let newAccount { companies.forget(newAccount) }
                continue
            }
            if let newAccount, let localId = newAccount.localId {
                issuedIds.insert(localId)
                plan.actions.append(newAccount)
            }
            // An update's values are the fields it changes: the name comes from the record with them.
            var shown = existing?.document ?? [:]
            for (field, value) in values { shown[field] = value }
            shown[SmartStore.soupEntryId] = .int(0)
            let name = (try? LocalRecord(document: shown)).map(kind.displayName) ?? ""
            if let existing {
                let changed = LocalEdit.updated(existing.document, fields: values) != nil
                plan.actions.append(
                    ImportPlan.Action(
                        line: row.line, kind: kind, name: name,
                        change: changed ? .update(entryId: existing.entryId, matchedBy: matchedBy) : .unchanged(entryId: existing.entryId, matchedBy: matchedBy),
                        values: values))
                if kind.role == .account { companies.fileAccount(id: row.id, name: values["Name"]?.stringValue, storedId: existing.serverId, draft: &draft) }
            } else if let id = row.id, !LocalField.isLocalId(id), !repository.holds(id: id), !issuedIds.contains(id) {
                issuedIds.insert(id)
                if kind.role == .account { companies.fileAccount(id: id, name: values["Name"]?.stringValue, storedId: id, draft: &draft) }
                plan.actions.append(ImportPlan.Action(line: row.line, kind: kind, name: name, change: .copy(id: id), values: values))
            } else {
                if kind.role == .contact {
                    // What the org's standard duplicate rule will find, said before anything is sent.
                    if nameIndex == nil { nameIndex = try Self.nameIndex(repository) }
                    let key = Self.nameKey(values)
                    if let key, let match = nameIndex?[key] {
                        likelyDuplicates.append("line \(row.line): \(name) looks like \(match) here (same name and account); the org's duplicate rule may refuse it")
                    } else if let key {
                        nameIndex?[key] = name
                    }
                }
                // A local id of another store (an export's) is kept when free, so links and a
                // second export stay the same.
                func isFree(_ id: String) -> Bool { !issuedIds.contains(id) && !repository.holds(id: id) }
                var localId = row.id.flatMap { LocalField.isLocalId($0) && isFree($0) ? $0 : nil } ?? LocalChanges.newLocalId()
                while !isFree(localId) { localId = LocalChanges.newLocalId() }
                issuedIds.insert(localId)
                if kind.role == .account { companies.fileAccount(id: row.id, name: values["Name"]?.stringValue, storedId: localId, draft: &draft) }
                plan.actions.append(ImportPlan.Action(line: row.line, kind: kind, name: name, change: .create(localId: localId), values: values))
            }
            report.add(row.report)
        }
        plan.notes += report.lines + companies.notes
        if !likelyDuplicates.isEmpty {
            plan.notes.append(
                "\(likelyDuplicates.count) new contact\(likelyDuplicates.count == 1 ? "" : "s") may be duplicates: "
                    + likelyDuplicates.prefix(10).joined(separator: "; ") + (likelyDuplicates.count > 10 ? "; …" : "")
                    + " (if the org refuses one, forceterm status names its match and forceterm resolve ID --allow-duplicate keeps it)")
        }
        if keptAccounts > 0 {
            plan.notes.append(
                "\(keptAccounts) stored contact\(keptAccounts == 1 ? " keeps its" : "s keep their") account; the file's company for \(keptAccounts == 1 ? "it" : "them") is not used (an AccountId column or X-SALESFORCE-ACCOUNTID moves a contact)"
            )
        }
        // Stable, so an account made for a company comes before the contact that names it.
        plan.actions = plan.actions.enumerated().sorted { ($0.element.line, $0.offset) < ($1.element.line, $1.offset) }.map(\.element)
        plan.problems = plan.problems.enumerated().sorted { ($0.element.line, $0.offset) < ($1.element.line, $1.offset) }.map(\.element)
        return plan
    }

    /// Writes every action of `plan` in one transaction. Refuses a plan with problems unless
    /// `skippingProblems` (the rows with problems are then simply not among the actions).
    public func apply(_ plan: ImportPlan, skippingProblems: Bool = false) throws {
        guard plan.problems.isEmpty || skippingProblems else {
            throw ConfigError("the import has \(plan.problems.count) bad \(plan.problems.count == 1 ? "row" : "rows"); nothing was written")
        }
        try store.write { transaction in
            for action in plan.actions {
                let repository = RecordRepository(store: store, kind: action.kind)
                switch action.change {
                case let .create(localId): _ = try repository.create(fields: action.values, localId: localId, in: transaction)
                case let .update(entryId, _): _ = try repository.update(entryId: entryId, fields: action.values, in: transaction)
                case let .copy(id): _ = try repository.storeCopy(fields: action.values, id: id, in: transaction)
                case .unchanged: break
                }
            }
        }
    }

    /// An update's note: what the record's Description already says stays, and the file's lines
    /// that it does not say yet are added after it, so an import never wipes a note.
    static func keepingStoredNote(_ pairs: [(field: String, text: String)], of existing: LocalRecord) -> [(field: String, text: String)] {
        let stored = existing.string("Description")
        guard !stored.isEmpty, let index = pairs.firstIndex(where: { $0.field == "Description" }) else { return pairs }
        let new = pairs[index].text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            .filter { $0.isEmpty || !stored.contains($0) }
        let added = new.joined(separator: "\n").trimmingWhitespace
        var result = pairs
        result[index].text = added.isEmpty ? stored : stored + "\n\n" + added
        return result
    }

    /// A contact's first and last name, accents, case and spacing aside, with its account: what
    /// the standard contact matching rule finds within one account. Nil without a last name.
    static func nameKey(_ values: JSONObject) -> String? {
        func folded(_ field: String) -> String {
            CountryNames.fold(values[field]?.stringValue ?? "")
        }
        let last = folded("LastName")
        guard !last.isEmpty else { return nil }
        return [folded("FirstName"), last, values["AccountId"]?.stringValue ?? ""].joined(separator: "|")
    }

    /// Stored contacts by `nameKey`, with their names; read once per import.
    static func nameIndex(_ repository: RecordRepository) throws -> [String: String] {
        var index: [String: String] = [:]
        try repository.forEachRecord { record in
            if let key = nameKey(record.document), index[key] == nil { index[key] = repository.kind.displayName(of: record) }
        }
        return index
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
