/// A CSV file's columns, each given a role (`ColumnRole`), and its rows read as address-book
/// entries through them.
struct CSVAddressBook {
    let header: [String]
    let source: AddressBookSource
    let roles: [Int: ColumnRole]

    /// The roles of `header`'s columns for records of `kind`: `--map Field=Column` first, then
    /// the source's table, then the config's fields by API name or label, then common names.
    init(header: [String], kind: RecordKind, form: RecordForm, columnMap: [String: String], ignoring: Set<Int> = []) throws {
        self.header = header
        source = AddressBookSource.recognised(header)
        var roles: [Int: ColumnRole] = [:]
        for (field, column) in columnMap {
            guard let index = header.firstIndex(where: { $0.caseInsensitiveCompare(column) == .orderedSame }) else {
                throw ImportProblem(line: 1, message: "--map \(field)=\(column): the header has no column \(column); it has \(header.joined(separator: ", "))")
            }
            if field.caseInsensitiveCompare("Id") == .orderedSame {
                roles[index] = .id
                continue
            }
            guard let formField = RecordDraft.field(named: field, in: form) else {
                throw ImportProblem(
                    line: 0, message: "--map \(field)=\(column): \(kind.plural) have no field \(field) that the sync sends; they have \(form.fields.map(\.name).joined(separator: ", "))")
            }
            roles[index] = AddressBookSource.role(ofField: formField.name, kind: kind)
        }
        for index in ignoring { roles[index] = .setting }
        // A rejects file's reasons, when it comes back fixed.
        for (index, name) in header.enumerated() where name.caseInsensitiveCompare(ImportRejects.errorColumn) == .orderedSame { roles[index] = .setting }
        var hasId = roles.values.contains(.id)
        for (index, name) in header.enumerated() where roles[index] == nil {
            let lowered = name.trimmingWhitespace.lowercased()
            guard !lowered.isEmpty else { continue }
            if let role = source.role(of: name) {
                roles[index] = role
            } else if !hasId, AddressBookSource.idColumns.contains(lowered) {
                roles[index] = .id
                hasId = true
            } else if let field = RecordDraft.field(named: name, in: form) {
                roles[index] = AddressBookSource.role(ofField: field.name, kind: kind)
            } else if let role = AddressBookSource.common[lowered] ?? AddressBookSource.numbered(lowered) ?? AddressBookSource.germanAddress(lowered) {
                roles[index] = role
            } else {
                roles[index] = .other(name.trimmingWhitespace)
            }
        }
        self.roles = roles
    }

    /// Whether any column names something a record can hold (not only settings and unknowns).
    var readsAnything: Bool {
        roles.values.contains { role in
            switch role {
            case .other, .setting, .numberedType: false
            default: true
            }
        }
    }

