/// What a form checks before saving a field: required, maximum length, and the value's form for
/// its type. From the org's describe when the store has one (`init(_:creating:)`), else
/// forceterm's built-in rules for its own fields (Salesforce's lengths); unknown fields get
/// Salesforce's common 255-character text limit.
public struct FieldRule: Sendable, Equatable {
    public enum Format: Sendable, Equatable {
        case text, textArea, email, phone, url
        /// Picked from the values the record's record type offers; `restricted`: only those.
        case picklist(restricted: Bool)
        case multiPicklist(restricted: Bool)
        case checkbox
        /// `YYYY-MM-DD`.
        case date
        /// `YYYY-MM-DD HH:MM` in UTC (or ISO 8601 as Salesforce writes it).
        case dateTime
        /// `precision` digits in all, `scale` of them after the point.
        case number(precision: Int, scale: Int)
        /// A record type, picked from the org's.
        case recordType
    }

    public let label: String
    public let required: Bool
    /// 0: no limit.
    public let maxLength: Int
    public let format: Format
    /// False for a field the org does not let this user set (now: on create, or on update).
    public let editable: Bool

    public init(label: String, required: Bool = false, maxLength: Int = 255, format: Format = .text, editable: Bool = true) {
        self.label = label
        self.required = required
        self.maxLength = maxLength
        self.format = format
        self.editable = editable
    }

    /// The rule the org's describe gives `field`, for a record being created or updated.
    public init(_ field: FieldDescription, creating: Bool) {
        let format: Format =
            switch field.kind {
            case .text, .reference: .text
            case .textArea: .textArea
            case .email: .email
            case .phone: .phone
            case .url: .url
            case .picklist: .picklist(restricted: field.restrictedPicklist)
            case .multiPicklist: .multiPicklist(restricted: field.restrictedPicklist)
            case .checkbox: .checkbox
            case .date: .date
            case .dateTime: .dateTime
            case .integer: .number(precision: max(field.precision, 1), scale: 0)
            case .number, .currency, .percent: .number(precision: max(field.precision, 1), scale: field.scale)
            }
        let hasLength = [.text, .textArea, .email, .phone, .url, .picklist, .multiPicklist].contains(field.kind)
        self.init(
            label: field.label,
            required: creating ? field.isRequired : !field.nillable && field.updateable && field.kind != .checkbox,
            maxLength: hasLength ? field.length : 0, format: format,
            editable: creating ? field.createable : field.updateable)
    }

    /// Picked from a list rather than typed.
    public var isChoice: Bool {
        switch format {
        case .picklist, .multiPicklist, .recordType: true
        default: false
        }
    }

    /// The rule for `field` of `kind`.
    public static func rule(for field: String, of kind: RecordKind) -> FieldRule {
        let table: [String: FieldRule] =
            switch kind.role {
            case .contact: contactRules
            case .account: accountRules
            case .other: [:]
            }
        return table[field] ?? FieldRule(label: field)
    }

    static let contactRules: [String: FieldRule] = [
        "FirstName": FieldRule(label: "First name", maxLength: 40),
        "LastName": FieldRule(label: "Last name", required: true, maxLength: 80),
        "Title": FieldRule(label: "Title", maxLength: 128),
        "MobilePhone": FieldRule(label: "Mobile phone", maxLength: 40, format: .phone),
        "Email": FieldRule(label: "Email", maxLength: 80, format: .email),
        "Department": FieldRule(label: "Department", maxLength: 80),
        "HomePhone": FieldRule(label: "Home phone", maxLength: 40, format: .phone),
        "AccountId": FieldRule(label: "Account", maxLength: 18),
        "Phone": FieldRule(label: "Business phone", maxLength: 40, format: .phone),
        "OtherPhone": FieldRule(label: "Other phone", maxLength: 40, format: .phone),
        "Fax": FieldRule(label: "Fax", maxLength: 40, format: .phone),
        "Salutation": FieldRule(label: "Salutation", maxLength: 40),
        "MiddleName": FieldRule(label: "Middle name", maxLength: 40),
        "Suffix": FieldRule(label: "Suffix", maxLength: 40),
        "MailingStreet": FieldRule(label: "Street", maxLength: 255, format: .textArea),
        "MailingCity": FieldRule(label: "City", maxLength: 40),
        "MailingState": FieldRule(label: "State/Province", maxLength: 80),
        "MailingPostalCode": FieldRule(label: "Postal code", maxLength: 20),
        "MailingCountry": FieldRule(label: "Country", maxLength: 80),
        "Birthdate": FieldRule(label: "Birthdate", maxLength: 0, format: .date),
        "Description": FieldRule(label: "Description", maxLength: 32000, format: .textArea),
    ]

