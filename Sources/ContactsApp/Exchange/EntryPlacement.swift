/// Puts an `AddressBookEntry` into the fields the config's sync sends for contacts or accounts:
/// the preferred email, one phone per phone field by type, the preferred address, name parts in
/// the fields Salesforce has for them. What has no field of its own (a second email, a nickname)
/// goes into the note field (Description) when the config syncs it, else it is dropped; either
/// way it is counted, so the summary says what happened to it.
public struct EntryPlacement: Sendable {
    public let kind: RecordKind
    /// The fields the sync sends for `kind`.
    public let fields: [String]

    public init(kind: RecordKind, fields: [String]) {
        self.kind = kind
        self.fields = fields
    }

    public struct Placed: Sendable {
        public var pairs: [(field: String, text: String)]
        /// The contact's company by name (ORG, a Company column), to link or create.
        public var accountName: String?
        public var accountId: String?
        public var report: PlacementReport
    }

    /// Phones by type, for a contact: the first type a phone has that names a field wins.
    static let contactPhoneFields: [(type: String, field: String)] = [
        ("cell", "MobilePhone"), ("iphone", "MobilePhone"), ("mobile", "MobilePhone"), ("fax", "Fax"), ("home", "HomePhone"),
        ("work", "Phone"), ("main", "Phone"), ("voice", "Phone"), ("other", "OtherPhone"),
    ]
    static let accountPhoneFields: [(type: String, field: String)] = [("fax", "Fax"), ("work", "Phone"), ("main", "Phone"), ("voice", "Phone")]

    var phoneFields: [(type: String, field: String)] { kind.role == .account ? Self.accountPhoneFields : Self.contactPhoneFields }

    /// The address fields, in `PostalAddress` order: street, city, state, postal code, country.
    var addressFields: [String] { PostalAddressFields(kind: kind).fields }

    var noteField: String? { fields.contains("Description") ? "Description" : nil }

    /// `accepts`: whether a value fits a field's form; one that does not goes to the note.
    public func place(_ entry: AddressBookEntry, accepts: @escaping FieldCheck = { _, _ in true }) -> Placed {
        var placing = Placing(fields: fields, noteField: noteField, accepts: accepts)
        for (field, text) in entry.fields where !placing.set(field, text) { placing.keep(field, text) }
        var accountName: String?
        if kind.role == .account || entry.isOrganization {
            var name = entry.organization.trimmingWhitespace
            if name.isEmpty { name = entry.fullName.trimmingWhitespace }
            placing.place("Name", name, label: "Name")
            // A person named on an organisation's card (Apple's "show as company") is its contact.
            let person = [entry.prefix, entry.givenName, entry.middleName, entry.familyName, entry.suffix]
                .map(\.trimmingWhitespace).filter { !$0.isEmpty }.joined(separator: " ")
            let shown = person.isEmpty ? entry.fullName.trimmingWhitespace : person
            if !shown.isEmpty, Self.words(shown) != Self.words(name) { placing.keep("Contact name", shown) }
            if !entry.fullName.isEmpty, !person.isEmpty, Self.words(entry.fullName) != Self.words(person), Self.words(entry.fullName) != Self.words(name) {
                placing.keep("Full name", entry.fullName)
            }
            placing.keep("Department", entry.department)
            placing.keep("Title", entry.title)
            for email in Self.byPreference(entry.emails) { placing.keep("Email", email.value, types: email.types) }
        } else {
            placeName(entry, into: &placing)
            let organization = entry.organization.trimmingWhitespace
            if !organization.isEmpty { accountName = organization }
            placing.place("Department", entry.department, label: "Department")
            placing.place("Title", entry.title, label: "Title")
            // The first email that fits the field goes there (a preferred one without a domain does not).
            for email in Self.byPreference(entry.emails) where !placing.set("Email", email.value) {
                placing.keep("Email", email.value, types: email.types)
            }
        }
        for phone in Self.byPreference(entry.phones) {
            let field = phoneFields.first { phone.types.contains($0.type) }?.field ?? "Phone"
            if !placing.set(field, phone.value) { placing.keep("Phone", phone.value, types: phone.types) }
        }
        for (index, address) in Self.byPreference(entry.addresses).enumerated() where !address.isEmpty {
            let parts = [address.street, address.city, address.region, address.postalCode, address.country]
            let free = addressFields.allSatisfy { placing.fields.contains($0) && placing.values[$0] == nil }
            if index == 0, free {
                for (field, text) in zip(addressFields, parts) { _ = placing.set(field, text) }
            } else {
                placing.keep("Address", address.oneLine, types: address.types)
            }
        }
        for website in entry.websites where !placing.set("Website", website) { placing.keep("Website", website) }
        if !entry.birthday.trimmingWhitespace.isEmpty {
            if let date = Self.date(entry.birthday), placing.set("Birthdate", date) {} else { placing.keep("Birthday", entry.birthday) }
        }
        for (label, text) in entry.other { placing.keep(label, text) }
        for label in entry.unusable { placing.report.dropped[label, default: 0] += 1 }
        placing.finishNote(entry.note)
        let accountId = entry.accountId?.trimmingWhitespace
        return Placed(pairs: placing.pairs, accountName: accountName, accountId: accountId?.isEmpty == false ? accountId : nil, report: placing.report)
    }

