import ForceJSON
import Foundation
import MobileSync
import SalesforceIds
import SmartStore

/// Links imported contacts to accounts the way Salesforce's Data Import Wizard matches them: an
/// account id the store or the same file has, else the company's name (case, accents and spacing
/// ignored) among the store's and the file's accounts, else, with `AccountLinking.create`, a new
/// account (a local create, linked through its local id until the next sync sends it).
struct CompanyLinker {
    enum Link {
        case linked(String)
        case create(ImportPlan.Action)
        case none
        case refused(String)
    }

    let accounts: RecordKind?
    let repository: RecordRepository?
    let linking: AccountLinking
    /// Account ids by folded name: the store's, then the file's and the ones this import creates.
    private var byName: [String: [String]] = [:]
    /// The file's accounts: the id the file gave each → the id it has in this store.
    private var fileIds: [String: String] = [:]
    private var createdNames: [String] = []
    /// Ids of accounts this import makes (the file's and the companies'), not yet in the store.
    private var fromThisImport: Set<String> = []
    private var ambiguousInFile: Set<String> = []
    private var unmatched: [String: Int] = [:]
    private var ignored = 0
    private var unknownIds: [String] = []
    private var unsyncedIds = 0
    private var noAccountsSoup = 0

    init(store: SmartStore, schema: RecordSchema, linking: AccountLinking) throws {
        self.linking = linking
        accounts = schema.kinds.first { $0.role == .account }
        repository = accounts.map { RecordRepository(store: store, kind: $0) }
        guard let repository, let accounts else { return }
        try repository.forEachRecord { record in
            guard !record.isLocallyDeleted, let id = record.serverId else { return }
            let key = Self.folded(record.string(accounts.sortPath))
            if !key.isEmpty { byName[key, default: []].append(id) }
        }
    }