    func entry(_ row: CSVText.Row) -> AddressBookEntry {
        var entry = AddressBookEntry(line: row.line)
        var addresses: [String: [ColumnRole.AddressPart: String]] = [:]
        var addressTypes: [String: Set<String>] = [:]
        var addressOrder: [String] = []
        var numberedTypes: [String: String] = [:]
        var numberedValues: [(group: String, number: Int, text: String)] = []
        var birth: [String: String] = [:]
        func addAddressPart(_ key: String, _ types: Set<String>, _ part: ColumnRole.AddressPart, _ text: String) {
            if addresses[key] == nil {
                addressOrder.append(key)
                addressTypes[key] = types
            }
            addresses[key, default: [:]][part] = text
        }
        for (index, role) in roles.sorted(by: { $0.key < $1.key }) {
            let text = row.cells.indices.contains(index) ? row.cells[index].trimmingWhitespace : ""
            guard !text.isEmpty else { continue }
            // Two columns for one thing (Title and Job Title in a hand-made file): the first
            // fills it, the other is kept under its own name rather than overwriting it.
            func single(_ part: WritableKeyPath<AddressBookEntry, String>) {
                if entry[keyPath: part].isEmpty { entry[keyPath: part] = text } else { entry.addOther(header[index], text) }
            }
            switch role {
            case .id: if entry.id == nil { entry.id = text } else { entry.addOther(header[index], text) }
            case .accountId: if entry.accountId == nil { entry.accountId = text } else { entry.addOther(header[index], text) }
            case .fullName: single(\.fullName)
            case .prefix: single(\.prefix)
            case .givenName: single(\.givenName)
            case .middleName: single(\.middleName)
            case .familyName: single(\.familyName)
            case .suffix: single(\.suffix)
            case .organization: single(\.organization)
            case .department: single(\.department)
            case .title: single(\.title)
            case .note: entry.note = entry.note.isEmpty ? text : entry.note + "\n\n" + text
            case .website: entry.websites += AddressBookEntry.values(text)
            case .birthday: single(\.birthday)
            case .birthYear: birth["year"] = text
            case .birthMonth: birth["month"] = text
            case .birthDay: birth["day"] = text
            case let .email(types): entry.addEmails(text, types: types)
            case let .phone(types): entry.addPhones(text, types: types)
            case let .address(types, part): addAddressPart(types.sorted().joined(separator: ","), types, part, text)
            case let .numberedType(group, number): numberedTypes["\(group) \(number)"] = text
            case let .numberedValue(group, number): numberedValues.append((group, number, text))
            case let .numberedAddress(number, part): addAddressPart("address \(number)", [], part, text)
            case let .field(field): entry.fields.append((field: field, text: text))
            case let .other(label): entry.addOther(label, text)
            case .setting: break
            }
        }
        for (group, number, text) in numberedValues {
            let values = AddressBookEntry.values(text)
            let types = (numberedTypes["\(group) \(number)"]).map(AddressBookEntry.values) ?? []
            for (position, value) in values.enumerated() {
                let typeText = types.indices.contains(position) ? types[position] : types.first ?? ""
                let typeSet = Self.types(typeText)
                switch group {
                case "e-mail", "email": entry.emails.append(.init(types: typeSet, value: value))
                case "phone": entry.phones.append(.init(types: typeSet, value: value))
                case "website": entry.websites.append(value)
                default:
                    let label = group.prefix(1).uppercased() + group.dropFirst()
                    let shown = typeSet.subtracting(["pref"]).sorted().joined(separator: " ")
                    entry.addOther(shown.isEmpty ? label : "\(label) (\(shown))", value)
                }
            }
        }
        for key in addressOrder {
            guard let parts = addresses[key] else { continue }
            var address = AddressBookEntry.PostalAddress()
            address.types = addressTypes[key] ?? []
            if key.hasPrefix("address "), let types = numberedTypes[key] { address.types = Self.types(types) }
            let street = [parts[.street], parts[.street2], parts[.street3], parts[.extended], parts[.poBox]].compactMap { $0 }
            address.street = street.joined(separator: "\n")
            address.city = parts[.city] ?? ""
            address.region = parts[.region] ?? ""
            address.postalCode = parts[.postalCode] ?? ""
            address.country = parts[.country] ?? ""
            if address.isEmpty, let formatted = parts[.formatted] { address.street = formatted }
            if !address.isEmpty { entry.addresses.append(address) }
        }
        if !birth.isEmpty {
            if let year = birth["year"], let month = birth["month"], let day = birth["day"] {
                entry.birthday = "\(year)-\(month.count == 1 ? "0" + month : month)-\(day.count == 1 ? "0" + day : day)"
            } else {
                entry.addOther("Birthday", ["year", "month", "day"].compactMap { birth[$0] }.joined(separator: "-"))
            }
        }
        return entry
    }

    /// Google's type text as vCard-like types: `* Home` → pref, home; `Work Fax` → work, fax;
    /// `Mobile` → cell.
    static func types(_ text: String) -> Set<String> {
        var types: Set<String> = []
        var rest = text.trimmingWhitespace
        if rest.hasPrefix("*") {
            types.insert("pref")
            rest = rest.dropFirst().trimmingWhitespace
        }
        for word in rest.lowercased().split(separator: " ") {
            types.insert(word == "mobile" ? "cell" : String(word))
        }
        return types
    }
}
