/// What a CSV column holds, as the address book that wrote the file means it. One table per
/// source (Outlook, Google's two layouts, Thunderbird), recognised by columns only that source
/// writes; then the config's fields by API name or label (Salesforce's Data Loader and Data
/// Import Wizard), then names many programs use. A column none of these knows is kept under
/// its own name (in the note field, or named as dropped).
public enum ColumnRole: Sendable, Equatable {
    public enum AddressPart: Sendable, Equatable {
        case street, street2, street3, poBox, extended, city, region, postalCode, country, formatted
    }

    case id, accountId
    case fullName, prefix, givenName, middleName, familyName, suffix
    case organization, department, title, note, website
    case birthday, birthYear, birthMonth, birthDay
    case email(Set<String>)
    case phone(Set<String>)
    case address(Set<String>, AddressPart)
    /// Google's numbered columns: `Phone 2 - Type` says the types of `Phone 2 - Value`.
    case numberedType(group: String, number: Int)
    case numberedValue(group: String, number: Int)
    case numberedAddress(number: Int, AddressPart)
    /// A field of the config, by API name.
    case field(String)
    /// Data with no place of its own, under this label.
    case other(String)
    /// A program's setting, not data about the person (Outlook's Priority, Sensitivity).
    case setting
}

/// The address books whose CSV layout forceterm knows.
public enum AddressBookSource: String, Sendable {
    case outlook = "Outlook", googleOld = "Google Contacts (older layout)", google = "Google Contacts", thunderbird = "Thunderbird"
    case salesforce = "Salesforce (Data Loader / Data Import Wizard)", other = "a spreadsheet"

    /// The source a header shows, by columns only it writes.
    public static func recognised(_ header: [String]) -> AddressBookSource {
        let names = Set(header.map { $0.trimmingWhitespace.lowercased() })
        if names.contains("e-mail address") && (names.contains("job title") || names.contains("business phone")) { return .outlook }
        if names.contains("primary email") || names.contains("primäre e-mail-adresse") || (names.contains("display name") && names.contains("mobile number")) {
            return .thunderbird
        }
        if names.contains("e-mail 1 - label") || names.contains("phone 1 - label") || names.contains("organization name") && names.contains("labels") {
            return .google
        }
        if names.contains("given name") && (names.contains("e-mail 1 - value") || names.contains("group membership")) { return .googleOld }
        if names.contains("e-mail 1 - value") || names.contains("phone 1 - value") { return .google }
        if names.contains("lastname") || names.contains("mailing street") || names.contains("account name") { return .salesforce }
        return .other
    }

    /// The role of a column of this source's files, nil when the table does not say.
    func role(of column: String) -> ColumnRole? {
        let name = column.trimmingWhitespace.lowercased()
        switch self {
        case .outlook: return Self.outlookColumns[name] ?? Self.outlookAddress(name)
        case .thunderbird: return Self.thunderbirdColumns[name]
        case .google, .googleOld: return Self.googleColumns[name] ?? Self.numbered(name)
        case .salesforce, .other: return Self.numbered(name)
        }
    }

    static let outlookColumns: [String: ColumnRole] = [
        "title": .prefix, "first name": .givenName, "middle name": .middleName, "last name": .familyName, "suffix": .suffix,
        "company": .organization, "department": .department, "job title": .title, "notes": .note, "web page": .website,
        "birthday": .birthday, "e-mail address": .email([]), "e-mail 2 address": .email(["other"]), "e-mail 3 address": .email(["other"]),
        "business phone": .phone(["work"]), "business phone 2": .phone(["work"]), "company main phone": .phone(["main"]),
        "primary phone": .phone(["main"]), "mobile phone": .phone(["cell"]), "home phone": .phone(["home"]),
        "home phone 2": .phone(["home"]), "business fax": .phone(["fax", "work"]), "home fax": .phone(["fax", "home"]),
        "other fax": .phone(["fax", "other"]), "other phone": .phone(["other"]), "pager": .phone(["pager"]),
        "car phone": .phone(["car"]), "assistant's phone": .phone(["assistant"]), "callback": .phone(["callback"]),
        "isdn": .phone(["isdn"]), "radio phone": .phone(["radio"]), "tty/tdd phone": .phone(["textphone"]), "telex": .phone(["telex"]),
        "e-mail type": .setting, "e-mail display name": .setting, "e-mail 2 type": .setting, "e-mail 2 display name": .setting,
        "e-mail 3 type": .setting, "e-mail 3 display name": .setting, "priority": .setting, "private": .setting,
        "sensitivity": .setting, "internet free busy": .setting, "gender": .setting, "initials": .setting,
    ]

