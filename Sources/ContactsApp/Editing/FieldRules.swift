/// What a form checks before saving a field: required, maximum length (Salesforce's field lengths),
/// and a format for emails. Unknown fields get Salesforce's common 255-character text limit.
public struct FieldRule: Sendable, Equatable {
    public enum Format: Sendable, Equatable { case text, email, phone, url }

    public let label: String
    public let required: Bool
    public let maxLength: Int
    public let format: Format

    public init(label: String, required: Bool = false, maxLength: Int = 255, format: Format = .text) {
        self.label = label
        self.required = required
        self.maxLength = maxLength
        self.format = format
    }

    /// The rule for `field` of `kind`.
    public static func rule(for field: String, of kind: RecordKind) -> FieldRule {
        let table: [String: FieldRule] = switch kind.role {
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
    ]

    static let accountRules: [String: FieldRule] = [
        "Name": FieldRule(label: "Name", required: true, maxLength: 255),
        "Industry": FieldRule(label: "Industry", maxLength: 255),
        "Phone": FieldRule(label: "Phone", maxLength: 40, format: .phone),
        "Website": FieldRule(label: "Website", maxLength: 255, format: .url),
        "BillingStreet": FieldRule(label: "Street", maxLength: 255),
        "BillingCity": FieldRule(label: "City", maxLength: 40),
        "BillingPostalCode": FieldRule(label: "Postal code", maxLength: 20),
        "BillingCountry": FieldRule(label: "Country", maxLength: 80),
    ]

    /// Why `value` is not acceptable, in one line that says what to do, or `nil` when it is.
    public func problem(with value: String) -> String? {
        let trimmed = value.trimmingWhitespace
        if required && trimmed.isEmpty { return "\(label) is required" }
        if value.count > maxLength { return "\(label) is \(value.count) characters; the limit is \(maxLength)" }
        guard !trimmed.isEmpty else { return nil }
        switch format {
        case .email:
            if !Self.looksLikeEmail(trimmed) { return "\(label) should look like name@example.com" }
        case .phone:
            if trimmed.contains(where: { !($0.isNumber || " +-().x/".contains($0)) }) {
                return "\(label) may hold digits, spaces and + - ( ) . x / only"
            }
        case .text, .url:
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

extension String {
    var trimmingWhitespace: String {
        var text = Substring(self)
        while let first = text.first, first.isWhitespace { text = text.dropFirst() }
        while let last = text.last, last.isWhitespace { text = text.dropLast() }
        return String(text)
    }
}