    /// Case, accents, width and runs of spaces ignored: `  ACME  Café` and `acme cafe` are one name.
    static func folded(_ name: String) -> String {
        name.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
            .split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// The id of the one stored account named `name` (folded), so an account row of a file
    /// updates it as the Data Import Wizard does rather than making a second one.
    func storedAccount(named name: String) -> String? {
        guard let ids = byName[Self.folded(name)], ids.count == 1, !LocalField.isLocalId(ids[0]) || !isFree(ids[0]) else { return nil }
        return ids[0]
    }

    /// Whether no record of the store's accounts soup has this id, so an import may give it.
    func isFree(_ id: String) -> Bool {
        guard let repository else { return true }
        return !repository.holds(id: id)
    }

    /// An account row of the file was planned: contacts may now name it by the file's id or by name.
    mutating func fileAccount(id fileId: String?, name: String?, storedId: String?, draft: inout RecordDraft) {
        guard let storedId, let accounts else { return }
        if let fileId { fileIds[fileId] = storedId }
        if isFree(storedId) { fromThisImport.insert(storedId) }
        draft.pendingNames[accounts, default: [:]][storedId.lowercased()] = storedId
        if let name {
            let key = Self.folded(name)
            if !key.isEmpty, !(byName[key]?.contains(storedId) ?? false) { byName[key, default: []].append(storedId) }
        }
    }

    /// The account a contact row goes with, or the account to create for it.
    mutating func link(_ row: ImportRow, draft: inout RecordDraft, issued: Set<String>) -> Link {
        guard row.accountId != nil || row.accountName != nil else { return .none }
        guard let accounts, let repository else {
            noAccountsSoup += 1
            return .none
        }
        if let id = row.accountId {
            if let stored = fileIds[id] { return .linked(stored) }
            if repository.holds(id: id) { return .linked(id) }
            // A valid Salesforce id is more precise than a name: the account is the org's, not
            // synced here yet. A local id of another store means nothing here; the name decides.
            if SalesforceId.isValid(id, keyPrefix: accounts.keyPrefix) {
                unsyncedIds += 1
                return .linked(id)
            }
            if row.accountName == nil, SalesforceId.isShapedLikeId(id) || LocalField.isLocalId(id) {
                unknownIds.append(id)
                return .none
            }
        }
        // An AccountId column that holds a name rather than an id is the company's name.
        let given = row.accountName ?? row.accountId.flatMap { SalesforceId.isShapedLikeId($0) || LocalField.isLocalId($0) ? nil : $0 }
        guard let name = given?.trimmingWhitespace, !name.isEmpty else { return .none }
        if linking == .ignore {
            ignored += 1
            return .none
        }
        let key = Self.folded(name)
        if let ids = byName[key] {
            let stored = ids.filter { !fromThisImport.contains($0) }
            if ids.count == 1 { return .linked(ids[0]) }
            if stored.count == 1 { return .linked(stored[0]) }
            if stored.isEmpty {
                // The file gives the same company twice: its first card or row is the one.
                ambiguousInFile.insert(name)
                return .linked(ids[0])
            }
            return .refused("\(stored.count) accounts are named \(name); give the account's id (an AccountId column, X-SALESFORCE-ACCOUNTID) or rename one of them")
        }
        guard linking == .create else {
            unmatched[name, default: 0] += 1
            return .none
        }
        var localId = LocalChanges.newLocalId()
        while !isFree(localId) || fileIds.values.contains(localId) || issued.contains(localId) { localId = LocalChanges.newLocalId() }
        let values: JSONObject
        do {
            values = try draft.values(kind: accounts, record: nil, texts: [(field: "Name", text: name)])
        } catch {
            return .refused("its company \(name) cannot become an account (\(error)); shorten it or give --accounts match")
        }
        byName[key] = [localId]
        fromThisImport.insert(localId)
        createdNames.append(name)
        draft.pendingNames[accounts, default: [:]][localId.lowercased()] = localId
        return .create(ImportPlan.Action(line: row.line, kind: accounts, name: name, change: .create(localId: localId), values: values))
    }

    /// A planned account whose contact was refused after all: the next contact naming it makes it.
    mutating func forget(_ action: ImportPlan.Action) {
        byName[Self.folded(action.name)] = nil
        if let index = createdNames.lastIndex(of: action.name) { createdNames.remove(at: index) }
    }

    /// What the summary says about companies and account links.
    var notes: [String] {
        var notes: [String] = []
        if !createdNames.isEmpty {
            let shown = createdNames.prefix(5).joined(separator: ", ") + (createdNames.count > 5 ? " and \(createdNames.count - 5) more" : "")
            let what = createdNames.count == 1 ? "1 new account for a company" : "\(createdNames.count) new accounts for companies"
            notes.append("\(what) no account is named after: \(shown) (--accounts match links to existing accounts only)")
        }
        if !ambiguousInFile.isEmpty {
            let names = ambiguousInFile.sorted().joined(separator: ", ")
            notes.append("the file has several accounts named \(names); contacts naming \(ambiguousInFile.count == 1 ? "it" : "them") are linked to the first")
        }
        if !unmatched.isEmpty {
            let count = unmatched.values.reduce(0, +)
            let shown = unmatched.keys.sorted().prefix(5).joined(separator: ", ") + (unmatched.count > 5 ? " and \(unmatched.count - 5) more" : "")
            notes.append("\(count) contact\(count == 1 ? " names" : "s name") a company no account is named after (\(shown)); imported without an account (--accounts create makes them)")
        }
        if ignored > 0 { notes.append("companies left out (--accounts ignore): \(ignored) contact\(ignored == 1 ? "" : "s") named one") }
        if !unknownIds.isEmpty {
            notes.append(
                "\(unknownIds.count) contact\(unknownIds.count == 1 ? " gives" : "s give") an account id that is neither in this store nor in the file (\(unknownIds.prefix(3).joined(separator: ", "))); imported without an account"
            )
        }
        if unsyncedIds > 0 {
            notes.append("\(unsyncedIds) contact\(unsyncedIds == 1 ? " links" : "s link") to accounts by a Salesforce id this store has not synced down yet")
        }
        if noAccountsSoup > 0 { notes.append("companies left out: the config syncs no accounts soup (\(noAccountsSoup) record\(noAccountsSoup == 1 ? "" : "s") named one)") }
        return notes
    }
}

extension ImportPlan.Action {
    /// The local id a create gives its record.
    public var localId: String? {
        if case let .create(localId) = change { localId } else { nil }
    }
}
