import ForceJSON

/// How a contact or an account and a vCard say the same things: names, organisation, title,
/// emails, phones by type, the address, the Salesforce id as `UID`. Only the fields the config's
/// sync sends are written or read; a synced field vCard has no property for travels as
/// `X-SALESFORCE-FIELD;X-FIELD=<API name>`, so an export imports back whole.
public struct VCardMapping: Sendable {
    public let kind: RecordKind
    /// The fields the sync sends for `kind`, in the config's order.
    public let fields: [String]

    public init(kind: RecordKind, fields: [String]) {
        self.kind = kind
        self.fields = fields
    }

    static let accountIdProperty = "X-SALESFORCE-ACCOUNTID"
    static let fieldProperty = "X-SALESFORCE-FIELD"
    static let fieldParameter = "X-FIELD"

    /// The address fields of a contact (Mailing…) or an account (Billing…), in ADR's order after
    /// its post office box and extended address: street, city, state, postal code, country.
    var addressFields: [String] {
        let prefix = kind.role == .account ? "Billing" : "Mailing"
        return ["Street", "City", "State", "PostalCode", "Country"].map { prefix + $0 }
    }

    /// Phones by vCard TEL type: the first type a TEL has that names a field wins.
    var phoneFields: [(type: String, field: String)] {
        kind.role == .account
            ? [("fax", "Fax"), ("work", "Phone"), ("voice", "Phone")]
            : [("cell", "MobilePhone"), ("iphone", "MobilePhone"), ("fax", "Fax"), ("home", "HomePhone"), ("work", "Phone"), ("main", "Phone"),
               ("voice", "Phone"), ("other", "OtherPhone")]
    }

    /// The fields standard properties carry, so the rest go into X-SALESFORCE-FIELD.
    var mappedFields: Set<String> {
        var mapped: Set<String> = ["Id", "Title", "Email", "Description", "Birthdate", "Website", "Department", "AccountId"]
        mapped.formUnion(kind.role == .account ? ["Name"] : ["FirstName", "LastName", "Salutation"])
        mapped.formUnion(addressFields)
        mapped.formUnion(phoneFields.map(\.field))
        return mapped
    }

    // MARK: Writing

    /// The card for `record`; `accountName`: the name of the account a contact belongs to (ORG).
    public func card(for record: LocalRecord, accountName: String?) -> VCard {
        var properties: [VCardProperty] = []
        func has(_ field: String) -> Bool { fields.contains(field) && !record.string(field).isEmpty }
        func value(_ field: String) -> String { fields.contains(field) ? record.string(field) : "" }
        if kind.role == .account {
            properties.append(VCardProperty(name: "KIND", text: "org"))
            properties.append(VCardProperty(name: "FN", text: record.string("Name")))
            properties.append(VCardProperty(name: "ORG", components: [record.string("Name")]))
        } else {
            let display = kind.displayName(of: record)
            properties.append(VCardProperty(name: "FN", text: display.isEmpty ? record.string("Email") : display))
            properties.append(VCardProperty(name: "N", components: [value("LastName"), value("FirstName"), "", value("Salutation"), ""]))
            if let accountName, !accountName.isEmpty {
                properties.append(VCardProperty(name: "ORG", components: has("Department") ? [accountName, value("Department")] : [accountName]))
            } else if has("Department") {
                properties.append(VCardProperty(name: "ORG", components: ["", value("Department")]))
            }
        }
        if has("Title") { properties.append(VCardProperty(name: "TITLE", text: value("Title"))) }
        if has("Email") { properties.append(VCardProperty(name: "EMAIL", parameters: ["TYPE": ["work"]], text: value("Email"))) }
        var phonesWritten: Set<String> = []
        for (type, field) in phoneFields where has(field) && phonesWritten.insert(field).inserted {
            let types = type == "work" || type == "voice" ? ["work", "voice"] : type == "fax" ? ["work", "fax"] : [type]
            properties.append(VCardProperty(name: "TEL", parameters: ["TYPE": types], text: value(field)))
        }
        if addressFields.contains(where: has) {
            properties.append(VCardProperty(name: "ADR", parameters: ["TYPE": ["work"]], components: ["", ""] + addressFields.map(value)))
        }
        if has("Website") { properties.append(VCardProperty(name: "URL", text: value("Website"))) }
        if has("Birthdate") { properties.append(VCardProperty(name: "BDAY", text: value("Birthdate").replacingOccurrences(of: "-", with: ""))) }
        if has("Description") { properties.append(VCardProperty(name: "NOTE", text: value("Description"))) }
        if has("AccountId") { properties.append(VCardProperty(name: Self.accountIdProperty, text: value("AccountId"))) }
        for field in fields where !mappedFields.contains(field) && has(field) {
            properties.append(VCardProperty(name: Self.fieldProperty, parameters: [Self.fieldParameter: [field]], text: value(field)))
        }
        if let id = record.serverId, !id.isEmpty { properties.append(VCardProperty(name: "UID", parameters: ["VALUE": ["text"]], text: id)) }
        return VCard(version: "4.0", properties: properties)
    }

    // MARK: Reading

    /// Whether a card describes an organisation (an account) rather than a person.
    public static func isOrganization(_ card: VCard) -> Bool {
        card.first("KIND")?.text.lowercased() == "org" || card.first("X-ABSHOWAS")?.text.uppercased() == "COMPANY"
    }