    /// Outlook's `Business Street 2`, `Home Country/Region`, `Other Address PO Box`.
    static func outlookAddress(_ name: String) -> ColumnRole? {
        for (prefix, type) in [("business ", "work"), ("home ", "home"), ("other ", "other")] where name.hasPrefix(prefix) {
            let part: ColumnRole.AddressPart? =
                switch name.dropFirst(prefix.count) {
                case "street": .street
                case "street 2": .street2
                case "street 3": .street3
                case "city": .city
                case "state": .region
                case "postal code": .postalCode
                case "country/region", "country": .country
                case "address po box": .poBox
                default: nil
                }
            if let part { return .address([type], part) }
        }
        return nil
    }

    static let thunderbirdColumns: [String: ColumnRole] = [
        "first name": .givenName, "last name": .familyName, "display name": .fullName, "primary email": .email([]),
        "secondary email": .email(["other"]), "work phone": .phone(["work"]), "home phone": .phone(["home"]),
        "fax number": .phone(["fax"]), "pager number": .phone(["pager"]), "mobile number": .phone(["cell"]),
        "home address": .address(["home"], .street), "home address 2": .address(["home"], .street2), "home city": .address(["home"], .city),
        "home state": .address(["home"], .region), "home zipcode": .address(["home"], .postalCode), "home country": .address(["home"], .country),
        "work address": .address(["work"], .street), "work address 2": .address(["work"], .street2), "work city": .address(["work"], .city),
        "work state": .address(["work"], .region), "work zipcode": .address(["work"], .postalCode), "work country": .address(["work"], .country),
        "job title": .title, "department": .department, "organization": .organization, "web page 1": .website, "web page 2": .website,
        "birth year": .birthYear, "birth month": .birthMonth, "birth day": .birthDay, "notes": .note,
        // Thunderbird in German.
        "vorname": .givenName, "nachname": .familyName, "anzeigename": .fullName, "spitzname": .other("Nickname"),
        "primäre e-mail-adresse": .email([]), "sekundäre e-mail-adresse": .email(["other"]), "messenger-name": .other("Chat"),
        "tel. dienstlich": .phone(["work"]), "tel. privat": .phone(["home"]), "fax-nummer": .phone(["fax"]), "pager-nummer": .phone(["pager"]),
        "mobil-tel.-nr.": .phone(["cell"]), "privat: adresse": .address(["home"], .street), "privat: adresse 2": .address(["home"], .street2),
        "privat: ort": .address(["home"], .city), "privat: bundesland": .address(["home"], .region), "privat: plz": .address(["home"], .postalCode),
        "privat: land": .address(["home"], .country), "dienstlich: adresse": .address(["work"], .street),
        "dienstlich: adresse 2": .address(["work"], .street2), "dienstlich: ort": .address(["work"], .city),
        "dienstlich: bundesland": .address(["work"], .region), "dienstlich: plz": .address(["work"], .postalCode),
        "dienstlich: land": .address(["work"], .country), "arbeitstitel": .title, "abteilung": .department, "organisation": .organization,
        "webseite 1": .website, "webseite 2": .website, "geburtsjahr": .birthYear, "geburtsmonat": .birthMonth, "geburtstag": .birthDay,
        "notizen": .note,
    ]

    static let googleColumns: [String: ColumnRole] = [
        "name": .fullName, "given name": .givenName, "additional name": .middleName, "family name": .familyName,
        "first name": .givenName, "middle name": .middleName, "last name": .familyName, "name prefix": .prefix, "name suffix": .suffix,
        "birthday": .birthday, "notes": .note, "organization name": .organization, "organization title": .title,
        "organization department": .department, "group membership": .other("Groups"), "labels": .other("Labels"),
        "photo": .setting, "file as": .setting,
    ]

    /// Google's numbered columns: `E-mail 2 - Value`, `Phone 1 - Type`, `Address 1 - City`,
    /// `Organization 1 - Name`, `Website 1 - Value`.
    static func numbered(_ name: String) -> ColumnRole? {
        let parts = name.components(separatedBy: " - ")
        guard parts.count == 2 else { return nil }
        let words = parts[0].split(separator: " ")
        guard words.count >= 2, let number = Int(words[words.count - 1]) else { return nil }
        let group = words.dropLast().joined(separator: " ")
        let part = parts[1]
        if group == "organization" {
            guard number == 1 else { return .other("Organisation \(number) \(part)") }
            switch part {
            case "name": return .organization
            case "title": return .title
            case "department": return .department
            case "type", "yomi name", "symbol": return .setting
            default: return .other("Organisation \(part)")
            }
        }
        if part == "type" || part == "label" { return .numberedType(group: group, number: number) }
        if group == "address" {
            let addressPart: ColumnRole.AddressPart? =
                switch part {
                case "street": .street
                case "city": .city
                case "po box": .poBox
                case "region": .region
                case "postal code": .postalCode
                case "country": .country
                case "extended address": .extended
                case "formatted": .formatted
                default: nil
                }
            return addressPart.map { .numberedAddress(number: number, $0) }
        }
        return part == "value" ? .numberedValue(group: group, number: number) : nil
    }

