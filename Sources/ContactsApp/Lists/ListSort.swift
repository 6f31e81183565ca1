/// The orders a record list can be sorted in; `o` goes to the next one the kind offers.
public enum ListSort: String, Sendable, CaseIterable {
    /// The kind's own order: a contact's last name, an account's name.
    case name
    case firstName
    /// By the name of the contact's account, then last name; contacts without one last.
    case account
    /// The most recently changed first, here or by a sync.
    case lastModified

    /// What a list of `kind` can be sorted by.
    public static func choices(for kind: RecordKind) -> [ListSort] {
        kind.role == .contact ? [.name, .firstName, .account, .lastModified] : [.name, .lastModified]
    }

    /// The next order `kind` offers after this one, wrapping around.
    public func next(for kind: RecordKind) -> ListSort {
        let choices = Self.choices(for: kind)
        return choices[((choices.firstIndex(of: self) ?? 0) + 1) % choices.count]
    }

    /// How the list's header names the order: "last name", "account".
    public func label(for kind: RecordKind) -> String {
        switch self {
        case .name: kind.role == .contact ? "last name" : "name"
        case .firstName: "first name"
        case .account: "account"
        case .lastModified: "last modified"
        }
    }
}