    static let accountRules: [String: FieldRule] = [
        "Name": FieldRule(label: "Name", required: true, maxLength: 255),
        "Industry": FieldRule(label: "Industry", maxLength: 255),
        "Phone": FieldRule(label: "Phone", maxLength: 40, format: .phone),
        "Website": FieldRule(label: "Website", maxLength: 255, format: .url),
        "Fax": FieldRule(label: "Fax", maxLength: 40, format: .phone),
        "BillingStreet": FieldRule(label: "Street", maxLength: 255, format: .textArea),
        "BillingCity": FieldRule(label: "City", maxLength: 40),
        "BillingState": FieldRule(label: "State/Province", maxLength: 80),
        "BillingPostalCode": FieldRule(label: "Postal code", maxLength: 20),
        "BillingCountry": FieldRule(label: "Country", maxLength: 80),
        "Description": FieldRule(label: "Description", maxLength: 32000, format: .textArea),
    ]

    /// Why `value` is not acceptable, in one line that says what to do, or `nil` when it is.
    /// `choices`: the values a picklist offers on this record.
    public func problem(with value: String, choices: [String] = []) -> String? {
        let trimmed = value.trimmingWhitespace
        if required && trimmed.isEmpty { return "\(label) is required" }
        if maxLength > 0 && value.count > maxLength { return "\(label) is \(value.count) characters; the limit is \(maxLength)" }
        guard !trimmed.isEmpty else { return nil }
        switch format {
        case .email:
            if !Self.looksLikeEmail(trimmed) { return "\(label) should look like name@example.com" }
        case .phone:
            if trimmed.contains(where: { !($0.isNumber || " +-().x/".contains($0)) }) {
                return "\(label) may hold digits, spaces and + - ( ) . x / only"
            }
        case let .picklist(restricted):
            if restricted && !choices.contains(trimmed) { return "\(label) must be one of its values (Enter lists them)" }
        case let .multiPicklist(restricted):
            let picked = trimmed.split(separator: ";").map { String($0).trimmingWhitespace }
            if restricted, let stray = picked.first(where: { !choices.contains($0) }) {
                return "\(label) has \(stray), which is not one of its values (Enter lists them)"
            }
        case .date:
            if FormValue.date(trimmed) == nil { return "\(label) is a date: YYYY-MM-DD" }
        case .dateTime:
            if FormValue.dateTime(trimmed) == nil { return "\(label) is a date and time in UTC: YYYY-MM-DD HH:MM" }
        case let .number(precision, scale):
            return FormValue.numberProblem(trimmed, precision: precision, scale: scale, label: label)
        case .checkbox:
            if trimmed != "true" && trimmed != "false" { return "\(label) is a checkbox: true or false" }
        case .text, .textArea, .url, .recordType:
            break
        }
        return nil
    }

    /// One @, something before it, a dotted domain after it, and no spaces: what Salesforce accepts
    /// in practice, without pretending to implement RFC 5322.
    static func looksLikeEmail(_ text: String) -> Bool {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !text.contains(where: \.isWhitespace) else { return false }
        let domain = parts[1]
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        return labels.count >= 2 && labels.allSatisfy { !$0.isEmpty }
    }
}

extension StringProtocol {
    var trimmingWhitespace: String {
        var text = Substring(self)
        while let first = text.first, first.isWhitespace { text = text.dropFirst() }
        while let last = text.last, last.isWhitespace { text = text.dropLast() }
        return String(text)
    }
}
