/// What kind of record a screen shows: its soup, sObject type, how it sorts and what a row shows.
public enum RecordKind: String, Sendable, CaseIterable, Hashable {
    case contact
    case account

    public var soupName: String { self == .contact ? "contacts" : "accounts" }
    public var sObjectType: String { self == .contact ? "Contact" : "Account" }
    /// The indexed path the list sorts by (the SDK sample sorts contacts by LastName).
    public var sortPath: String { self == .contact ? "LastName" : "Name" }
    public var singular: String { self == .contact ? "contact" : "account" }
    public var plural: String { self == .contact ? "contacts" : "accounts" }

    /// The fields forceterm offers when usersyncs.json names none for this soup.
    public var fallbackFields: [String] {
        switch self {
        case .contact: return ["FirstName", "LastName", "Title", "MobilePhone", "Email", "Department", "HomePhone"]
        case .account: return ["Name", "Industry", "Phone", "Website", "BillingCity"]
        }
    }

    /// The name a row shows: "First Last" trimmed for contacts (either part may be missing), Name for accounts.
    public func displayName(of document: LocalRecord) -> String {
        switch self {
        case .contact:
            let parts = [document.string("FirstName"), document.string("LastName")].filter { !$0.isEmpty }
            return parts.joined(separator: " ")
        case .account:
            return document.string("Name")
        }
    }

    /// The second column of a row: the title for contacts, industry and city for accounts.
    public func subtitle(of document: LocalRecord) -> String {
        switch self {
        case .contact:
            return document.string("Title")
        case .account:
            return [document.string("Industry"), document.string("BillingCity")].filter { !$0.isEmpty }
                .joined(separator: " · ")
        }
    }
}
