import MobileSync

/// The records of one soup, as a tab shows them: which sObject they are and how a row reads.
/// Recognised as contacts or accounts by the sObject type their sync down queries, not by the
/// soup's name, so the Mobile SDK's own configs (a `contacts` soup alone, or an `Account` soup)
/// open as they are; any other sObject is listed by its Name.
public struct RecordKind: Sendable, Hashable {
    public enum Role: String, Sendable, Hashable {
        case contact, account, other
    }

    public let soupName: String
    public let sObjectType: String
    public let role: Role
    /// The fields the sync down fetches, as its target names them; what the detail and the form
    /// show when no sync up names the fields it sends.
    public let fetchedFields: [String]
    /// Whether a named sync up sends this soup's local changes; without one, edits would stay
    /// here for ever, so the TUI does not offer them.
    public let isSyncedUp: Bool

    public init(soupName: String, sObjectType: String, fetchedFields: [String] = [], isSyncedUp: Bool = true) {
        self.soupName = soupName
        self.sObjectType = sObjectType
        role =
            switch sObjectType.lowercased() {
            case "contact": .contact
            case "account": .account
            default: .other
            }
        self.fetchedFields = fetchedFields
        self.isSyncedUp = isSyncedUp
    }

    /// One soup has one kind: two values for the same soup are the same tab.
    public static func == (left: RecordKind, right: RecordKind) -> Bool { left.soupName == right.soupName }
    public func hash(into hasher: inout Hasher) { hasher.combine(soupName) }

    /// forceterm's own soups (its built-in userstore.json).
    public static let contact = RecordKind(soupName: "contacts", sObjectType: "Contact")
    public static let account = RecordKind(soupName: "accounts", sObjectType: "Account")

    /// The path the list sorts by (the SDK sample sorts contacts by LastName).
    public var sortPath: String { role == .contact ? "LastName" : "Name" }
    public var singular: String {
        switch role {
        case .contact: "contact"
        case .account: "account"
        case .other: "\(sObjectType) record"
        }
    }

    public var plural: String {
        switch role {
        case .contact: "contacts"
        case .account: "accounts"
        case .other: "\(sObjectType) records"
        }
    }

    /// The tab's title: Contacts, Accounts, or the soup's name for any other records.
    public var tabTitle: String {
        switch role {
        case .contact: "Contacts"
        case .account: "Accounts"
        case .other: soupName
        }
    }

    /// The fields forceterm offers when usersyncs.json names none for this soup.
    public var fallbackFields: [String] {
        let fetched = fetchedFields.filter { !["Id", "LastModifiedDate", "SystemModstamp"].contains($0) }
        if !fetched.isEmpty { return fetched }
        switch role {
        case .contact: return ["FirstName", "LastName", "Title", "MobilePhone", "Email", "Department", "HomePhone"]
        case .account: return ["Name", "Industry", "Phone", "Website", "BillingCity"]
        case .other: return ["Name"]
        }
    }

    /// The fields a search without a full-text index looks in (the row's name and subtitle).
    public var searchedFields: [String] {
        switch role {
        case .contact: ["FirstName", "LastName", "Title", "Email"]
        case .account: ["Name", "Industry", "BillingCity"]
        case .other: ["Name"]
        }
    }

    /// The name a row shows: "First Last" trimmed for contacts (either part may be missing), Name
    /// for accounts and other records (their Id when they have none).
    public func displayName(of document: LocalRecord) -> String {
        let name: String =
            switch role {
            case .contact: [document.string("FirstName"), document.string("LastName")].filter { !$0.isEmpty }.joined(separator: " ")
            case .account, .other: document.string("Name")
            }
        // Nameless and no sObject record (a metadata or layout sync's document, which the SDK's test
        // app stores among its accounts), or any other record without a Name: its Id.
        if name.isEmpty, role == .other || document.document["attributes"] == nil { return document.string("Id") }
        return name
    }

    /// The second column of a row: the title for contacts, industry and city for accounts.
    public func subtitle(of document: LocalRecord) -> String {
        switch role {
        case .contact:
            return document.string("Title")
        case .account:
            return [document.string("Industry"), document.string("BillingCity")].filter { !$0.isEmpty }
                .joined(separator: " · ")
        case .other:
            return ""
        }
    }

    /// A record tab for each soup a named sync down fills (and the store holds), contacts first,
    /// then accounts, then the others in the file's order. A soup filled under two sObject types is
    /// shown as the first; a soup whose sObject a target does not name (a SOSL query over several)
    /// is listed generically.
    public static func tabs(for syncs: SyncsConfig, soups: Set<String>) -> [RecordKind] {
        let syncedUp = Set(
            syncs.entries.flatMap { entry -> [String] in
                guard case let .up(target) = entry.target else { return [] }
                return [entry.soupName] + (target.parentChildren.map { [$0.children.soupName] } ?? [])
            })
        var kinds: [RecordKind] = []
        for entry in syncs.entries {
            guard case let .down(target) = entry.target else { continue }
            for filled in target.filledSoups(soupName: entry.soupName)
            where filled.holdsRecords && soups.contains(filled.soupName) && !kinds.contains(where: { $0.soupName == filled.soupName }) {
                kinds.append(
                    RecordKind(
                        soupName: filled.soupName, sObjectType: filled.sobjectType ?? filled.soupName,
                        fetchedFields: filled.fields, isSyncedUp: syncedUp.contains(filled.soupName)))
            }
        }
        let order: [Role] = [.contact, .account, .other]
        return order.flatMap { role in kinds.filter { $0.role == role } }
    }
}