    /// Family, given and middle names, prefix and suffix; a missing last name from the full
    /// name, else the organisation, else the email's local part (Salesforce needs one).
    func placeName(_ entry: AddressBookEntry, into placing: inout Placing) {
        var family = entry.familyName.trimmingWhitespace
        var given = entry.givenName.trimmingWhitespace
        let full = entry.fullName.trimmingWhitespace
        if family.isEmpty {
            let email = Self.byPreference(entry.emails).first?.value ?? ""
            if !full.isEmpty {
                var words = full.split(separator: " ").map(String.init)
                if !given.isEmpty, words.first == given, words.count > 1 { words.removeFirst() }
                family = words.last ?? full
                if given.isEmpty { given = words.dropLast().joined(separator: " ") }
                if entry.givenName.isEmpty, entry.familyName.isEmpty, entry.middleName.isEmpty {
                    // A card with only FN names its person that way; no fallback to report.
                } else {
                    placing.report.lastNameFallbacks["full name", default: 0] += 1
                }
            } else if !entry.organization.trimmingWhitespace.isEmpty {
                family = entry.organization.trimmingWhitespace
                placing.report.lastNameFallbacks["organisation", default: 0] += 1
            } else if let at = email.firstIndex(of: "@"), at != email.startIndex {
                family = String(email[..<at])
                placing.report.lastNameFallbacks["email address", default: 0] += 1
            }
        }
        // A display name that says more than the parts (`Joe Due` beside N:Gump;Forrest) is kept.
        let parts = [entry.prefix, given, entry.middleName, family, entry.suffix, entry.familyName, entry.givenName].map(Self.words)
        if !full.isEmpty, !Set(Self.words(full)).isSubset(of: Set(parts.joined())) { placing.keep("Full name", full) }
        placing.place("LastName", family, label: "Last name")
        placing.place("FirstName", given, label: "First name")
        placing.place("MiddleName", entry.middleName, label: "Middle name")
        placing.place("Salutation", entry.prefix, label: "Name prefix")
        placing.place("Suffix", entry.suffix, label: "Name suffix")
    }

    /// A name's words, lowercased, without punctuation: `Dr. Max` → dr, max.
    static func words(_ text: String) -> [String] {
        text.lowercased().split { !$0.isLetter && !$0.isNumber }.map(String.init)
    }

    /// The preferred values first (TYPE=pref, PREF=1, Google's `*`), then the others in order.
    static func byPreference<T>(_ values: [T]) -> [T] where T: Typing {
        values.filter { $0.types.contains("pref") } + values.filter { !$0.types.contains("pref") }
    }

