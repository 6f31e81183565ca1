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

    var addressFields: [String] { EntryPlacement(kind: kind, fields: fields).addressFields }

    /// Phones by vCard TEL type, as reading places them; the first type of a field is written.
    var phoneFields: [(type: String, field: String)] { EntryPlacement(kind: kind, fields: fields).phoneFields }

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

    /// A 4.0 card as vCard 3.0 says the same (Android's and many address books' version):
    /// Apple's X-ABShowAs for KIND:org, an N even for an organisation, UID without VALUE,
    /// BDAY as a date with dashes.
    public static func version3(of card: VCard) -> VCard {
        var properties: [VCardProperty] = []
        for var property in card.properties {
            switch property.name {
            case "KIND" where property.text.lowercased() == "org":
                properties.append(VCardProperty(name: "X-ABSHOWAS", text: "COMPANY"))
                continue
            case "UID": property.parameters["VALUE"] = nil
            case "BDAY":
                let digits = property.text.filter(\.isNumber)
                if digits.count == 8 {
                    property = VCardProperty(name: "BDAY", text: "\(digits.prefix(4))-\(digits.dropFirst(4).prefix(2))-\(digits.suffix(2))")
                }
            default: break
            }
            properties.append(property)
        }
        if !properties.contains(where: { $0.name == "N" }) {
            properties.insert(VCardProperty(name: "N", components: ["", "", "", "", ""]), at: min(1, properties.count))
        }
        return VCard(version: "3.0", properties: properties)
    }

    // MARK: Reading

    /// Whether a card describes an organisation (an account) rather than a person.
    public static func isOrganization(_ card: VCard) -> Bool {
        card.first("KIND")?.text.lowercased() == "org" || card.first("X-ABSHOWAS")?.text.uppercased() == "COMPANY"
    }

    /// What a card says, as an address-book entry: every property with a value is either read
    /// into a part of the entry, kept under a label (`other`), or named as unusable (PHOTO).
    public static func entry(of card: VCard) -> AddressBookEntry {
        var entry = AddressBookEntry(line: card.line)
        entry.isOrganization = isOrganization(card)
        let labels = card.groupLabels
        func types(_ property: VCardProperty) -> Set<String> {
            var types = property.types
            if let group = property.group, let label = labels[group.lowercased()] { types.insert(label) }
            return types
        }
        var sawName = false
        for property in card.properties {
            switch property.name {
            case "N":
                guard !sawName else {
                    entry.addOther("Name", property.components.filter { !$0.isEmpty }.joined(separator: " "))
                    continue
                }
                sawName = true
                let name = property.components
                entry.familyName = component(name, 0)
                entry.givenName = component(name, 1)
                entry.middleName = component(name, 2)
                entry.prefix = component(name, 3)
                entry.suffix = component(name, 4)
            case "FN":
                if entry.fullName.isEmpty { entry.fullName = property.text.trimmingWhitespace } else { entry.addOther("Full name", property.text) }
            case "ORG":
                let org = property.components
                if entry.organization.isEmpty, entry.department.isEmpty {
                    entry.organization = component(org, 0)
                    entry.department = org.dropFirst().map(\.trimmingWhitespace).filter { !$0.isEmpty }.joined(separator: ", ")
                } else {
                    entry.addOther("Organisation", org.map(\.trimmingWhitespace).filter { !$0.isEmpty }.joined(separator: ", "))
                }
            case "TITLE":
                if entry.title.isEmpty { entry.title = property.text.trimmingWhitespace } else { entry.addOther("Title", property.text) }
            case "EMAIL":
                let value = property.text.trimmingWhitespace
                let address = value.lowercased().hasPrefix("mailto:") ? String(value.dropFirst(7)) : value
                if !address.isEmpty { entry.emails.append(.init(types: types(property), value: address)) }
            case "TEL":
                let number = phoneNumber(property)
                if !number.isEmpty { entry.phones.append(.init(types: types(property), value: number)) }
            case "ADR":
                let adr = property.components
                var address = AddressBookEntry.PostalAddress()
                address.types = types(property)
                address.street = [component(adr, 2), component(adr, 1), component(adr, 0)].filter { !$0.isEmpty }.joined(separator: "\n")
                address.city = component(adr, 3)
                address.region = component(adr, 4)
                address.postalCode = component(adr, 5)
                address.country = component(adr, 6)
                if !address.isEmpty { entry.addresses.append(address) }
            case "URL":
                let url = property.text.trimmingWhitespace
                if !url.isEmpty { entry.websites.append(url) }
            case "BDAY":
                if entry.birthday.isEmpty { entry.birthday = property.text.trimmingWhitespace } else { entry.addOther("Birthday", property.text) }
            case "NOTE":
                let note = property.text.trimmingWhitespace
                if !note.isEmpty { entry.note = entry.note.isEmpty ? note : entry.note + "\n\n" + note }
            case "UID":
                let uid = property.text.trimmingWhitespace
                entry.id = uid.hasPrefix("urn:salesforce:") ? String(uid.dropFirst("urn:salesforce:".count)) : uid
            case accountIdProperty:
                let id = property.text.trimmingWhitespace
                if !id.isEmpty { entry.accountId = id }
            case fieldProperty:
                if let field = property.parameters[fieldParameter]?.first {
                    entry.fields.append((field: field, text: property.text))
                } else {
                    entry.addOther(fieldProperty, property.text)
                }
            case "SOUND" where property.parameters["X-IRMC-N"] != nil:
                // Japanese phones write the reading of the name here, as text, not a sound.
                entry.addOther("Phonetic name", property.components.filter { !$0.isEmpty }.joined(separator: " "))
            case "PHOTO", "LOGO", "SOUND", "KEY", "X-MS-CARDPICTURE":
                if !property.value.isEmpty { entry.unusable.append(property.name == "X-MS-CARDPICTURE" ? "Photo" : property.name.capitalized) }
            default:
                // LABEL is the printed form of an ADR; only a card without an ADR needs it.
                if Self.bookkeeping.contains(property.name) || (property.name == "LABEL" && card.first("ADR") != nil) { continue }
                let label = Self.propertyLabels[property.name] ?? property.name
                let text =
                    property.name == "CATEGORIES" || property.name == "NICKNAME"
                    ? VCardFormat.split(property.value, on: ",").map(VCardFormat.unescape).map(\.trimmingWhitespace).joined(separator: ", ")
                    : property.text
                entry.addOther(label, text)
            }
        }
        return entry
    }

    /// Properties that say something about the file, not about the person: never data.
    static let bookkeeping: Set<String> = [
        "VERSION", "PRODID", "REV", "KIND", "X-ABSHOWAS", "X-ABLABEL", "X-ABUID", "CLIENTPIDMAP", "SORT-STRING", "X-ABADR",
        "SOURCE", "NAME", "PROFILE", "MAILER", "CLASS", "X-EVOLUTION-FILE-AS", "X-EVOLUTION-LIST", "X-EVOLUTION-LIST-SHOW-ADDRESSES",
        // Outlook's card layout and default-address marker, sync tags: about the program, not the person.
        "X-MS-OL-DESIGN", "X-MS-OL-DEFAULT-POSTAL-ADDRESS", "X-FORCETERM-IMPORT-ERROR", "X-ETAG", "X-CLASS", "X-WAB-GENDER", "X-MOZILLA-HTML", "X-MOZILLA-PROPERTY",
    ]

    /// How the summary and the note name other properties.
    static let propertyLabels: [String: String] = [
        "NICKNAME": "Nickname", "CATEGORIES": "Categories", "ROLE": "Role", "GEO": "Geo", "TZ": "Time zone", "LANG": "Language",
        "GENDER": "Gender", "ANNIVERSARY": "Anniversary", "X-ANNIVERSARY": "Anniversary", "IMPP": "Chat", "X-JABBER": "Jabber",
        "X-AIM": "AIM", "X-ICQ": "ICQ", "X-MSN": "MSN", "X-SKYPE": "Skype", "X-YAHOO": "Yahoo", "X-GOOGLE-TALK": "Google Talk",
        "X-GADUGADU": "Gadu-Gadu", "X-GROUPWISE": "GroupWise", "RELATED": "Related", "X-ABRELATEDNAMES": "Related",
        "X-SPOUSE": "Spouse", "X-MANAGER": "Manager", "X-ASSISTANT": "Assistant", "LABEL": "Address label", "MEMBER": "Member",
        "X-PHONETIC-FIRST-NAME": "Phonetic first name", "X-PHONETIC-LAST-NAME": "Phonetic last name", "FBURL": "Free/busy URL",
        "CALURI": "Calendar URL", "CALADRURI": "Calendar address", "X-SOCIALPROFILE": "Social profile", "EXPERTISE": "Expertise",
        "HOBBY": "Hobby", "INTEREST": "Interest", "ORG-DIRECTORY": "Directory", "X-MAIDENNAME": "Maiden name",
    ]

    static func component(_ components: [String], _ index: Int) -> String {
        components.indices.contains(index) ? components[index].trimmingWhitespace : ""
    }

    /// A TEL's number without a `tel:` URI's scheme.
    static func phoneNumber(_ property: VCardProperty) -> String {
        let text = property.text.trimmingWhitespace
        return text.lowercased().hasPrefix("tel:") ? String(text.dropFirst(4)) : text
    }
}
