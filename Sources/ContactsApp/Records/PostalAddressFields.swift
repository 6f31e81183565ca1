/// A record's postal address: the five fields of a contact's mailing address (Mailing…) or an
/// account's billing address (Billing…), in the order street, city, state, postal code, country.
/// The detail shows them as one line, imports place an address book's address into them.
public struct PostalAddressFields: Sendable {
    public let fields: [String]

    public init(kind: RecordKind) {
        let prefix = kind.role == .account ? "Billing" : "Mailing"
        fields = ["Street", "City", "State", "PostalCode", "Country"].map { prefix + $0 }
    }

    /// Whether the config syncs all five, so they can be shown and filled as one address.
    public func isShownTogether(in synced: [String]) -> Bool { fields.allSatisfy(synced.contains) }

    /// `Calle Mayor 1, Madrid, Madrid 28013, Spain`: the street's lines joined, empty parts left out.
    public func oneLine(_ record: LocalRecord) -> String {
        var address = AddressBookEntry.PostalAddress()
        address.street = record.string(fields[0])
        address.city = record.string(fields[1])
        address.region = record.string(fields[2])
        address.postalCode = record.string(fields[3])
        address.country = record.string(fields[4])
        return address.oneLine
    }
}
