/// A person or an organisation as address books describe them (several emails, phones and
/// addresses with their types, name parts, the company by name), read from a vCard or a CSV row
/// before it meets the config. `EntryPlacement` then puts it into the fields the sync sends.
public struct AddressBookEntry: Sendable, Equatable {
    /// A value with the type an address book gave it (`cell`, `home`, `work`, `fax`, `pref`…).
    public struct Typed: Sendable, Equatable {
        public var types: Set<String>
        public var value: String
        public init(types: Set<String> = [], value: String) {
            self.types = types
            self.value = value
        }
    }

    public struct PostalAddress: Sendable, Equatable {
        public var types: Set<String> = []
        public var street = ""
        public var city = ""
        public var region = ""
        public var postalCode = ""
        public var country = ""
        public init() {}

        public var isEmpty: Bool { [street, city, region, postalCode, country].allSatisfy { $0.trimmingWhitespace.isEmpty } }

        /// One line for a note: street (its lines joined), city, region and code, country.
        public var oneLine: String {
            let street = street.split(whereSeparator: \.isNewline).map { $0.trimmingWhitespace }.filter { !$0.isEmpty }.joined(separator: ", ")
            let place = [region, postalCode].map(\.trimmingWhitespace).filter { !$0.isEmpty }.joined(separator: " ")
            return [street, city.trimmingWhitespace, place, country.trimmingWhitespace].filter { !$0.isEmpty }.joined(separator: ", ")
        }
    }

    public var line: Int
    public var isOrganization = false
    /// A Salesforce or local id the file gives (vCard UID, a CSV's Id column).
    public var id: String?
    public var fullName = ""
    public var prefix = ""
    public var givenName = ""
    public var middleName = ""
    public var familyName = ""
    public var suffix = ""
    public var organization = ""
    public var department = ""
    public var title = ""
    public var emails: [Typed] = []
    public var phones: [Typed] = []
    public var addresses: [PostalAddress] = []
    public var websites: [String] = []
    /// As the file wrote it; `EntryPlacement` reads the date out of it.
    public var birthday = ""
    public var note = ""
    /// The account's id (`X-SALESFORCE-ACCOUNTID`, a CSV's AccountId column).
    public var accountId: String?
    /// Values given for a field of the config by its API name (`X-SALESFORCE-FIELD`, a CSV column
    /// named like the field); they win over what the other parts would put there.
    public var fields: [(field: String, text: String)] = []
    /// Everything else with a value, by a label a person reads: Nickname, Categories, Jabber.
    public var other: [(label: String, text: String)] = []
    /// What no field can hold at all (a photo), by label.
    public var unusable: [String] = []

    public init(line: Int) {
        self.line = line
    }

    public static func == (left: AddressBookEntry, right: AddressBookEntry) -> Bool {
        left.line == right.line && left.id == right.id && left.fullName == right.fullName && left.familyName == right.familyName
            && left.givenName == right.givenName && left.emails == right.emails && left.phones == right.phones
            && left.addresses == right.addresses && left.fields.map(\.field) == right.fields.map(\.field)
            && left.other.map(\.label) == right.other.map(\.label)
    }

    /// Adds each of `text`'s values (Google writes several in one cell, separated by ` ::: `).
    mutating func addEmails(_ text: String, types: Set<String>) {
        for value in Self.values(text) { emails.append(Typed(types: types, value: value)) }
    }

    mutating func addPhones(_ text: String, types: Set<String>) {
        for value in Self.values(text) { phones.append(Typed(types: types, value: value)) }
    }

    mutating func addOther(_ label: String, _ text: String) {
        let trimmed = text.trimmingWhitespace
        if !trimmed.isEmpty { other.append((label: label, text: trimmed)) }
    }

    /// A cell's values: split on Google's ` ::: `, trimmed, empty ones dropped.
    static func values(_ text: String) -> [String] {
        text.components(separatedBy: ":::").map(\.trimmingWhitespace).filter { !$0.isEmpty }
    }
}

/// What placing entries left out, to say once: values kept in the note field and values dropped,
/// each with how many there were, and how many last names came from elsewhere.
public struct PlacementReport: Sendable, Equatable {
    /// The field extra values went into (Description), when the config syncs one.
    public var noteField: String?
    public var kept: [String: Int] = [:]
    public var dropped: [String: Int] = [:]
    /// Last names the file did not give, by where they came from (full name, organisation, email).
    public var lastNameFallbacks: [String: Int] = [:]
    /// Values that did not fit their field's form (an email without a domain, a phone of letters).
    public var misfits = 0

    public init(noteField: String? = nil) {
        self.noteField = noteField
    }

    public mutating func add(_ other: PlacementReport) {
        noteField = noteField ?? other.noteField
        kept.merge(other.kept, uniquingKeysWith: +)
        dropped.merge(other.dropped, uniquingKeysWith: +)
        lastNameFallbacks.merge(other.lastNameFallbacks, uniquingKeysWith: +)
        misfits += other.misfits
    }

    /// The summary's lines: what went into the note field, what was dropped, which last names
    /// were made up and from what.
    public var lines: [String] {
        var lines: [String] = []
        func counted(_ counts: [String: Int]) -> String {
            counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
                .map { "\($0.key) ×\($0.value)" }.joined(separator: ", ")
        }
        if !kept.isEmpty, let noteField {
            lines.append("kept in \(noteField) (no field of their own): \(counted(kept))")
        }
        if !dropped.isEmpty {
            let why = noteField == nil ? "no field the sync sends holds them, nor a note field" : "no field holds them"
            lines.append("dropped (\(why)): \(counted(dropped))")
        }
        if misfits > 0 {
            let whereTo = noteField.map { "kept in \($0) instead" } ?? "dropped"
            lines.append(
                "\(misfits) value\(misfits == 1 ? " does" : "s do") not look like what \(misfits == 1 ? "its field holds" : "their fields hold") (an email without a domain, a phone of letters): \(whereTo)"
            )
        }
        if !lastNameFallbacks.isEmpty {
            let total = lastNameFallbacks.values.reduce(0, +)
            let sources = lastNameFallbacks.sorted { $0.key < $1.key }.map { "\($0.value) from the \($0.key)" }.joined(separator: ", ")
            lines.append("\(total) record\(total == 1 ? " has" : "s have") no last name in the file; taken \(sources)")
        }
        return lines
    }
}