    /// A birthday as Salesforce's `YYYY-MM-DD`, from `19850412`, `1985-04-12`, a date-time,
    /// Outlook's `4/12/1985` or `12.04.1985`; nil for one without a year (`--0412`, `0/0/00`).
    static func date(_ text: String) -> String? {
        let text = text.trimmingWhitespace
        func valid(_ year: Int, _ month: Int, _ day: Int) -> String? {
            guard (1...12).contains(month), (1...31).contains(day), year >= 1700, year <= 4000 else { return nil }
            return String(format: "%04d-%02d-%02d", year, month, day)
        }
        let day = text.prefix { $0 != "T" && $0 != " " }
        for separator in ["/", "."] where day.contains(separator) {
            let parts = day.split(separator: Character(separator)).map { Int($0.trimmingWhitespace) }
            guard parts.count == 3, let first = parts[0], let second = parts[1], let year = parts[2] else { return nil }
            if separator == "." { return valid(year, second, first) }
            // 4/12/1985: April in the US, 4 December in most other places. Only a day above 12
            // says which; otherwise the text goes to the note as it was written.
            if first > 12 { return valid(year, second, first) }
            if second > 12 || first == second { return valid(year, first, second) }
            return nil
        }
        let digits = day.filter(\.isNumber)
        guard digits.count == 8, !text.hasPrefix("--"), let year = Int(digits.prefix(4)), let month = Int(digits.dropFirst(4).prefix(2)),
            let day = Int(digits.suffix(2))
        else { return nil }
        return valid(year, month, day)
    }
}

/// Something with vCard-like types (`pref`, `home`…).
protocol Typing {
    var types: Set<String> { get }
}

extension AddressBookEntry.Typed: Typing {}
extension AddressBookEntry.PostalAddress: Typing {}

/// One entry's values on their way into fields, and the note lines for what has no field.
struct Placing {
    let fields: [String]
    let noteField: String?
    let accepts: FieldCheck
    var values: [String: String] = [:]
    var order: [String] = []
    var noteLines: [String] = []
    var report: PlacementReport

    init(fields: [String], noteField: String?, accepts: @escaping FieldCheck) {
        self.fields = fields
        self.noteField = noteField
        self.accepts = accepts
        report = PlacementReport(noteField: noteField)
    }

    /// Sets a synced, still empty field; false when the field is not synced or already set.
    /// An empty text is nothing to place, so it counts as done.
    mutating func set(_ field: String, _ text: String) -> Bool {
        let trimmed = text.trimmingWhitespace
        guard !trimmed.isEmpty else { return true }
        guard fields.contains(field), values[field] == nil else { return false }
        guard accepts(field, trimmed) else {
            report.misfits += 1
            return false
        }
        values[field] = trimmed
        order.append(field)
        return true
    }

    mutating func place(_ field: String, _ text: String, label: String) {
        if !set(field, text) { keep(label, text) }
    }

    /// A value with no field: a line of the note (`Email (home): …`) when there is a note field.
    mutating func keep(_ label: String, _ text: String, types: Set<String> = []) {
        let trimmed = text.trimmingWhitespace
        guard !trimmed.isEmpty else { return }
        guard noteField != nil else {
            report.dropped[label, default: 0] += 1
            return
        }
        let shownTypes = types.subtracting(["pref", "internet", "voice", "x400"]).sorted()
        let flat = trimmed.split(whereSeparator: \.isNewline).map { $0.trimmingWhitespace }.joined(separator: ", ")
        noteLines.append(shownTypes.isEmpty ? "\(label): \(flat)" : "\(label) (\(shownTypes.joined(separator: ", "))): \(flat)")
        report.kept[label, default: 0] += 1
    }

    /// The note field: the file's own note, then the lines for what had no field.
    mutating func finishNote(_ note: String) {
        let given = values[noteField ?? ""] ?? ""
        let fileNote = note.trimmingWhitespace
        let own = [given, given.contains(fileNote) ? "" : fileNote].filter { !$0.isEmpty }.joined(separator: "\n\n")
        if noteField == nil, !note.trimmingWhitespace.isEmpty { report.dropped["Note", default: 0] += 1 }
        guard let noteField else { return }
        let text = ([own] + (noteLines.isEmpty ? [] : [noteLines.joined(separator: "\n")])).filter { !$0.isEmpty }.joined(separator: "\n\n")
        guard !text.isEmpty else { return }
        if values[noteField] == nil { order.append(noteField) }
        values[noteField] = text
    }

    var pairs: [(field: String, text: String)] { order.compactMap { field in values[field].map { (field: field, text: $0) } } }
}