    /// What a card says, as `Field=text` pairs for `RecordDraft` (fields this config does not sync
    /// left out and named in `unsynced`), plus its id (UID) and, for a contact, its account's name
    /// (ORG) when no account id came with it.
    public func texts(of card: VCard) -> (pairs: [(field: String, text: String)], id: String?, accountName: String?, unsynced: [String]) {
        var values: [String: String] = [:]
        var order: [String] = []
        var unsynced: [String] = []
        func set(_ field: String, _ text: String, from property: String) {
            let trimmed = text.trimmingWhitespace
            guard !trimmed.isEmpty, values[field] == nil else { return }
            guard fields.contains(field) else {
                if !unsynced.contains(property) { unsynced.append(property) }
                return
            }
            values[field] = trimmed
            order.append(field)
        }
        var accountName: String?
        if kind.role == .account {
            let name = card.first("ORG")?.components.first ?? ""
            set("Name", name.isEmpty ? card.first("FN")?.text ?? "" : name, from: "ORG")
        } else {
            if let name = card.first("N")?.components, name.contains(where: { !$0.trimmingWhitespace.isEmpty }) {
                set("LastName", Self.component(name, 0), from: "N")
                let given = [Self.component(name, 1), Self.component(name, 2)].filter { !$0.isEmpty }.joined(separator: " ")
                set("FirstName", given, from: "N")
                set("Salutation", Self.component(name, 3), from: "N")
            } else if let full = card.first("FN")?.text.trimmingWhitespace, !full.isEmpty {
                // No N (vCard 4.0 allows it): the last word is the family name.
                let words = full.split(separator: " ").map(String.init)
                set("LastName", words.last ?? full, from: "FN")
                set("FirstName", words.dropLast().joined(separator: " "), from: "FN")
            }
            if let org = card.first("ORG")?.components {
                let company = Self.component(org, 0)
                if !company.isEmpty { accountName = company }
                set("Department", org.dropFirst().map { $0.trimmingWhitespace }.filter { !$0.isEmpty }.joined(separator: ", "), from: "ORG")
            }
            if let accountId = card.first(Self.accountIdProperty)?.text, !accountId.isEmpty {
                set("AccountId", accountId, from: Self.accountIdProperty)
                accountName = nil
            }
        }
        if let title = card.first("TITLE")?.text { set("Title", title, from: "TITLE") }
        if let email = Self.preferred(card.all("EMAIL")) { set("Email", email.text, from: "EMAIL") }
        for tel in Self.byPreference(card.all("TEL")) {
            let types = tel.types
            let number = Self.phoneNumber(tel)
            // A type no field stands for (pager, video, a label of the user's) is the main phone.
            let field = phoneFields.first(where: { types.contains($0.type) })?.field ?? "Phone"
            if values[field] == nil { set(field, number, from: "TEL") }
        }
        if let adr = Self.preferred(card.all("ADR")).map(\.components) {
            let street = [Self.component(adr, 2), Self.component(adr, 1), Self.component(adr, 0)].filter { !$0.isEmpty }.joined(separator: "\n")
            let parts = [street] + (3...6).map { Self.component(adr, $0) }
            for (field, text) in zip(addressFields, parts) { set(field, text, from: "ADR") }
        }
        if let url = card.first("URL")?.text { set("Website", url, from: "URL") }
        if let birthday = card.first("BDAY")?.text, let date = Self.date(birthday) { set("Birthdate", date, from: "BDAY") }
        if let note = card.first("NOTE")?.text { set("Description", note, from: "NOTE") }
        for property in card.all(Self.fieldProperty) {
            guard let field = property.parameters[Self.fieldParameter]?.first else { continue }
            set(field, property.text, from: "\(Self.fieldProperty) \(field)")
        }
        let uid = card.first("UID")?.text.trimmingWhitespace ?? ""
        let id = uid.hasPrefix("urn:salesforce:") ? String(uid.dropFirst("urn:salesforce:".count)) : uid
        let pairs = order.compactMap { field in values[field].map { (field: field, text: $0) } }
        return (pairs, SalesforceIdShape.looksLikeId(id) || id.hasPrefix("local_") ? id : nil, accountName, unsynced)
    }

    static func component(_ components: [String], _ index: Int) -> String {
        components.indices.contains(index) ? components[index].trimmingWhitespace : ""
    }

    /// The preferred of several properties (TYPE=pref, PREF=1), else the first.
    static func preferred(_ properties: [VCardProperty]) -> VCardProperty? {
        byPreference(properties).first
    }

    static func byPreference(_ properties: [VCardProperty]) -> [VCardProperty] {
        properties.filter { $0.types.contains("pref") } + properties.filter { !$0.types.contains("pref") }
    }

    /// A TEL's number without a `tel:` URI's scheme.
    static func phoneNumber(_ property: VCardProperty) -> String {
        let text = property.text.trimmingWhitespace
        return text.lowercased().hasPrefix("tel:") ? String(text.dropFirst(4)) : text
    }

    /// A BDAY as Salesforce's `YYYY-MM-DD`: from `19850412`, `1985-04-12` or a date-time; nil for
    /// one without a year (`--0412`), which Salesforce cannot store.
    static func date(_ text: String) -> String? {
        let digits = text.prefix { $0 != "T" }.filter(\.isNumber)
        guard digits.count == 8, !text.hasPrefix("--") else { return nil }
        let year = digits.prefix(4), month = digits.dropFirst(4).prefix(2), day = digits.suffix(2)
        return "\(year)-\(month)-\(day)"
    }
}