    /// Names many programs use for the same things, whatever wrote the file.
    static let common: [String: ColumnRole] = [
        "given name": .givenName, "first name": .givenName, "firstname": .givenName, "middle name": .middleName,
        "family name": .familyName, "last name": .familyName, "surname": .familyName, "lastname": .familyName,
        "name": .fullName, "full name": .fullName, "display name": .fullName, "prefix": .prefix, "suffix": .suffix,
        "e-mail address": .email([]), "email address": .email([]), "e-mail": .email([]), "email": .email([]),
        "email 1": .email([]), "email 2": .email(["other"]), "job title": .title, "company": .organization,
        "account": .organization, "account name": .organization, "organization": .organization, "organisation": .organization,
        "company name": .organization, "mobile phone": .phone(["cell"]), "mobile": .phone(["cell"]), "cell phone": .phone(["cell"]),
        "home phone": .phone(["home"]), "business phone": .phone(["work"]), "work phone": .phone(["work"]), "phone": .phone([]),
        "telephone": .phone([]), "fax": .phone(["fax"]), "department": .department, "notes": .note, "note": .note,
        "web page": .website, "website": .website, "web site": .website, "url": .website, "birthday": .birthday,
        // Salesforce's Data Import Wizard names fields by label.
        "mailing street": .address(["pref"], .street), "mailing city": .address(["pref"], .city),
        "mailing state/province": .address(["pref"], .region), "mailing state": .address(["pref"], .region),
        "mailing zip/postal code": .address(["pref"], .postalCode), "mailing postal code": .address(["pref"], .postalCode),
        "mailing country": .address(["pref"], .country), "salutation": .prefix, "contact description": .note, "description": .note,
        "business fax": .phone(["fax", "work"]), "other phone": .phone(["other"]),
        // Outlook and Windows Live Mail in German.
        "vorname": .givenName, "nachname": .familyName, "2. vorname": .middleName, "weitere vornamen": .middleName,
        "e-mail-adresse": .email([]), "e-mail 2: adresse": .email(["other"]), "firma": .organization, "position": .title,
        "abteilung": .department, "mobiltelefon": .phone(["cell"]), "telefon (privat)": .phone(["home"]),
        "telefon (geschäftlich)": .phone(["work"]), "telefon geschäftlich": .phone(["work"]), "telefon privat": .phone(["home"]),
        "fax (privat)": .phone(["fax", "home"]), "fax (geschäftlich)": .phone(["fax", "work"]), "fax geschäftlich": .phone(["fax", "work"]),
        "pager": .phone(["pager"]), "notizen": .note, "spitzname": .other("Nickname"), "anrede": .prefix,
        "webseite (privat)": .website, "webseite (geschäftlich)": .website, "webseite": .website, "geburtstag": .birthday,
    ]

    /// Windows Live Mail's German address columns: `Straße (privat)`, `Ort (geschäftlich)`.
    static func germanAddress(_ name: String) -> ColumnRole? {
        for (suffix, type) in [(" (privat)", "home"), (" (geschäftlich)", "work")] where name.hasSuffix(suffix) {
            let part: ColumnRole.AddressPart? =
                switch name.dropLast(suffix.count) {
                case "straße": .street
                case "ort": .city
                case "postleitzahl": .postalCode
                case "bundesland": .region
                case "land/region", "land": .country
                default: nil
                }
            if let part { return .address([type], part) }
        }
        return nil
    }
    static let idColumns: Set<String> = ["id", "salesforce id", "record id", "uid"]

    /// The role of a column named like a field of the config: the parts an entry has for it, so
    /// a Data Loader file goes through the same placement as an address book's.
    static func role(ofField field: String, kind: RecordKind) -> ColumnRole {
        let parts: [ColumnRole.AddressPart] = [.street, .city, .region, .postalCode, .country]
        if let index = PostalAddressFields(kind: kind).fields.firstIndex(of: field) { return .address(["pref"], parts[index]) }
        switch (kind.role, field) {
        case (.account, "Name"): return .organization
        case (.contact, "FirstName"): return .givenName
        case (.contact, "LastName"): return .familyName
        case (.contact, "MiddleName"): return .middleName
        case (.contact, "Salutation"): return .prefix
        case (.contact, "Suffix"): return .suffix
        case (.contact, "Email"): return .email(["pref"])
        case (.contact, "Title"): return .title
        case (.contact, "Department"): return .department
        case (.contact, "MobilePhone"): return .phone(["cell"])
        case (.contact, "HomePhone"): return .phone(["home"])
        case (.contact, "OtherPhone"): return .phone(["other"])
        case (.contact, "Birthdate"): return .birthday
        case (.contact, "AccountId"): return .accountId
        case (_, "Phone"): return .phone(["work"])
        case (_, "Fax"): return .phone(["fax"])
        case (_, "Website"): return .website
        case (_, "Description"): return .note
        default: return .field(field)
        }
    }
}
